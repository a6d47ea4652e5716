package validate

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/fbc-project/fbc/validate/internal/cueshape"
)

// The embedded CUE files are the single description of blob shapes (see the
// comment at the top of schema/catalog.cue for their conventions). They are
// compiled once per process into shapes (package cueshape) so that checking
// a blob walks its YAML nodes instead of encoding it into CUE.
//
//go:embed schema/*.cue
var schemaFS embed.FS

// catalogSchema is the compiled built-in schema.
type catalogSchema struct {
	// schemas and properties are the compiled `schemas` and `properties`
	// maps, keyed by schema name and property type.
	schemas    map[string]*cueshape.Shape
	properties map[string]*cueshape.Shape
	// files is the compiled `files` map: the settings files of an
	// operator repository (ci.yaml, release-config.yaml), by name.
	files map[string]*cueshape.Shape
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

func compileSchemaFS(fsys fs.FS, dir string) (*catalogSchema, error) {
	rt := cueshape.NewRuntime()
	v, err := rt.Load(fsys, dir, dir)
	if err != nil {
		return nil, err
	}
	s := &catalogSchema{}
	c := cueshape.NewCompiler(rt)
	if s.schemas, err = c.CompileMap(v, "schemas"); err != nil {
		return nil, err
	}
	if s.properties, err = c.CompileMap(v, "properties"); err != nil {
		return nil, err
	}
	if s.files, err = c.CompileMap(v, "files"); err != nil {
		return nil, err
	}
	s.residuals = c.Residuals()
	for t := range s.properties {
		s.propertyTypes = append(s.propertyTypes, t)
	}
	sort.Strings(s.propertyTypes)
	return s, nil
}
