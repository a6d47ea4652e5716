package validate

import "testing"

func TestParseImageReference(t *testing.T) {
	valid := []string{
		"quay.io/acme/op:v1.0.0",
		"quay.io/acme/op@sha256:" + hex(64),
		"quay.io/acme/op:v1@sha256:" + hex(64),
		"registry.redhat.io/rh/op-bundle@sha256:" + hex(64),
		"busybox",
		"library/busybox:latest",
		"localhost:5000/a/b",
		"127.0.0.1:5000/a/b:tag",
		"[::1]:5000/a:b",
		"Quay.IO/acme/op:V1", // registries are case-insensitive, tags may be upper case
		"Acme/op",            // an upper-case first component is a registry name
		"a.b/c__d/e--f/g.h:1",
		"quay.io/acme/op@sha512:" + hex(128),
	}
	for _, s := range valid {
		if err := parseImageReference(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	invalid := map[string]string{
		"quay.io/Acme/op:v1":                  "must be lowercase",
		"acme/Op":                             "must be lowercase",
		"quay.io/acme/op:":                    "invalid reference format",
		"quay.io/acme/op:v1:v2":               "invalid reference format",
		"quay.io/acme/op@sha256:abc":          "invalid reference format",
		"quay.io/acme/op@sha256:" + hex(63):   "want 64",
		"quay.io/acme/op@sha256:" + hex(65):   "want 64",
		"quay.io/acme/op@md5:" + hex(32):      "unsupported digest algorithm",
		"quay.io/acme/op@sha256:" + upper(64): "lowercase hex",
		hex(64):                               "image ID",
		"quay.io//op":                         "invalid reference format",
		"quay.io/acme/op ":                    "invalid reference format",
		"-quay.io/op":                         "invalid reference format",
		"quay.io/acme/" + long(260):           "longer than 255",
		"quay.io/acme/op:" + long(129):        "invalid reference format",
	}
	for s, want := range invalid {
		err := parseImageReference(s)
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", s, err, want)
		}
	}
}

func hex(n int) string   { return repeat("0123456789abcdef", n) }
func upper(n int) string { return repeat("0123456789ABCDEF", n) }
func long(n int) string  { return repeat("a", n) }

func repeat(unit string, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = unit[i%len(unit)]
	}
	return string(out)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestCheckRelease(t *testing.T) {
	for r, want := range map[string]string{
		"1":                     "",
		"2.alpha-1":             "",
		"01":                    "leading zeroes",
		"a..b":                  "segment 1",
		"123456789012345678901": "longer than 20",
		"a_b":                   "segment 0",
	} {
		err := checkRelease(r)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", r, err)
		case want != "" && (err == nil || !contains(err.Error(), want)):
			t.Errorf("%q: got %v, want %q", r, err, want)
		}
	}
}
