package images

import (
	"strings"
	"testing"
)

const dg = "@sha256:0000000000000000000000000000000000000000000000000000000000000009"

func mirrorSets(t *testing.T, docs string) *MirrorSets {
	t.Helper()
	ms := &MirrorSets{}
	if err := ms.Parse("sets.yaml", []byte(docs)); err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestMirrorPulls(t *testing.T) {
	t.Parallel()
	ms := mirrorSets(t, `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
spec:
  imageDigestMirrors:
  - source: registry.redhat.io/product
    mirrors: [mirror.local/product, backup.local/p]
  - source: registry.redhat.io/product/special
    mirrors: [special.local/s]
    mirrorSourcePolicy: NeverContactSource
  - source: "*.example.com"
    mirrors: [wild.local/ex]
---
apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
spec:
  repositoryDigestMirrors:
  - source: registry.redhat.io/product
    mirrors: [backup.local/p, icsp.local/p]
---
kind: List
items:
- apiVersion: config.openshift.io/v1
  kind: ImageTagMirrorSet
  spec:
    imageTagMirrors:
    - source: registry.redhat.io/product
      mirrors: [tags.local/product]
    - source: docker.io/library
      mirrors: [hub.local/lib]
`)
	for _, c := range []struct{ ref, want string }{
		// digest mirrors, merged across documents in order, then the source
		{"registry.redhat.io/product/op" + dg, "mirror.local/product/op" + dg + " backup.local/p/op" + dg + " icsp.local/p/op" + dg + " registry.redhat.io/product/op" + dg},
		// tags use tag mirrors only
		{"registry.redhat.io/product/op:v1", "tags.local/product/op:v1 registry.redhat.io/product/op:v1"},
		// the longest source wins, and may forbid the source
		{"registry.redhat.io/product/special/x" + dg, "special.local/s/x" + dg},
		// a longer source without tag mirrors: the tag comes from the source
		{"registry.redhat.io/product/special/x:v1", "registry.redhat.io/product/special/x:v1"},
		// a repository that merely starts like the source is not under it
		{"registry.redhat.io/productivity/x" + dg, "registry.redhat.io/productivity/x" + dg},
		// *.domain replaces the host
		{"a.example.com/ns/x" + dg, "wild.local/ex/ns/x" + dg + " a.example.com/ns/x" + dg},
		{"example.com/ns/x" + dg, "example.com/ns/x" + dg},
		// docker.io's defaults apply before matching
		{"busybox:1", "hub.local/lib/busybox:1 busybox:1"},
		// no rule
		{"quay.io/x/y:1", "quay.io/x/y:1"},
	} {
		if got := strings.Join(ms.Pulls(c.ref), " "); got != c.want {
			t.Errorf("Pulls(%s):\n got %s\nwant %s", c.ref, got, c.want)
		}
	}
	for _, c := range []struct{ ref, want string }{
		{"mirror.local/product/op" + dg, "registry.redhat.io/product/op" + dg},
		{"tags.local/product/op:v1", "registry.redhat.io/product/op:v1"},
		{"special.local/s/x:v1" + dg, "registry.redhat.io/product/special/x:v1" + dg},
		{"wild.local/ex/x" + dg, ""},               // a *.domain rule's host cannot be recovered
		{"registry.redhat.io/product/op" + dg, ""}, // a source
		{"mirror.local/productive/op" + dg, ""},    // not under the mirror
		{"backup.local/p/deep/op:1", "registry.redhat.io/product/deep/op:1"},
	} {
		got, ok := ms.SourceOf(c.ref)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("SourceOf(%s) = %q, %v; want %q", c.ref, got, ok, c.want)
		}
	}
}

func TestMirrorSetErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"", "sets.yaml: no documents"},
		{"# only a comment\n", "no documents"},
		{"kind: Deployment\nspec: {}\n", "sets.yaml:1:7: not a mirror set: kind Deployment (want ImageDigestMirrorSet, ImageTagMirrorSet or ImageContentSourcePolicy)"},
		{"schema: olm.package\nname: x\n", "sets.yaml:1:1: not a mirror set: the document has no kind"},
		{"- a\n- b\n", "sets.yaml:1:1: not a mirror set: want ImageDigestMirrorSet"},
		{"kind: ImageDigestMirrorSet\n", "sets.yaml:1:1: ImageDigestMirrorSet without a spec"},
		{"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - mirrors: [a.b/c]\n", "sets.yaml:4:5: ImageDigestMirrorSet entry without a source"},
		{"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - source: https://quay.io/x\n", "sets.yaml:4:13: source \"https://quay.io/x\" is not"},
		{"kind: ImageTagMirrorSet\nspec:\n  imageTagMirrors:\n  - source: quay.io/x\n    mirrors: [\"*.local\"]\n", "sets.yaml:5:15: mirror \"*.local\" is not"},
		{"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrorSourcePolicy: Never\n", "sets.yaml:5:25: mirrorSourcePolicy \"Never\""},
		{"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrorSourcePolicy: NeverContactSource\n", "needs mirrors"},
		{"kind: ImageContentSourcePolicy\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.io/x]\n    mirrorSourcePolicy: NeverContactSource\n", "ImageContentSourcePolicy has no mirrorSourcePolicy"},
		{"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors: {source: x}\n", "sets.yaml:3:23: spec.imageDigestMirrors must be a list"},
		{"kind: List\nitems:\n- kind: List\n", "a List inside a List"},
		{"kind: ImageDigestMirrorSet\nspec: [unclosed\n", "sets.yaml:"},
	} {
		err := (&MirrorSets{}).Parse("sets.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
		}
	}
}
