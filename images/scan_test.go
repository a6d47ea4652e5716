package images

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// refLines prints refs one a line: position, kind, package/bundle, image.
func refLines(refs []Ref) string {
	var b strings.Builder
	for _, r := range refs {
		via := ""
		if r.Via != "" {
			via = " via " + r.Via
		}
		fmt.Fprintf(&b, "%s %s %s/%s %s%s\n", r.Pos, r.Kind, r.Package, r.Bundle, r.Image, via)
	}
	return b.String()
}

func scanFor(t *testing.T, opts ScanOptions, sources ...string) *Scan {
	t.Helper()
	s, err := ScanSources(context.Background(), sources, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScanBundleDir(t *testing.T) {
	t.Parallel()
	s := scanFor(t, ScanOptions{}, "testdata/bundle")
	csv := "testdata/bundle/manifests/op.clusterserviceversion.yaml"
	want := strings.ReplaceAll(`F:12:21 operator op/op.v1.0.0 quay.io/example/op:v1.0.0
F:17:12 related op/op.v1.0.0 quay.io/example/op:v1.0.0
F:19:12 related op/op.v1.0.0 quay.io/example/proxy@sha256:0000000000000000000000000000000000000000000000000000000000000001
F:20:26 related op/op.v1.0.0 quay.io/example/agent:v2
F:31:24 operator op/op.v1.0.0 quay.io/example/init:latest
F:34:24 operator op/op.v1.0.0 quay.io/example/op:v1.0.0
F:37:26 related op/op.v1.0.0 quay.io/example/agent:v2
F:41:24 operator op/op.v1.0.0 quay.io/example/proxy@sha256:0000000000000000000000000000000000000000000000000000000000000001
`, "F", csv)
	if got := refLines(s.Refs()); got != want {
		t.Errorf("refs:\n%s\nwant:\n%s", got, want)
	}
	b := s.Bundles[0]
	if !b.LabelsKnown || b.Labels["operatorframework.io/arch.arm64"] != "supported" {
		t.Errorf("labels %v", b.Labels)
	}
	// One row per image, of its most specific kind.
	var rows []string
	for _, r := range s.Rows() {
		rows = append(rows, string(r.Kind)+" "+r.Image)
	}
	if got := strings.Join(rows, "\n"); got != `operator quay.io/example/op:v1.0.0
operator quay.io/example/proxy@sha256:0000000000000000000000000000000000000000000000000000000000000001
related quay.io/example/agent:v2
operator quay.io/example/init:latest` {
		t.Errorf("rows:\n%s", got)
	}
}

func TestScanCatalog(t *testing.T) {
	t.Parallel()
	s := scanFor(t, ScanOptions{}, "testdata/catalog.yaml")
	want := `testdata/catalog.yaml:17:8 bundle op/op.v1.0.0 quay.io/example/op-bundle:v1.0.0
testdata/catalog.yaml:29:10 bundle op/op.v1.0.0 quay.io/example/op-bundle:v1.0.0
testdata/catalog.yaml:31:10 operator op/op.v1.0.0 quay.io/example/op:v1.0.0
testdata/catalog.yaml:33:10 related op/op.v1.0.0 quay.io/example/agent@sha256:0000000000000000000000000000000000000000000000000000000000000002
`
	if got := refLines(s.Refs()); got != want {
		t.Errorf("refs:\n%s\nwant:\n%s", got, want)
	}
	if b := s.Bundles[0]; !b.LabelsKnown || len(b.Labels) != 1 {
		t.Errorf("olm.csv.metadata labels: %v", b.Labels)
	}
	if rows := s.Rows(); len(rows) != 3 {
		t.Errorf("the bundle image among the related images is one row with the bundle's: %v", rows)
	}
	// Bundle images only: the others go.
	s = scanFor(t, ScanOptions{BundleImagesOnly: true}, "testdata/catalog.yaml")
	if got := refLines(s.Refs()); strings.Count(got, "\n") != 2 || strings.Contains(got, "agent") {
		t.Errorf("bundle images only:\n%s", got)
	}
}

func TestScanTemplates(t *testing.T) {
	t.Parallel()
	// Files only: stubs are not rendered.
	s := scanFor(t, ScanOptions{Files: true}, "testdata/templates")
	want := `testdata/templates/basic.yaml:14:10 bundle op/ quay.io/example/op-bundle:v1.0.0
testdata/templates/basic.yaml:15:31 bundle op/ quay.io/example/op-bundle:v1.1.0
testdata/templates/semver.yaml:5:12 bundle / quay.io/example/op-bundle:v1.2.0
testdata/templates/semver.yaml:8:12 bundle / quay.io/example/op-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000003
testdata/templates/substitutes.yaml:9:10 bundle op/op.v1.0.0 quay.io/example/op-bundle:v1.0.0
testdata/templates/substitutes.yaml:14:9 bundle op/ quay.io/example/op-bundle:v1.0.0-1
`
	if got := refLines(s.Refs()); got != want {
		t.Errorf("refs:\n%s\nwant:\n%s", got, want)
	}
}

func TestScanErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := dir + "/bad.yaml"
	writeFile(t, bad, "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: [unclosed\n")
	_, err := ScanSources(context.Background(), []string{bad}, ScanOptions{Files: true})
	if err == nil || !strings.Contains(err.Error(), bad+":") {
		t.Errorf("syntax error: %v", err)
	}
	_, err = ScanSources(context.Background(), []string{dir + "/nosuch"}, ScanOptions{Files: true})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing path: %v", err)
	}
	_, err = ScanSources(context.Background(), []string{"quay.io/example/op-bundle:v1"}, ScanOptions{Files: true})
	if err == nil || !strings.Contains(err.Error(), "only files") {
		t.Errorf("an image where files are wanted: %v", err)
	}
}
