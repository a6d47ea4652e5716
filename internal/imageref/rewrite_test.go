package imageref

import "testing"

func TestRepository(t *testing.T) {
	for _, tc := range []struct{ ref, repo, pinned string }{
		{"quay.io/a/b:v1", "quay.io/a/b", "quay.io/a/b@sha256:1"},
		{"quay.io/a/b@sha256:0", "quay.io/a/b", "quay.io/a/b@sha256:1"},
		{"quay.io/a/b:v1@sha256:0", "quay.io/a/b", "quay.io/a/b@sha256:1"},
		{"localhost:5000/b", "localhost:5000/b", "localhost:5000/b@sha256:1"},
		{"localhost:5000/b:v1", "localhost:5000/b", "localhost:5000/b@sha256:1"},
		{"busybox", "busybox", "busybox@sha256:1"},
		{"busybox:latest", "busybox", "busybox@sha256:1"},
	} {
		if got := Repository(tc.ref); got != tc.repo {
			t.Errorf("Repository(%q) = %q, want %q", tc.ref, got, tc.repo)
		}
		if got := WithDigest(tc.ref, "sha256:1"); got != tc.pinned {
			t.Errorf("WithDigest(%q) = %q, want %q", tc.ref, got, tc.pinned)
		}
	}
}

func TestSplitLocal(t *testing.T) {
	for _, tc := range []struct {
		rest string
		want Local
	}{
		{"dir", Local{Path: "dir"}},
		{"dir:v1", Local{Path: "dir", Selector: "v1", HasSelector: true}},
		{"dir:", Local{Path: "dir", HasSelector: true}},
		{"dir@sha256:abc", Local{Path: "dir", Digest: "sha256:abc"}},
		{"dir@not/a:digest", Local{Path: "dir@not/a", Selector: "digest", HasSelector: true}},
		{"a.tar:quay.io/x/y:v1", Local{Path: "a.tar", Selector: "quay.io/x/y:v1", HasSelector: true}},
		{"/abs/layout:v1@sha256:abc", Local{Path: "/abs/layout", Selector: "v1", HasSelector: true, Digest: "sha256:abc"}},
		{"", Local{}},
	} {
		if got := SplitLocal(tc.rest); got != tc.want {
			t.Errorf("SplitLocal(%q) = %+v, want %+v", tc.rest, got, tc.want)
		}
	}
}

// FuzzRewrite: SplitLocal's parts put back together are what was split,
// and a reference the grammar reads keeps its name under Repository and
// WithDigest, which drop its tag and digest.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{"quay.io/a/b:v1", "localhost:5000/b@sha256:" + "0123456789012345678901234567890123456789012345678901234567890123", "dir:v1@sha256:abc", "a.tar:r/x:v1", "b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := SplitLocal(s)
		back := l.Path
		if l.HasSelector {
			back += ":" + l.Selector
		}
		if l.Digest != "" {
			back += "@" + l.Digest
		}
		if back != s || !l.HasSelector && l.Selector != "" {
			t.Fatalf("SplitLocal(%q) = %+v", s, l)
		}
		r, err := Parse(s)
		if err != nil || isHex64(Repository(s)) {
			return // a bare 64-character hex name reads as an image ID
		}
		repo, err := Parse(Repository(s))
		if err != nil || repo.Tag != "" || repo.Digest != "" || repo.Domain != r.Domain || repo.Path != r.Path {
			t.Fatalf("Repository(%q) = %q: %+v, %v; the reference is %+v", s, Repository(s), repo, err, r)
		}
		const digest = "sha256:0123456789012345678901234567890123456789012345678901234567890123"
		pinned, err := Parse(WithDigest(s, digest))
		if err != nil || pinned.Digest != digest || pinned.Tag != "" || pinned.Path != r.Path || pinned.Domain != r.Domain {
			t.Fatalf("WithDigest(%q) = %q: %+v, %v", s, WithDigest(s, digest), pinned, err)
		}
	})
}
