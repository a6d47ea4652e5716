package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/render"
)

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func bundleFiles(files map[string]string, v string) {
	files["operators/op/"+v+"/manifests/op.clusterserviceversion.yaml"] = fmt.Sprintf(`apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: op.v%s
spec:
  version: %s
  displayName: Op
  description: The example operator.
`, v, v)
	files["operators/op/"+v+"/metadata/annotations.yaml"] = `annotations:
  operators.operatorframework.io.bundle.package.v1: op
  operators.operatorframework.io.bundle.channels.v1: stable
`
}

// TestCatalogsRenderOncePerOptionSet: eight catalogs from two templates
// that name the same three bundle images render in three renders (the
// basic template once without the migration, for v4.15 and v4.16, and
// once with it, for v4.17 to v4.20; the semver template once, for v5.0
// and v5.1), and each bundle image is read once.
func TestCatalogsRenderOncePerOptionSet(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"operators/op/ci.yaml": `fbc:
  enabled: true
  catalog_mapping:
    - template_name: basic.yaml
      type: olm.template.basic
      catalog_names: [v4.15, v4.16, v4.17, v4.18, v4.19, v4.20]
    - template_name: semver.yaml
      type: olm.semver
      catalog_names: [v5.0, v5.1]
`,
		"operators/op/catalog-templates/basic.yaml": `schema: olm.template.basic
entries:
  - {schema: olm.package, name: op, defaultChannel: stable}
  - schema: olm.channel
    package: op
    name: stable
    entries:
      - name: op.v1.0.0
      - {name: op.v1.1.0, replaces: op.v1.0.0}
      - {name: op.v1.2.0, replaces: op.v1.1.0}
  - {schema: olm.bundle, image: "registry.example.com/op-bundle@sha256:1000000000000000000000000000000000000000000000000000000000000000"}
  - {schema: olm.bundle, image: "registry.example.com/op-bundle@sha256:1100000000000000000000000000000000000000000000000000000000000000"}
  - {schema: olm.bundle, image: "registry.example.com/op-bundle@sha256:1200000000000000000000000000000000000000000000000000000000000000"}
`,
		"operators/op/catalog-templates/semver.yaml": `schema: olm.semver
stable:
  bundles:
    - image: "registry.example.com/op-bundle@sha256:1000000000000000000000000000000000000000000000000000000000000000"
    - image: "registry.example.com/op-bundle@sha256:1100000000000000000000000000000000000000000000000000000000000000"
    - image: "registry.example.com/op-bundle@sha256:1200000000000000000000000000000000000000000000000000000000000000"
`,
		"images.yaml": `"registry.example.com/op-bundle@sha256:1000000000000000000000000000000000000000000000000000000000000000": operators/op/1.0.0
"registry.example.com/op-bundle@sha256:1100000000000000000000000000000000000000000000000000000000000000": operators/op/1.1.0
"registry.example.com/op-bundle@sha256:1200000000000000000000000000000000000000000000000000000000000000": operators/op/1.2.0
`,
	}
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
		bundleFiles(files, v)
	}
	writeFiles(t, root, files)
	r, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Catalogs(context.Background(), filepath.Join(root, "operators", "op"), Options{
		ImageMap: filepath.Join(root, "images.yaml"),
		Renderer: r.CacheOnly(),
		Warn:     func(msg string) { t.Errorf("warning: %s", msg) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Templates: 2, Renders: 3, Catalogs: 8, SourcesRead: 3}
	if res.Stats != want {
		t.Errorf("stats %+v, want %+v", res.Stats, want)
	}
	read := func(c string) []byte {
		data, err := os.ReadFile(filepath.Join(root, "catalogs", c, "op", "catalog.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// One render per option set: the catalogs of a set are the same bytes,
	// and the sets differ.
	for _, group := range [][]string{{"v4.15", "v4.16"}, {"v4.17", "v4.18", "v4.19", "v4.20"}, {"v5.0", "v5.1"}} {
		for _, c := range group[1:] {
			if !bytes.Equal(read(group[0]), read(c)) {
				t.Errorf("catalogs %s and %s differ", group[0], c)
			}
		}
	}
	if bytes.Equal(read("v4.16"), read("v4.17")) || !bytes.Contains(read("v4.16"), []byte("olm.bundle.object")) || bytes.Contains(read("v4.17"), []byte("olm.bundle.object")) {
		t.Error("v4.16 must keep olm.bundle.object and v4.17 have olm.csv.metadata instead")
	}

	// Again, with no image map: the images come from the catalogs just
	// written, each catalog file read once, no bundle directory.
	res, err = Catalogs(context.Background(), filepath.Join(root, "operators", "op"), Options{Renderer: r.CacheOnly(), Check: true})
	if err != nil {
		t.Fatal(err)
	}
	want = Stats{Templates: 2, Renders: 3, Catalogs: 8, SourcesRead: 0, CatalogFilesRead: 8}
	if res.Stats != want || len(res.Stale) != 0 {
		t.Errorf("stats %+v (stale %v), want %+v and nothing stale", res.Stats, res.Stale, want)
	}
}

// BenchmarkCatalogs times fbc catalogs on a real package with six
// catalogs: community-operators-prod's coherence-operator at 699495f2ff52
// (the corpus's commit): one basic template mapped to v4.15 to v4.20, seven
// bundles with large CRDs (the v4.15 catalog is 3 MB), so two renders.
// Offline, in check mode (everything but writing the files, so that each
// iteration does the same work):
//   - dirs: the published catalogs removed, so every image renders from
//     its bundle directory (operators/coherence-operator/VERSION), as make
//     catalogs renders every image;
//   - published: the images taken from the published catalogs.
//
// It needs community-operators-prod from the fetch tool (sharedtest.Mirror).
func BenchmarkCatalogs(b *testing.B) {
	const pkg, commit = "coherence-operator", "699495f2ff52"
	git := sharedtest.Mirror(b, "redhat-openshift-ecosystem/community-operators-prod")
	for _, bc := range []struct {
		name      string
		published bool
	}{{"dirs", false}, {"published", true}} {
		b.Run(bc.name, func(b *testing.B) {
			root := b.TempDir()
			sharedtest.CheckoutPackage(b, git, commit, pkg, root)
			if !bc.published {
				if err := os.RemoveAll(filepath.Join(root, "catalogs")); err != nil {
					b.Fatal(err)
				}
			}
			op := filepath.Join(root, "operators", pkg)
			r, err := render.New(render.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Catalogs(context.Background(), op, Options{Renderer: r.CacheOnly(), Check: true})
				if err != nil {
					b.Fatal(err)
				}
				if res.Stats.Catalogs != 6 || res.Stats.Renders != 2 {
					b.Fatalf("%d catalogs in %d renders, want 6 in 2", res.Stats.Catalogs, res.Stats.Renders)
				}
				if bc.published && len(res.Stale) != 0 {
					b.Fatalf("stale: %v", res.Stale)
				}
			}
		})
	}
}
