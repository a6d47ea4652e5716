package validate

import (
	"sort"
	"sync"

	"github.com/fbc-project/fbc/validate/internal/shape"
)

// The embedded CUE files are the single description of blob shapes (see the
// comment at the top of schema/catalog.cue for their conventions).
// validate/internal/cueshape compiles them into shapes ahead of time:
// builtinTable (schema_table.go) is what it made of them, and
// TestBuiltinSchemaTable fails when the table and the files differ
// (`go test ./validate -run TestBuiltinSchemaTable -update` writes it
// again). Checking a blob walks its parsed nodes, and no run evaluates CUE
// for the built-in schema.

// catalogSchema is the built-in schema.
type catalogSchema struct {
	// schemas and properties are the shapes of the `schemas` and
	// `properties` maps, keyed by schema name and property type.
	schemas    map[string]*shape.Shape
	properties map[string]*shape.Shape
	// files are the shapes of the `files` map: the settings files of an
	// operator repository (ci.yaml, release-config.yaml), by name.
	files map[string]*shape.Shape
	// propertyTypes lists the known property types, sorted, for suggestions.
	propertyTypes []string
}

// builtin returns the built-in schema, linked once per process. A failure
// is a bug in the generated table (a test builds it), reported instead of
// panicking.
var builtin = sync.OnceValues(func() (*catalogSchema, error) { return schemaOf(builtinTable) })

func schemaOf(t shape.Table) (*catalogSchema, error) {
	s := &catalogSchema{}
	m, err := shape.Build(t)
	if err != nil {
		return nil, err
	}
	s.schemas, s.properties, s.files = m.Schemas, m.Properties, m.Files
	for t := range s.properties {
		s.propertyTypes = append(s.propertyTypes, t)
	}
	sort.Strings(s.propertyTypes)
	return s, nil
}
