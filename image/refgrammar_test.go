package image_test

import (
	"cmp"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/fbc-project/fbc/internal/imageref"
)

// The image-reference grammar validate checks bundles with
// (internal/imageref) is compared here with go-containerregistry's name
// package, which only package image may import.

// benchReferences are references as catalogs hold them: mostly pinned by
// digest, some by tag, a few short names.
var benchReferences = []string{
	"quay.io/openshift-community-operators/etcd@sha256:2b1c4f1c0b5c4c2d7a7a4f5c3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b",
	"registry.redhat.io/rhel8/postgresql-12@sha256:0c9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b2b1c4f1c0b5c4c2d7a7a4f5c3a2b1c",
	"registry.connect.redhat.com/acme/acme-operator-bundle@sha256:5c4d3e2f1a0b9c8d7e6f5a4b2b1c4f1c0b5c4c2d7a7a4f5c3a2b1c0c9e8f7a6b",
	"quay.io/skupper/site-controller:1.5.3",
	"registry.redhat.io/rhel8/postgresql-12:1-59",
	"docker.io/library/busybox:latest",
	"busybox",
	"localhost:5000/a/b/c:v1.2.3",
}

// BenchmarkReferenceGrammar parses the same references with imageref and
// with go-containerregistry's name.ParseReference: imageref stays hand
// written only while it is clearly (more than 20%) faster.
func BenchmarkReferenceGrammar(b *testing.B) {
	for _, p := range []struct {
		name  string
		parse func(string) error
	}{
		{"imageref", func(s string) error { _, err := imageref.Parse(s); return err }},
		{"ggcr-name", func(s string) error { _, err := name.ParseReference(s); return err }},
	} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, s := range benchReferences {
					if err := p.parse(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// FuzzReferenceGrammar: every reference imageref accepts, go-containerregistry
// accepts too and reads the same way (registry, repository, tag, digest).
// imageref is the stricter of the two (distribution's grammar, as opm
// checks), with two known differences: docker reads an upper-case first
// component as a registry name ("Acme/op"), which go-containerregistry
// refuses as an upper-case repository; and distribution's grammar takes any
// hex digits and colons in brackets as an IPv6 registry ("[:0]/a"), where
// go-containerregistry (net/url) wants an IPv6 address.
func FuzzReferenceGrammar(f *testing.F) {
	for _, s := range append(benchReferences, "Acme/op", "[::1]:5000/a:b", "a/b:v1@sha256:"+strings.Repeat("a", 64),
		"a/b@sha512:"+strings.Repeat("b", 128), "index.docker.io/x", "Quay.IO/a/b:V1", "a:99999/b", "a--b/c__d", "[:0]/0") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ours, err := imageref.Parse(s)
		if err != nil {
			return
		}
		if !strings.ContainsAny(ours.Domain, ".:") && ours.Domain != "localhost" && ours.Domain != "docker.io" {
			return // an upper-case first component
		}
		if host, _, _ := strings.Cut(strings.TrimPrefix(ours.Domain, "["), "]"); strings.HasPrefix(ours.Domain, "[") {
			if _, err := netip.ParseAddr(host); err != nil {
				return // brackets without an IPv6 address
			}
		}
		ref, err := name.ParseReference(s)
		if err != nil {
			t.Fatalf("%q: imageref reads %+v, go-containerregistry refuses it: %v", s, ours, err)
		}
		domain := ours.Domain
		if domain == "docker.io" {
			domain = name.DefaultRegistry
		}
		if got := ref.Context(); got.RegistryStr() != domain || got.RepositoryStr() != ours.Path {
			t.Fatalf("%q: imageref reads %+v, go-containerregistry %s / %s", s, ours, got.RegistryStr(), got.RepositoryStr())
		}
		switch r := ref.(type) {
		case name.Digest:
			if r.DigestStr() != ours.Digest {
				t.Fatalf("%q: digest %q, go-containerregistry %q", s, ours.Digest, r.DigestStr())
			}
		case name.Tag:
			if ours.Digest != "" || r.TagStr() != cmp.Or(ours.Tag, "latest") {
				t.Fatalf("%q: imageref reads %+v, go-containerregistry tag %q", s, ours, r.TagStr())
			}
		}
	})
}
