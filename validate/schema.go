package validate

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
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
func loadCUEFiles(ctx *cue.Context, fsys fs.FS, dir string) (cue.Value, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
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
		return cue.Value{}, fmt.Errorf("no .cue files in %s", dir)
	}
	inst := build.NewContext().NewInstance(dir, nil)
	for _, name := range names {
		p := path.Join(dir, name)
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return cue.Value{}, err
		}
		f, err := parser.ParseFile(p, src, parser.ParseComments)
		if err != nil {
			return cue.Value{}, fmt.Errorf("parsing %s: %w", p, err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, fmt.Errorf("adding %s: %w", p, err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, fmt.Errorf("compiling %s: %w", dir, err)
	}
	if err := v.Validate(); err != nil {
		return cue.Value{}, fmt.Errorf("compiling %s: %w", dir, err)
	}
	return v, nil
}

func compileSchemaFS(fsys fs.FS, dir string) (*catalogSchema, error) {
	ctx := cuecontext.New()
	v, err := loadCUEFiles(ctx, fsys, dir)
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
