package validate

import (
	"regexp"
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
	name, digest, ok := matchReference(s)
	m := referenceGrammar.FindStringSubmatch(s)
	if ok != (m != nil) {
		t.Fatalf("%q: matchReference says %v, the grammar %v", s, ok, m != nil)
	}
	if ok && (name != m[1] || digest != m[3]) {
		t.Fatalf("%q: matchReference gives name %q digest %q, the grammar %q %q", s, name, digest, m[1], m[3])
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
