package validate

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
)

// The embedded CUE files are the single description of blob shapes (see the
// comment at the top of schema/catalog.cue for their conventions). They are
// compiled once per process into shapes (shape.go) so that checking a blob
// walks its YAML nodes instead of encoding it into CUE.
//
//go:embed schema/*.cue
var schemaFS embed.FS

// catalogSchema is the compiled built-in schema.
type catalogSchema struct {
	// cue holds the evaluated CUE value; rt is the runtime it lives in,
	// CUE runtime does not allow concurrently.
	rt  *cueRuntime
	cue cue.Value
	// schemas and properties are the compiled `schemas` and `properties`
	// maps, keyed by schema name and property type.
	schemas    map[string]*shape
	properties map[string]*shape
	// propertyTypes lists the known property types, sorted, for suggestions.
	propertyTypes []string
	// residuals names the parts of the schema left to CUE evaluation.
	residuals []string
}

var (
	builtinOnce   sync.Once
	builtinSchema *catalogSchema
	builtinErr    error
)

// builtin returns the compiled embedded schema. A failure is a bug in the
// .cue files (a test compiles them), reported instead of panicking.
func builtin() (*catalogSchema, error) {
	builtinOnce.Do(func() {
		builtinSchema, builtinErr = compileSchemaFS(schemaFS, "schema")
	})
	return builtinSchema, builtinErr
}

// loadCUEFiles builds one CUE instance from every .cue file in dir of fsys.
// Files may declare a package (all the same one) or none; imports of CUE's
// standard library (strings, regexp, ...) work, other imports do not.
// Positions in errors name files as display/<file>.
func loadCUEFiles(ctx *cue.Context, fsys fs.FS, dir, display string) (cue.Value, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return cue.Value{}, fmt.Errorf("cannot list the directory: %w", pe.Err)
		}
		return cue.Value{}, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && path.Ext(e.Name()) == ".cue" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return cue.Value{}, fmt.Errorf("no .cue files in %s", display)
	}
	inst := build.NewContext().NewInstance(dir, nil)
	for _, name := range names {
		shown := filepath.Join(display, name)
		src, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return cue.Value{}, fmt.Errorf("reading %s: %w", shown, err)
		}
		f, err := parser.ParseFile(shown, src, parser.ParseComments)
		if err != nil {
			return cue.Value{}, cueErrorText(err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, cueErrorText(err)
		}
	}
	v := ctx.BuildInstance(inst)
	// Validate lists every error; Err only the first.
	if err := v.Validate(); err != nil {
		return cue.Value{}, cueErrorText(err)
	}
	if err := v.Err(); err != nil {
		return cue.Value{}, cueErrorText(err)
	}
	return v, nil
}

// cueErrorText turns CUE's errors into one line each, "file:line:col:
// message", as compilers print them (CUE's Error() shows only the first,
// without its position).
func cueErrorText(err error) error {
	const maxLines = 20
	var lines []string
	for _, e := range cueerrors.Errors(err) {
		pos := e.Position()
		if !pos.IsValid() {
			if in := e.InputPositions(); len(in) > 0 {
				pos = in[len(in)-1]
			}
		}
		if len(lines) == maxLines {
			lines = append(lines, fmt.Sprintf("... and %d more", len(cueerrors.Errors(err))-maxLines))
			break
		}
		if pos.IsValid() {
			lines = append(lines, fmt.Sprintf("%s: %s", pos, strings.TrimSpace(e.Error())))
		} else {
			lines = append(lines, strings.TrimSpace(e.Error()))
		}
	}
	if len(lines) == 0 {
		return err
	}
	return errors.New(strings.Join(lines, "\n"))
}

func compileSchemaFS(fsys fs.FS, dir string) (*catalogSchema, error) {
	ctx := cuecontext.New()
	v, err := loadCUEFiles(ctx, fsys, dir, dir)
	if err != nil {
		return nil, err
	}
	s := &catalogSchema{rt: &cueRuntime{ctx: ctx}, cue: v}
	c := &shapeCompiler{rt: s.rt}
	if s.schemas, err = c.compileMap(v, "schemas"); err != nil {
		return nil, err
	}
	if s.properties, err = c.compileMap(v, "properties"); err != nil {
		return nil, err
	}
	s.residuals = c.residuals
	for t := range s.properties {
		s.propertyTypes = append(s.propertyTypes, t)
	}
	sort.Strings(s.propertyTypes)
	return s, nil
}

// mapEntries returns the fields of the struct at name in v (which may be
// absent: ok is false then).
func mapEntries(v cue.Value, name string) (map[string]cue.Value, bool, error) {
	m := v.LookupPath(cue.MakePath(cue.Str(name)))
	if !m.Exists() {
		return nil, false, nil
	}
	if m.IncompleteKind() != cue.StructKind {
		return nil, true, fmt.Errorf("%s must be a struct mapping names to definitions", name)
	}
	it, err := m.Fields(cue.Optional(true), cue.Definitions(false))
	if err != nil {
		return nil, true, err
	}
	out := map[string]cue.Value{}
	for it.Next() {
		out[it.Selector().Unquoted()] = it.Value()
	}
	return out, true, nil
}
