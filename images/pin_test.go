package images

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// testClient never reads the user's Docker config or cache and retries
// fast.
func testClient(t testing.TB) *image.Client {
	return must(image.NewClient(image.Options{CacheDir: t.TempDir(), Keychain: authn.NewMultiKeychain(), RetryDelay: time.Millisecond}))
}

// pushAll pushes a small image under each repo:tag and returns their
// digests.
func pushAll(t testing.TB, reg *imagetest.Registry, refs ...string) map[string]string {
	out := map[string]string{}
	for i, ref := range refs {
		img := must(imagetest.Image(imagetest.Config{Labels: map[string]string{"n": ref, "i": string(rune('a' + i))}}))
		reg.Push(t, ref, img)
		out[ref] = must(img.Digest()).String()
	}
	return out
}

func expandHost(s string, vars map[string]string) string {
	return os.Expand(s, func(k string) string { return vars[k] })
}

func headCount(reqs []string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, "HEAD ") && strings.Contains(r, "/manifests/") {
			n++
		}
	}
	return n
}

func TestPin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := imagetest.NewRegistry(t)
	d := pushAll(t, reg, "op-bundle:v1.0.0", "op:v1.0.0", "agent:v2")
	R := reg.Host
	vars := map[string]string{"R": R}
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "basic.yaml")
	writeFile(t, tmpl, expandHost(`# keep this comment
schema: olm.template.basic
entries:
- schema: olm.package
  name: op
- schema: olm.bundle
  image: $R/op-bundle:v1.0.0   # the stub
- {schema: olm.bundle, image: "$R/op-bundle:v1.0.0"}
`, vars))
	cat := filepath.Join(dir, "catalog.json")
	writeFile(t, cat, expandHost(`{"schema":"olm.bundle","package":"op","name":"op.v1.0.0","image":"$R/op-bundle:v1.0.0",
 "relatedImages":[{"name":"agent","image":"$R/agent:v2"},{"name":"","image":"$R/op:v1.0.0"}],
 "properties":[]}
`, vars))
	other := filepath.Join(dir, "other.yaml")
	otherText := expandHost(`schema: olm.template.basic
entries:
- schema: olm.bundle
  image: '$R/op-bundle:v1.0.0'
- schema: olm.bundle
  image: $R/op-bundle:v9.9.9
`, vars)
	writeFile(t, other, otherText)

	scan := scanFor(t, ScanOptions{Files: true}, dir)
	reg.Reset()
	res := must(Pin(ctx, scan, PinOptions{Client: testClient(t)}))

	// Each distinct reference is asked for once: four, one of them missing.
	if n := headCount(reg.Requests()); n != 4 {
		t.Errorf("%d manifest HEAD requests, want 4: %v", n, reg.Requests())
	}
	vars["B"], vars["A"], vars["O"] = d["op-bundle:v1.0.0"], d["agent:v2"], d["op:v1.0.0"]
	if got, want := string(must(os.ReadFile(tmpl))), expandHost(`# keep this comment
schema: olm.template.basic
entries:
- schema: olm.package
  name: op
- schema: olm.bundle
  image: $R/op-bundle@$B   # the stub
- {schema: olm.bundle, image: "$R/op-bundle@$B"}
`, vars); got != want {
		t.Errorf("template:\n%s\nwant:\n%s", got, want)
	}
	if got, want := string(must(os.ReadFile(cat))), expandHost(`{"schema":"olm.bundle","package":"op","name":"op.v1.0.0","image":"$R/op-bundle@$B",
 "relatedImages":[{"name":"agent","image":"$R/agent@$A"},{"name":"","image":"$R/op@$O"}],
 "properties":[]}
`, vars); got != want {
		t.Errorf("catalog:\n%s\nwant:\n%s", got, want)
	}
	// A file with a reference that does not resolve is not written at all.
	if got := string(must(os.ReadFile(other))); got != otherText {
		t.Errorf("a file with an unresolved reference changed:\n%s", got)
	}
	if len(res.Held) != 1 || res.Held[0] != other || len(res.Failures) != 1 {
		t.Fatalf("held %v, failures %v", res.Held, res.Failures)
	}
	f := res.Failures[0]
	if f.Pos.Line != 6 || !strings.Contains(f.Err.Error(), "MANIFEST_UNKNOWN") || res.Unreachable() {
		t.Errorf("failure %s %v (unreachable %v)", f.Pos, f.Err, res.Unreachable())
	}
	if len(res.Written) != 2 || len(res.Changes) != 5 {
		t.Errorf("written %v, %d changes", res.Written, len(res.Changes))
	}

	// Now pinned, nothing is left to change, and nothing is asked.
	writeFile(t, other, "schema: olm.template.basic\nentries: []\n")
	scan = scanFor(t, ScanOptions{Files: true}, dir)
	res = must(Pin(ctx, scan, PinOptions{Check: true}))
	if len(res.Changes) != 0 {
		t.Errorf("check after pinning: %v", res.Changes)
	}
}

func TestPinReadOnlyAndUnreachable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := imagetest.NewRegistry(t)
	pushAll(t, reg, "op-bundle:v1")
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.yaml")
	text := "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: " + reg.Host + "/op-bundle:v1\n"
	writeFile(t, ro, text)
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	res := must(Pin(ctx, scanFor(t, ScanOptions{Files: true}, ro), PinOptions{Client: testClient(t)}))
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), "read-only") || len(res.Written) != 0 {
		t.Errorf("read-only file: %v written %v", res.Errors, res.Written)
	}
	if got := string(must(os.ReadFile(ro))); got != text {
		t.Errorf("read-only file changed")
	}

	// A registry that is down is trouble, not a finding.
	if err := os.Chmod(ro, 0o644); err != nil {
		t.Fatal(err)
	}
	reg.Server.Close()
	res = must(Pin(ctx, scanFor(t, ScanOptions{Files: true}, ro), PinOptions{Client: testClient(t)}))
	if len(res.Failures) != 1 || !res.Unreachable() {
		t.Errorf("registry down: %v", res.Failures)
	}
}

// TestPinMirrors pins through an ImageDigestMirrorSet and an
// ImageTagMirrorSet as a cluster pulls: tags through tag mirrors only,
// the source's name written, and a mirror's name written back as its
// source's.
func TestPinMirrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := imagetest.NewRegistry(t)
	mirror := imagetest.NewRegistry(t)
	// The mirror holds what the source does not (yet).
	d := pushAll(t, mirror, "mirrored/op-bundle:v1", "mirrored/op-bundle:v2", "staging/agent:v3")
	pushAll(t, src, "op-bundle:v1") // another image under the same tag at the source
	vars := map[string]string{"S": src.Host, "M": mirror.Host}
	ms := &MirrorSets{}
	if err := ms.Parse("sets.yaml", []byte(expandHost(`apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
spec:
  imageTagMirrors:
  - source: $S
    mirrors: [$M/mirrored]
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
spec:
  imageDigestMirrors:
  - source: example.com/agent
    mirrors: [$M/staging/agent]
`, vars))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	writeFile(t, file, expandHost(`schema: olm.semver
stable:
  bundles:
  - image: $S/op-bundle:v1
  - image: $S/op-bundle:v2
  - image: $M/staging/agent:v3
`, vars))
	res := must(Pin(ctx, scanFor(t, ScanOptions{Files: true}, file), PinOptions{Client: testClient(t), Mirrors: ms}))
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %v", res.Failures[0].Err)
	}
	vars["D1"], vars["D2"], vars["D3"] = d["mirrored/op-bundle:v1"], d["mirrored/op-bundle:v2"], d["staging/agent:v3"]
	if got, want := string(must(os.ReadFile(file))), expandHost(`schema: olm.semver
stable:
  bundles:
  - image: $S/op-bundle@$D1
  - image: $S/op-bundle@$D2
  - image: example.com/agent@$D3
`, vars); got != want {
		t.Errorf("pinned:\n%s\nwant:\n%s", got, want)
	}
	if c := res.Changes[0]; c.From != mirror.Host+"/mirrored/op-bundle:v1" || c.Reason != "tag" {
		t.Errorf("change %+v", c)
	}
	if c := res.Changes[2]; c.Reason != "tag+mirror" {
		t.Errorf("change %+v", c)
	}
}

func TestPinOffline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := imagetest.NewRegistry(t)
	d := pushAll(t, reg, "op-bundle:v1")
	opts := image.Options{CacheDir: t.TempDir(), Keychain: authn.NewMultiKeychain(), RetryDelay: time.Millisecond}
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	text := "schema: olm.semver\nstable:\n  bundles:\n  - image: " + reg.Host + "/op-bundle:v1\n"
	writeFile(t, file, text)
	opts.Offline = true
	res := must(Pin(ctx, scanFor(t, ScanOptions{Files: true}, file), PinOptions{Client: must(image.NewClient(opts))}))
	var le *LookupError
	if len(res.Failures) != 1 || !errors.As(res.Failures[0].Err, &le) || !le.Offline() || !res.Unreachable() {
		t.Fatalf("offline with an empty cache: %v", res.Failures)
	}
	// Online once records the tag; offline then answers from the cache.
	opts.Offline = false
	must(must(image.NewClient(opts)).Resolve(ctx, reg.Host+"/op-bundle:v1", false))
	reg.Server.Close()
	opts.Offline = true
	res = must(Pin(ctx, scanFor(t, ScanOptions{Files: true}, file), PinOptions{Client: must(image.NewClient(opts))}))
	if len(res.Failures) != 0 || !strings.Contains(string(must(os.ReadFile(file))), "@"+d["op-bundle:v1"]) {
		t.Errorf("offline from the cache: %v", res.Failures)
	}
}

var _ = v1.Hash{}
