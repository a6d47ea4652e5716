package validate

import "testing"

// The built-in schema must compile, and entirely into native shapes: a
// construct the shape compiler does not understand would silently fall back
// to (slow) per-blob CUE evaluation.
func TestBuiltinSchemaIsNative(t *testing.T) {
	s, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"olm.package", "olm.channel", "olm.bundle", "olm.deprecations"} {
		if s.schemas[name] == nil {
			t.Errorf("schemas has no %s", name)
		}
	}
	if s.schemas[SchemaLifecycle] == nil {
		t.Errorf("schemas has no %s", SchemaLifecycle)
	}
	for _, name := range []string{"ci.yaml", "release-config.yaml"} {
		if s.files[name] == nil {
			t.Errorf("files has no %s", name)
		}
	}
	if len(s.residuals) > 0 {
		t.Errorf("parts of the built-in schema are not compiled natively: %v", s.residuals)
	}
}
