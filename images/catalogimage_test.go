package images

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fbc-project/fbc/image/imagetest"
)

const opmCache = "../testdata/image/opmcache"

var serveCached = []string{"serve", "/configs", "--cache-dir=/tmp/cache"}

// catalogLayers makes the layers of a catalog image: configs at /configs,
// and, when cache is set, that cache at /tmp/cache.
func catalogImage(t testing.TB, configs, cache string, cmd []string, platform string, labels map[string]string) v1.Image {
	t.Helper()
	entries := must(imagetest.DirEntries(configs, "configs"))
	if cache != "" {
		entries = append(entries, must(imagetest.DirEntries(cache, "tmp/cache"))...)
	}
	if labels == nil {
		labels = map[string]string{"operators.operatorframework.io.index.configs.v1": "/configs"}
	}
	return must(imagetest.Image(imagetest.Config{Labels: labels, Platform: platform,
		Entrypoint: []string{"/bin/opm"}, Cmd: cmd}, must(imagetest.Layer(entries...))))
}

func lint(t *testing.T, reg *imagetest.Registry, repo string, img any) string {
	t.Helper()
	ref := reg.Push(t, repo, img)
	ds, err := LintCatalogImage(context.Background(), testClient(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s %s: %s\n", d.File, d.Severity, d.Rule, d.Message)
	}
	return strings.ReplaceAll(b.String(), reg.Host, "R")
}

// copyTree copies a directory tree (test data) to a new folder.
func copyTree(t testing.TB, src string) string {
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLintServeCache(t *testing.T) {
	t.Parallel()
	reg := imagetest.NewRegistry(t)
	configs, cache := filepath.Join(opmCache, "configs"), filepath.Join(opmCache, "cache")

	// opm's own cache of these configs matches.
	if got := lint(t, reg, "cat:ok", catalogImage(t, configs, cache, serveCached, "", nil)); got != "" {
		t.Errorf("a matching cache:\n%s", got)
	}

	// Filtered (a package removed), the old cache carried along: stale.
	filtered := copyTree(t, configs)
	if err := os.RemoveAll(filepath.Join(filtered, "other")); err != nil {
		t.Fatal(err)
	}
	got := lint(t, reg, "cat:filtered", catalogImage(t, filtered, cache, serveCached, "", nil))
	if !strings.Contains(got, "error catalog-image-cache: the serve cache in /tmp/cache was built from other configs than the image's (it records digest a5b674b62938ff8a; the configs and the cache give ") ||
		!strings.Contains(got, "opm serve refuses to start (integrity check failed), and the catalog pod crash-loops; rebuild it after the configs are copied: RUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]") {
		t.Errorf("a stale cache:\n%s", got)
	}
	// A byte changed in a value is enough.
	changed := copyTree(t, configs)
	data := must(os.ReadFile(filepath.Join(changed, "op", "catalog.yaml")))
	writeFile(t, filepath.Join(changed, "op", "catalog.yaml"), strings.Replace(string(data), "tests & such", "tests and such", 1))
	if got := lint(t, reg, "cat:changed", catalogImage(t, changed, cache, serveCached, "", nil)); !strings.Contains(got, "error catalog-image-cache") {
		t.Errorf("a changed description:\n%s", got)
	}
	// Not enforced: opm rebuilds it, a warning.
	lax := []string{"serve", "/configs", "--cache-dir", "/tmp/cache", "--cache-enforce-integrity=false"}
	if got := lint(t, reg, "cat:lax", catalogImage(t, filtered, cache, lax, "", nil)); !strings.Contains(got, "warning catalog-image-cache: the serve cache in /tmp/cache was built from other configs") || !strings.Contains(got, "rebuilds it at every start") {
		t.Errorf("not enforced:\n%s", got)
	}
	// Enforced with no cache in the image.
	if got := lint(t, reg, "cat:nocache", catalogImage(t, configs, "", serveCached, "", nil)); !strings.Contains(got, "error catalog-image-cache: the image serves with --cache-dir=/tmp/cache, but holds no cache there") {
		t.Errorf("no cache:\n%s", got)
	}
	// No --cache-dir: nothing to say about a cache.
	if got := lint(t, reg, "cat:plain", catalogImage(t, configs, "", []string{"serve", "/configs"}, "", nil)); strings.Contains(got, "catalog-image-cache") {
		t.Errorf("no cache dir:\n%s", got)
	}
	// A damaged store is named.
	broken := copyTree(t, cache)
	seg := filepath.Join(broken, "pogreb.v1", "db", "00000-1.psg")
	b := must(os.ReadFile(seg))
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lint(t, reg, "cat:broken", catalogImage(t, configs, broken, serveCached, "", nil)); !strings.Contains(got, "cannot be read as opm reads it: reading the cache store pogreb.v1/db: segment 00000-1.psg: offset ") {
		t.Errorf("a damaged store:\n%s", got)
	}
}

func TestLintLayoutAndLabels(t *testing.T) {
	t.Parallel()
	reg := imagetest.NewRegistry(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a/catalog.yaml":  "schema: olm.package\nname: a\n---\nschema: olm.package\nname: b\n",
		"b/more.yaml":     "schema: olm.channel\npackage: b\nname: stable\nentries: []\n",
		"root.yaml":       "schema: olm.package\nname: c\n",
		"empty/README.md": "",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, text)
	}
	if err := os.MkdirAll(filepath.Join(dir, "void"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := lint(t, reg, "cat:layout", catalogImage(t, dir, "", []string{"serve", "/configs"}, "", nil))
	for _, w := range []string{
		"error catalog-image-layout: folder a holds blobs of 2 packages (a, b): each package has a folder of its own",
		"error catalog-image-layout: folder empty holds no catalog blobs",
		"error catalog-image-layout: package b is spread over 2 folders (a, b): keep it in one",
		"error catalog-image-layout: blobs directly in the configs directory",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	// The label leads nowhere; the image serves another directory.
	got = lint(t, reg, "cat:label", catalogImage(t, filepath.Join(opmCache, "configs"), "", []string{"serve", "/catalog"}, "", nil))
	if !strings.Contains(got, "error catalog-image-configs: the image serves /catalog (its command: /bin/opm serve /catalog), but its operators.operatorframework.io.index.configs.v1 label says the catalog is in /configs") {
		t.Errorf("serving another directory:\n%s", got)
	}
	got = lint(t, reg, "cat:nowhere", catalogImage(t, filepath.Join(opmCache, "configs"), "", nil, "",
		map[string]string{"operators.operatorframework.io.index.configs.v1": "/catalog"}))
	if !strings.Contains(got, "R/cat:nowhere@sha256:") || !strings.Contains(got, "error catalog-image-configs: the operators.operatorframework.io.index.configs.v1 label says the catalog is in /catalog, but the image has no files there") {
		t.Errorf("a label leading nowhere:\n%s", got)
	}
}

func TestLintPlatforms(t *testing.T) {
	t.Parallel()
	reg := imagetest.NewRegistry(t)
	configs := filepath.Join(opmCache, "configs")
	amd := catalogImage(t, configs, "", []string{"serve", "/configs"}, "linux/amd64", nil)
	arm := catalogImage(t, configs, "", []string{"serve", "/configs"}, "linux/arm64", nil)
	if got := lint(t, reg, "cat:multi", must(imagetest.Index(amd, arm))); got != "" {
		t.Errorf("a good index:\n%s", got)
	}
	odd := catalogImage(t, configs, "", []string{"serve", "/configs"}, "linux/s390x",
		map[string]string{"operators.operatorframework.io.index.configs.v1": "/other"})
	got := lint(t, reg, "cat:odd", must(imagetest.Index(amd, odd, arm)))
	if !strings.Contains(got, `error catalog-image-platforms: the linux/s390x image has operators.operatorframework.io.index.configs.v1="/other", the image read has "/configs"`) {
		t.Errorf("a platform with another label:\n%s", got)
	}
	if got := lint(t, reg, "cat:twice", must(imagetest.Index(amd, amd))); !strings.Contains(got, "platform linux/amd64 appears twice in the index") {
		t.Errorf("a platform twice:\n%s", got)
	}
}

func TestParseServe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd  string
		want serveCommand
	}{
		{"/bin/opm serve /configs --cache-dir=/tmp/cache", serveCommand{serves: true, dir: "/configs", cacheDir: "/tmp/cache", enforce: true}},
		{"/bin/opm serve /configs --cache-dir /tmp/cache --cache-enforce-integrity=false", serveCommand{serves: true, dir: "/configs", cacheDir: "/tmp/cache"}},
		{"/bin/opm serve -p 50051 /configs --cache-dir=/c --cache-only", serveCommand{serves: true, dir: "/configs", cacheDir: "/c", cacheOnly: true}},
		{"/bin/opm serve /configs --cache-dir=/c --cache-only --cache-enforce-integrity", serveCommand{serves: true, dir: "/configs", cacheDir: "/c", cacheOnly: true, enforce: true}},
		{"/bin/fbc serve /configs", serveCommand{serves: true, dir: "/configs"}},
		{"/bin/sh -c true", serveCommand{}},
	} {
		if got := parseServe(strings.Fields(c.cmd)); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.cmd, got, c.want)
		}
	}
}
