package imageref

import (
	"regexp"
	"strings"
	"testing"
)

// referenceGrammar is distribution/reference's grammar as a regular
// expression: the oracle matchReference is checked against.
var referenceGrammar = func() *regexp.Regexp {
	const (
		alnum     = `[a-z0-9]+`
		separator = `(?:[._]|__|[-]+)`
		component = alnum + `(?:` + separator + alnum + `)*`
		path      = component + `(?:/` + component + `)*`
		domainCmp = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
		host      = `(?:` + domainCmp + `(?:\.` + domainCmp + `)*|\[(?:[a-fA-F0-9:]+)\])`
		domain    = host + `(?::[0-9]+)?`
		tag       = `[\w][\w.-]{0,127}`
		digest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
	)
	return regexp.MustCompile(`^((?:` + domain + `/)?` + path + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`)
}()

func checkMatchReference(t *testing.T, s string) {
	t.Helper()
	name, tag, digest, ok := matchReference(s)
	m := referenceGrammar.FindStringSubmatch(s)
	if ok != (m != nil) {
		t.Fatalf("%q: matchReference says %v, the grammar %v", s, ok, m != nil)
	}
	if ok && (name != m[1] || tag != m[2] || digest != m[3]) {
		t.Fatalf("%q: matchReference gives name %q tag %q digest %q, the grammar %q %q %q", s, name, tag, digest, m[1], m[2], m[3])
	}
}

func TestMatchReference(t *testing.T) {
	for _, s := range referenceSeeds {
		checkMatchReference(t, s)
	}
}

var referenceSeeds = []string{
	"docker.io/library/busybox", "quay.io/a/b:v1", "quay.io/a/b@sha256:" + hex(64), "quay.io/a/b:v1@sha256:" + hex(64),
	"localhost:5000/a", "[::1]:5000/a:b", "[::1]/a", "a--b/c__d/e.f", "a-/b", "a/-b", "a/b_", "a/b___c", "a/b..c",
	"a:b:c", "a/b:", "a/b:-x", "a/b@md5:" + hex(32), "a/b@sha256:" + hex(31), "A.B/c", "a/B", ":x", "a//b", "a/b/",
	"host:/a", "ho_st/a", "-h/a", "h-/a", "h.-x/a", "a/b@sha256+x.y:" + hex(40), "a/b@1sha:" + hex(40), "a/b@sha256:",
	"[]/a", "[g]/a", "a:99999/b", "a/b:" + long(128), "a/b:" + long(129),
}

func FuzzMatchReference(f *testing.F) {
	for _, s := range referenceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkMatchReference(t, s) })
}

func TestParse(t *testing.T) {
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
		if _, err := Parse(s); err != nil {
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
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), want) {
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

func TestParseParts(t *testing.T) {
	for s, want := range map[string]Ref{
		"busybox":                              {Domain: "docker.io", Path: "library/busybox"},
		"index.docker.io/acme/op:v1":           {Domain: "docker.io", Path: "acme/op", Tag: "v1"},
		"quay.io/acme/op:v1@sha256:" + hex(64): {Domain: "quay.io", Path: "acme/op", Tag: "v1", Digest: "sha256:" + hex(64)},
		"localhost:5000/a/b":                   {Domain: "localhost:5000", Path: "a/b"},
		"Acme/op":                              {Domain: "Acme", Path: "op"},
	} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", s, got, err, want)
		}
	}
}
