package cueshape

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// Runtime is a CUE context with the lock that serialises evaluation in
// it: the CUE runtime does not allow concurrent use.
type Runtime struct {
	mu  sync.Mutex
	ctx *cue.Context
}

// NewRuntime returns a runtime with a CUE context of its own.
func NewRuntime() *Runtime { return &Runtime{ctx: cuecontext.New()} }

// Load builds one CUE value in rt from every .cue file in dir of fsys.
// Files may declare a package (all the same one) or none; imports of CUE's
// standard library (strings, regexp, ...) work, other imports do not.
// Positions in errors name files as display/<file>, one error a line.
func (rt *Runtime) Load(fsys fs.FS, dir, display string) (cue.Value, error) {
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
			return cue.Value{}, errorText(err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, errorText(err)
		}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	v := rt.ctx.BuildInstance(inst)
	// Validate lists every error; Err only the first.
	if err := v.Validate(); err != nil {
		return cue.Value{}, errorText(err)
	}
	if err := v.Err(); err != nil {
		return cue.Value{}, errorText(err)
	}
	return v, nil
}

// errorText turns CUE's errors into one line each, "file:line:col:
// message", as compilers print them (CUE's Error() shows only the first,
// without its position).
func errorText(err error) error {
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

// Fields returns the fields of the struct at name in v (which may be
// absent: ok is false then), such as the `schemas` map of a schema.
func Fields(v cue.Value, name string) (map[string]cue.Value, bool, error) {
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

// Eval unifies the YAML value n with the CUE value v and reports each
// error at the node its path leads to, classified by rule. v belongs to rt.
func Eval(rt *Runtime, v cue.Value, n *declcfg.Node, p *shape.Path, report shape.Report) {
	val, err := declcfg.NodeToValue(n)
	if err != nil {
		return // the loader reports values it cannot convert
	}
	val = stripNulls(val)
	rt.mu.Lock()
	verr := v.Unify(rt.ctx.Encode(val)).Validate(cue.Concrete(true))
	prefix := len(v.Path().Selectors())
	rt.mu.Unlock()
	for _, ce := range cueerrors.Errors(verr) {
		rel := ce.Path()
		if len(rel) >= prefix {
			rel = rel[prefix:]
		}
		at, ap := locate(n, p, rel)
		report(classifyCUEError(ce), at, ap, fmt.Sprintf("%s: %s", ap.Subject(), cueMessage(ce)))
	}
}

// locate follows a CUE error path from n down its YAML nodes, as far as they
// go.
func locate(n *declcfg.Node, p *shape.Path, sels []string) (*declcfg.Node, *shape.Path) {
	for _, sel := range sels {
		n = declcfg.Deref(n)
		switch n.Kind {
		case declcfg.MappingNode:
			entries, err := declcfg.MappingEntries(n)
			if err != nil {
				return n, p
			}
			found := false
			for _, e := range entries {
				if e.Key == sel {
					p = p.Field(sel)
					if declcfg.IsNull(e.Value) || e.Value == nil {
						return n, p
					}
					n, found = e.Value, true
					break
				}
			}
			if !found {
				return n, p.Field(sel)
			}
		case declcfg.SequenceNode:
			i, err := strconv.Atoi(sel)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n, p
			}
			n, p = n.Content[i], p.Elem(i)
		default:
			return n, p
		}
	}
	return n, p
}

func classifyCUEError(e cueerrors.Error) string {
	format, args := e.Msg()
	switch {
	case strings.Contains(format, "not allowed"):
		return shape.RuleUnknownField
	case strings.Contains(format, "required but not present"), strings.Contains(format, "incomplete value"):
		return shape.RuleMissingField
	case strings.Contains(format, "mismatched types"):
		return declcfg.RuleFieldType
	case strings.Contains(format, "out of bound") && len(args) == 2 && fmt.Sprint(args[1]) == `!=""`:
		return shape.RuleEmptyValue
	}
	return shape.RuleInvalidValue
}

func cueMessage(e cueerrors.Error) string {
	format, args := e.Msg()
	return fmt.Sprintf(format, args...)
}

// stripNulls drops null object members, which count as absent.
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = stripNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripNulls(e)
		}
	}
	return v
}
