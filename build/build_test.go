package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/validate"
)

const catalog = `schema: olm.package
name: pkg
defaultChannel: stable
colour: blue
---
schema: olm.channel
name: stable
package: pkg
entries:
  - name: pkg.v1.0.0
---
schema: olm.bundle
name: pkg.v1.0.0
package: pkg
image: quay.io/example/pkg-bundle:v1.0.0
properties:
  - type: olm.package
    value: {packageName: pkg, version: 1.0.0}
`

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRun follows a build through its steps: refusals before the catalog
// is read, then validation, whose result comes to Validated before the
// image is built, and an invalid catalog that is not built.
func TestRun(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	dir := filepath.Join(work, "catalog")
	write(t, dir, "pkg/catalog.yaml", catalog)
	layout := filepath.Join(work, "out", "layout")
	var validated []*validate.Result
	opts := Options{
		Image:     image.BuildOptions{BaseImage: image.Scratch},
		Targets:   image.BuildTargets{Tag: "quay.io/example/catalog:v1", Outputs: []string{"oci:" + layout}},
		Validated: func(r *validate.Result) error { validated = append(validated, r); return nil },
	}
	res, err := Run(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(validated) != 1 || !validated[0].Valid() || len(validated[0].Diagnostics) == 0 {
		t.Fatalf("validated %v, want one valid result with a warning", validated)
	}
	if len(res.Written) != 1 || !strings.HasPrefix(res.Digest, "sha256:") {
		t.Fatalf("result %+v", res)
	}

	// The output is there now: refused before validation.
	validated = nil
	_, err = Run(ctx, dir, opts)
	var out *image.OutputError
	if !errors.As(err, &out) || fault.KindOf(err) != fault.Usage || len(validated) != 0 {
		t.Fatalf("err = %v (validated %d times), want the output refused first", err, len(validated))
	}

	// An invalid catalog: an Input error, nothing built.
	broken := filepath.Join(work, "broken")
	write(t, broken, "catalog.yaml", "schema: olm.package\nname: [not, a, string]\n")
	opts.Targets.Outputs = []string{"oci:" + filepath.Join(work, "out", "broken")}
	_, err = Run(ctx, broken, opts)
	if fault.KindOf(err) != fault.Input || !strings.Contains(err.Error(), "not building an invalid catalog") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "out", "broken")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an invalid catalog was built: %v", err)
	}
	// Unless validation is off.
	opts.NoValidate = true
	if _, err := Run(ctx, broken, opts); err != nil {
		t.Fatal(err)
	}

	// A directory without blobs, validated or not.
	empty := filepath.Join(work, "empty")
	write(t, empty, "README.md", "nothing here\n")
	opts.Targets.Outputs = []string{"oci:" + filepath.Join(work, "out", "empty")}
	var ee *EmptyError
	if _, err := Run(ctx, empty, opts); !errors.As(err, &ee) || fault.KindOf(err) != fault.Run {
		t.Fatalf("err = %v, want an EmptyError", err)
	}
}
