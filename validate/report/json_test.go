package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// schemaNode is the part of JSON Schema docs/validate.schema.json uses.
type schemaNode struct {
	Ref        string                 `json:"$ref"`
	Type       string                 `json:"type"`
	Enum       []any                  `json:"enum"`
	Minimum    *float64               `json:"minimum"`
	Required   []string               `json:"required"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
	Defs       map[string]*schemaNode `json:"$defs"`
}

func loadReportSchema(t *testing.T) *schemaNode {
	data, err := os.ReadFile("../../docs/validate.schema.json")
	require.NoError(t, err)
	var s schemaNode
	require.NoError(t, json.Unmarshal(data, &s))
	return &s
}

// conform checks v against s (type, enum, minimum, required, properties,
// items, local $ref): the subset of JSON Schema the documented schema uses.
func conform(root, s *schemaNode, v any, path string) []string {
	if s.Ref != "" {
		return conform(root, root.Defs[strings.TrimPrefix(s.Ref, "#/$defs/")], v, path)
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		fail("%v is not one of %v", v, s.Enum)
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			fail("want an object, got %T", v)
			return errs
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				fail("lacks required %q", r)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok {
				fail("property %q is not in the documented schema", k)
				continue
			}
			errs = append(errs, conform(root, ps, m[k], path+"."+k)...)
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			fail("want an array, got %T", v)
			return errs
		}
		for i, item := range a {
			errs = append(errs, conform(root, s.Items, item, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			fail("want a string, got %T", v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("want a boolean, got %T", v)
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			fail("want an integer, got %v", v)
		} else if s.Minimum != nil && f < *s.Minimum {
			fail("%v is below the minimum %v", f, *s.Minimum)
		}
	}
	return errs
}

// The documented schema accepts what WriteJSON writes, and rejects what it
// must not.
func TestJSONOutputMatchesDocumentedSchema(t *testing.T) {
	schema := loadReportSchema(t)
	for name, res := range map[string]*validate.Result{"sample": sampleResult(), "empty": {}} {
		var b bytes.Buffer
		require.NoError(t, WriteJSON(&b, res))
		var v any
		require.NoError(t, json.Unmarshal(b.Bytes(), &v))
		assert.Empty(t, conform(schema, schema, v, "$"), name)
	}
	var bad any
	require.NoError(t, json.Unmarshal([]byte(`{"valid": "yes", "summary": {"errors": -1}, "diagnostics": [{"rule": "r", "severity": "fatal", "line": 0, "extra": 1}]}`), &bad))
	got := strings.Join(conform(schema, schema, bad, "$"), "\n")
	for _, want := range []string{
		"$.valid: want a boolean", `$.summary: lacks required "warnings"`, "$.summary.errors: -1 is below the minimum 0",
		`$.diagnostics[0]: lacks required "message"`, `$.diagnostics[0]: property "extra" is not in the documented schema`,
		"$.diagnostics[0].severity: fatal is not one of", "$.diagnostics[0].line: 0 is below the minimum 1",
	} {
		assert.Contains(t, got, want)
	}
}

// jsonFields lists the JSON names of a struct's fields (embedded structs
// flattened, as encoding/json does) and which of them are always present.
func jsonFields(t reflect.Type) (names, always []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			n, a := jsonFields(f.Type)
			names, always = append(names, n...), append(always, a...)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue // not encoded
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") {
			always = append(always, name)
		}
	}
	slices.Sort(names)
	slices.Sort(always)
	return names, always
}

// The schema documents exactly the Go types' fields, and requires exactly
// those that are never omitted, so neither can drift from the other.
func TestDocumentedSchemaMatchesTypes(t *testing.T) {
	schema := loadReportSchema(t)
	for _, tc := range []struct {
		name string
		node *schemaNode
		typ  reflect.Type
	}{
		{"report", schema, reflect.TypeFor[JSONReport]()},
		{"summary", schema.Properties["summary"], reflect.TypeFor[JSONSummary]()},
		{"diagnostic", schema.Defs["diagnostic"], reflect.TypeFor[declcfg.Finding]()},
	} {
		names, always := jsonFields(tc.typ)
		var props []string
		for k := range tc.node.Properties {
			props = append(props, k)
		}
		slices.Sort(props)
		required := slices.Sorted(slices.Values(tc.node.Required))
		assert.Equal(t, names, props, "%s: properties of docs/validate.schema.json vs %s", tc.name, tc.typ)
		assert.Equal(t, always, required, "%s: required of docs/validate.schema.json vs non-omitempty fields of %s", tc.name, tc.typ)
	}
}
