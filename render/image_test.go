package render

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/fault"
)

// writeBundle writes a minimal bundle directory and returns it.
func writeBundle(t testing.TB, root, pkg, version string) string {
	t.Helper()
	dir := filepath.Join(root, pkg, version)
	files := map[string]string{
		"manifests/csv.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: " + pkg + ".v" + version +
			"\nspec:\n  version: " + version + "\n  relatedImages:\n  - name: operand\n    image: quay.io/acme/operand:" + version + "\n",
		"metadata/annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.package.v1: " + pkg +
			"\n  operators.operatorframework.io.bundle.channels.v1: stable\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pushBundle(t testing.TB, reg *imagetest.Registry, dir, repo string) string {
	t.Helper()
	img, err := imagetest.BundleImage(dir, "linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	return reg.Push(t, repo, img)
}

func TestRenderBundleImagesMatchDirectories(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	tmp := t.TempDir()
	var srcs []BundleSource
	var dirs []string
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
		dir := writeBundle(t, tmp, "foo", v)
		dirs = append(dirs, dir)
		srcs = append(srcs, BundleSource{Ref: pushBundle(t, reg, dir, "foo-bundle:v"+v)})
	}
	// A directory rendered under an image reference (an image map).
	srcs = append(srcs, BundleSource{Ref: dirs[0], Image: srcs[0].Ref})
	r := mustNew(t, Options{Image: image.Options{CacheDir: filepath.Join(tmp, "cache")}})
	got, err := r.RenderBundles(context.Background(), srcs, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d bundles", len(got))
	}
	for i, dir := range dirs {
		want, err := mustNew(t, Options{}).RenderBundle(context.Background(), dir, srcs[i].Ref, Request{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], *want) {
			t.Errorf("image %s renders differently from %s:\n%+v\n%+v", srcs[i].Ref, dir, got[i], *want)
		}
	}
	if !reflect.DeepEqual(got[3], got[0]) {
		t.Errorf("directory under the image's reference differs from the image")
	}
}

func TestRenderWarmCacheMakesNoRequest(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	tmp := t.TempDir()
	ref := pushBundle(t, reg, writeBundle(t, tmp, "foo", "1.0.0"), "foo-bundle:v1")
	client, err := image.NewClient(image.Options{CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	img, err := client.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	pinned := strings.Split(ref, ":v1")[0] + "@" + img.Digest()
	r := mustNew(t, Options{Image: image.Options{CacheDir: filepath.Join(tmp, "cache")}})
	first, err := r.Render(context.Background(), []string{pinned}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	reg.Reset()
	again, err := r.Render(context.Background(), []string{pinned}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.Requests()); n != 0 {
		t.Errorf("warm render of %s made %d requests: %v", pinned, n, reg.Requests())
	}
	if !reflect.DeepEqual(first, again) {
		t.Error("the cached render differs")
	}
}

func TestRenderStopsAtUnreachableRegistry(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	host := reg.Host
	reg.Server.Close()
	refs := []string{host + "/a:1", host + "/b:1", host + "/c:1", host + "/d:1"}
	_, err := mustNew(t, Options{Jobs: 1, Image: image.Options{NoCache: true, Retries: -1}}).Render(context.Background(), refs, Request{})
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %v is not Errors", err)
	}
	if len(es) != 1 || !strings.Contains(es[0].Error(), "cannot connect") {
		t.Errorf("want one error about connecting, got %d: %v", len(es), err)
	}
	if fault.KindOf(err) != fault.Run {
		t.Error("an unreachable registry is not the input's fault")
	}
}

func TestRenderImageKinds(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	tmp := t.TempDir()
	bundle := pushBundle(t, reg, writeBundle(t, tmp, "foo", "1.0.0"), "foo-bundle:v1")
	catDir := filepath.Join(tmp, "catalog")
	if err := os.MkdirAll(filepath.Join(catDir, "foo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catDir, "foo", "catalog.json"), []byte(`{"schema":"olm.package","name":"foo","defaultChannel":"stable"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	catImg, err := imagetest.CatalogImage(catDir, "linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	catalog := reg.Push(t, "catalog:1", catImg)
	r := mustNew(t, Options{Image: image.Options{CacheDir: filepath.Join(tmp, "cache")}})

	cfg, err := r.Render(context.Background(), []string{catalog, bundle}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Packages) != 1 || len(cfg.Bundles) != 1 || cfg.Bundles[0].Image != bundle {
		t.Errorf("got %d packages, %d bundles: %+v", len(cfg.Packages), len(cfg.Bundles), cfg)
	}
	if got := cfg.Packages[0].Pos.File; !strings.HasPrefix(got, catalog+"@sha256:") || !strings.HasSuffix(got, ":configs/foo/catalog.json") {
		t.Errorf("catalog blobs are positioned at %q", got)
	}

	// Allowed masks refuse kinds by what the labels say.
	if _, err := r.Render(context.Background(), []string{bundle}, Request{Allowed: KindCatalogs}); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("bundle image with catalogs only: %v", err)
	}
	if _, err := r.RenderBundle(context.Background(), catalog, "", Request{}); err == nil || fault.KindOf(err) != fault.Input {
		t.Errorf("RenderBundle of a catalog image: %v", err)
	}
	// Bundles only: a bundle image renders, a catalog directory does not.
	if _, err := r.RenderBundles(context.Background(), []BundleSource{{Ref: catDir}}, Request{}); err == nil || !strings.Contains(err.Error(), "not a bundle") {
		t.Errorf("RenderBundles of a catalog directory: %v", err)
	}
}

// The labels may move the bundle's directories.
func TestLabelDir(t *testing.T) {
	for in, want := range map[string]string{"": "manifests", "/": "manifests", "manifests/": "manifests", "/deploy/manifests/": "deploy/manifests", "../x": "x"} {
		if got := labelDir(in, "manifests"); got != want {
			t.Errorf("labelDir(%q) = %q, want %q", in, got, want)
		}
	}
}
