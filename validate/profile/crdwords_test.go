package profile

import (
	"slices"
	"testing"
)

// TestWordCRDChanges: crdify's errors, as its checks write them (v0.5.0),
// become one sentence per field and version: a removed field once, with
// the fields under it and without the property checks that compare it
// with nothing; the other checks of a field in one sentence, sorted.
func TestWordCRDChanges(t *testing.T) {
	in := []crdChange{
		// spec.jvm.gc.logging removed, and reported again by "type".
		{check: "existingFieldRemoval", msg: "removed field : v1.^.spec.jvm.gc.logging"},
		{version: "v1", field: "^.spec.jvm.gc.logging", check: "type", msg: `type changed : "boolean" -> ""`},
		// A removed object with an array under it.
		{check: "existingFieldRemoval", msg: "removed field : v1.^.spec.claims"},
		{check: "existingFieldRemoval", msg: "removed field : v1.^.spec.claims[*]"},
		{check: "existingFieldRemoval", msg: "removed field : v1.^.spec.claims[*].name"},
		{version: "v1", field: "^.spec.claims[*].name", check: "type", msg: `type changed : "string" -> ""`},
		{version: "v1", field: "^.spec.claims", check: "unhandled", msg: "unhandled changes found :\n  &v1.JSONSchemaProps{\n- \tXListType: &\"map\",\n+ \tXListType: nil,\n  }\n"},
		// Several checks of one field, in map order.
		{version: "v1", field: "^.spec.mode", check: "enum", msg: "allowed enum values removed : [slow fast]"},
		{version: "v1", field: "^.spec.mode", check: "default", msg: `default value changed : "\"fast\"" -> "\"safe\""`},
		{version: "v1", field: "^.spec", check: "required", msg: "new required fields: [size name]"},
		{version: "v1", field: "^.spec.size", check: "minimum", msg: "minimum increased : 1 -> 3"},
		{version: "v1", field: "^.spec.size", check: "maximum", msg: "maximum constraint added when there was none previously : 10"},
		{version: "v1", field: "^.spec.tag", check: "maxLength", msg: "maximum decreased : 63 -> 20"},
		{version: "v1", field: "^.spec.kind", check: "enum", msg: "enum constraint added when there was none previously : [a b]"},
		{version: "v1", field: "^.spec.port", check: "default", msg: `default added when there was none previously : "8080"`},
		// Between served versions of the new CRD.
		{version: "v1 -> v2", served: true, field: "^.spec.size", check: "type", msg: `type changed : "integer" -> "string"`},
		// The whole CRD, and what the words do not know.
		{check: "storedVersionRemoval", msg: "stored versions removed : [v1alpha1]"},
		{version: "v1", field: "^.spec.odd", check: "future", msg: "something new : [b a]"},
	}
	want := []string{
		"it no longer lists the stored versions v1alpha1 (crdify: storedVersionRemoval)",
		"field spec of v1 now requires name, size (crdify: required)",
		"field spec.claims of v1 was removed, with the 2 fields under it (items, items.name) (crdify: existingFieldRemoval)",
		"field spec.jvm.gc.logging of v1 was removed (crdify: existingFieldRemoval)",
		"field spec.kind of v1 now allows only the values a, b (crdify: enum)",
		`field spec.mode of v1 changed its default from "fast" to "safe"; no longer allows the values fast, slow (crdify: default, enum)`,
		"field spec.odd of v1 future: something new : [a b] (crdify: future)",
		"field spec.port of v1 got a default, 8080 (crdify: default)",
		"field spec.size of v1 got a maximum of 10; raised its minimum from 1 to 3 (crdify: maximum, minimum)",
		"field spec.tag of v1 lowered its maxLength from 63 to 20 (crdify: maxLength)",
		"field spec.size, between served versions v1 and v2, changed type from integer to string (crdify: type)",
	}
	got := wordCRDChanges(in)
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}
