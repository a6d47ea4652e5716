package images

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/imageref"
)

func diagLines(ds []declcfg.Finding) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%d:%d %s %s: %s\n", d.Line, d.Col, d.Severity, d.Rule, d.Message)
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := imagetest.NewRegistry(t)
	R := reg.Host
	amd := must(imagetest.Image(imagetest.Config{Platform: "linux/amd64", Labels: map[string]string{"x": "1"}}))
	arm := must(imagetest.Image(imagetest.Config{Platform: "linux/arm64", Labels: map[string]string{"x": "1"}}))
	s390 := must(imagetest.Image(imagetest.Config{Platform: "linux/s390x", Labels: map[string]string{"x": "1"}}))
	reg.Push(t, "op:multi", must(imagetest.Index(amd, arm, s390)))
	reg.Push(t, "op:amd", amd)
	d := pushAll(t, reg, "op-bundle:v1", "agent:v1")
	multi := must(must(imagetest.Index(amd, arm, s390)).Digest()).String()
	vars := map[string]string{"R": R, "B": d["op-bundle:v1"], "A": d["agent:v1"], "M": multi,
		"GONE": "sha256:" + strings.Repeat("0", 63) + "1"}
	dir := t.TempDir()
	file := filepath.Join(dir, "catalog.yaml")
	writeFile(t, file, expandHost(`schema: olm.bundle
package: op
name: op.v1
image: $R/op-bundle@$B
properties:
- type: olm.csv.metadata
  value:
    labels:
      operatorframework.io/arch.amd64: supported
      operatorframework.io/arch.arm64: supported
relatedImages:
- name: ""
  image: $R/op@$M
- name: agent
  image: $R/agent:v1
- name: gone
  image: $R/gone@$GONE
---
schema: olm.bundle
package: op
name: op.v2
image: $R/op-bundle@$B
properties:
- type: olm.csv.metadata
  value:
    labels:
      operatorframework.io/arch.arm64: supported
relatedImages:
- name: ""
  image: $R/op:amd
- name: agent
  image: $R/agent:v1
- name: elsewhere
  image: quay.io/other/x@$A
`, vars))
	scan := scanFor(t, ScanOptions{}, file)
	reg.Reset()
	// quay.io is not asked: it is not allowed, and not reachable from a
	// test; its answer is not what this test is about.
	res := must(Check(ctx, scan, CheckOptions{Client: testClient(t), AllowRegistries: []string{R}}))
	got := diagLines(res.Diagnostics)
	for _, w := range []string{
		"15:10 error image-unpinned: related image " + R + "/agent:v1 is not pinned by digest (tag \"v1\")",
		"17:10 error image-missing: related image " + R + "/gone@" + vars["GONE"] + " does not exist:",
		"1:1 warning image-platform-label: operator image " + R + "/op@" + multi + " runs on linux/s390x too, but the CSV has no operatorframework.io/arch.s390x label",
		"19:1 warning image-platform-label: operator image " + R + "/op:amd runs on linux/amd64 too, but the CSV has no operatorframework.io/arch.amd64 label",
		"30:10 error image-platform: operator image " + R + "/op:amd does not run on linux/arm64, which the CSV's labels claim (it runs on linux/amd64)",
		"30:10 error image-unpinned: operator image " + R + "/op:amd",
		"34:10 error image-registry: related image quay.io/other/x@" + d["agent:v1"] + " comes from quay.io, which is not an allowed registry",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if strings.Contains(got, "op@"+multi+" does not run") {
		t.Errorf("the index runs on every labelled platform:\n%s", got)
	}
	// Six distinct references; quay.io's could not be asked.
	if res.Asked != 6 || len(res.NotChecked) != 1 || !strings.Contains(res.NotChecked[0].Ref, "quay.io") {
		t.Errorf("asked %d, not checked %v", res.Asked, res.NotChecked)
	}
	// Each asked once: a GET for the operator images, HEADs for the rest
	// (the missing one is asked again with GET for the registry's answer).
	head, get := 0, 0
	for _, r := range reg.Requests() {
		if strings.Contains(r, "/manifests/") {
			if strings.HasPrefix(r, "HEAD") {
				head++
			} else {
				get++
			}
		}
	}
	if head != 3 || get != 3 {
		t.Errorf("%d HEAD and %d GET manifest requests, want 3 and 3 (2 operator images, 1 missing): %v", head, get, reg.Requests())
	}

	// Bundle images only; a second run answers digests from the cache.
	scan = scanFor(t, ScanOptions{BundleImagesOnly: true}, file)
	c := testClient(t)
	must(Check(ctx, scan, CheckOptions{Client: c}))
	reg.Reset()
	res = must(Check(ctx, scan, CheckOptions{Client: c}))
	if res.Asked != 1 || len(res.Diagnostics) != 0 || len(reg.Requests()) != 1 {
		t.Errorf("bundle images only: asked %d, %v, requests %v", res.Asked, res.Diagnostics, reg.Requests())
	}
}

func TestCheckUnreachable(t *testing.T) {
	t.Parallel()
	reg := imagetest.NewRegistry(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: p\nname: p.v%d\nimage: %s/b:v%d\n", i, reg.Host, i)
	}
	writeFile(t, file, b.String())
	scan := scanFor(t, ScanOptions{}, file)
	reg.Server.Close()
	res := must(Check(context.Background(), scan, CheckOptions{Client: testClient(t), Jobs: 1}))
	if len(res.NotChecked) != 20 {
		t.Fatalf("not checked: %d", len(res.NotChecked))
	}
	// The registry is asked once: the others are not tried.
	skipped := 0
	for _, f := range res.NotChecked {
		if strings.Contains(f.Err.Error(), "did not answer earlier") {
			skipped++
		}
	}
	if skipped != 19 {
		t.Errorf("%d skipped after the registry failed, want 19", skipped)
	}
}

func TestRegistryAllowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ref   string
		allow string
		want  bool
	}{
		{"quay.io/org/op@sha256:" + strings.Repeat("a", 64), "quay.io", true},
		{"quay.io/org/op:v1", "quay.io/org", true},
		{"quay.io/org/op:v1", "quay.io/org/op", true},
		{"quay.io/org/op/sub:v1", "quay.io/org/op", true},
		{"quay.io/org/operator:v1", "quay.io/org/op", false},
		{"quay.io/organic/op:v1", "quay.io/org", false},
		{"quay.io/org:v1", "quay.io/org/op", false},
		{"127.0.0.1:5000/test/op@sha256:" + strings.Repeat("a", 64), "127.0.0.1:5000/test/op", true},
		{"127.0.0.1:5000/test/op:v1", "127.0.0.1:5000/test/o", false},
		{"registry.redhat.io/x/y:v1", "quay.io", false},
	} {
		ir, err := imageref.Parse(tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := registryAllowed(ir, normalizeAllowed([]string{tc.allow})); got != tc.want {
			t.Errorf("%s allowed by %s: %v, want %v", tc.ref, tc.allow, got, tc.want)
		}
	}
}
