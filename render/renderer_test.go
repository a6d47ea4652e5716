package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/fault"
)

// One Renderer serves calls with different requests; what a request gets
// wrong is a Usage error, what a source holds an Input error, what cannot
// be read a Run error.
func TestRendererKinds(t *testing.T) {
	tmp := t.TempDir()
	bundle := writeBundle(t, tmp, "foo", "1.0.0")
	r := mustNew(t, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		refs []string
		req  Request
		want fault.Kind
	}{
		{"bad template", []string{bundle}, Request{ImageRefTemplate: "{{.Package"}, fault.Usage},
		{"unknown migration level", []string{bundle}, Request{MigrateLevel: "everything"}, fault.Usage},
		{"missing path", []string{filepath.Join(tmp, "nosuch")}, Request{}, fault.Run},
		{"bad catalog", []string{writeFile(t, tmp, "bad.yaml", "schema: olm.package\nname: [x]\n")}, Request{}, fault.Input},
	} {
		_, err := r.Render(ctx, tc.refs, tc.req)
		if err == nil || fault.KindOf(err) != tc.want {
			t.Errorf("%s: err %v of kind %v, want kind %v", tc.name, err, fault.KindOf(err), tc.want)
		}
	}
	if _, err := r.Render(ctx, []string{bundle}, Request{ImageRefTemplate: "quay.io/acme/{{.Package}}:v{{.Version}}"}); err != nil {
		t.Errorf("the Renderer is not spoilt by earlier requests: %v", err)
	}
	if _, err := New(Options{Image: image.Options{UseHTTP: true, SkipTLSVerify: true}}); fault.KindOf(err) != fault.Usage {
		t.Errorf("contradicting image options: %v", err)
	}
}

// RenderEach keeps sources apart and tries every one, even after a
// registry could not be reached.
func TestRenderEach(t *testing.T) {
	tmp := t.TempDir()
	reg := imagetest.NewRegistry(t)
	host := reg.Host
	reg.Server.Close()
	good := writeFile(t, tmp, "good.yaml", "schema: olm.package\nname: foo\n")
	bad := writeFile(t, tmp, "bad.yaml", "schema: olm.package\nname: [x]\n")
	refs := []string{host + "/a:1", good, host + "/b:1", bad}
	r := mustNew(t, Options{Jobs: 1, Image: image.Options{NoCache: true, Retries: -1}})
	got, err := r.RenderEach(context.Background(), refs, Request{Allowed: KindCatalogs})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(refs) {
		t.Fatalf("%d results for %d sources", len(got), len(refs))
	}
	for i, want := range []string{"cannot connect", "", "cannot connect", "must be a string"} {
		res := got[i]
		switch {
		case want == "" && (res.Err != nil || res.Config == nil || len(res.Config.Packages) != 1):
			t.Errorf("%s: %+v", refs[i], res)
		case want != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), want) || res.Config != nil):
			t.Errorf("%s: want an error about %q, got %+v", refs[i], want, res)
		}
	}
	if fault.KindOf(got[0].Err) != fault.Run || fault.KindOf(got[3].Err) != fault.Input {
		t.Errorf("kinds: %v %v", fault.KindOf(got[0].Err), fault.KindOf(got[3].Err))
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Catalog blobs are written as opm render writes them, unless the caller
// passes catalogs through and asks for them as loaded.
func TestCatalogsAsLoaded(t *testing.T) {
	cat := writeFile(t, t.TempDir(), "c.json", `{"schema":"olm.bundle","name":"a.v1","package":"a","image":"r/a:1",
 "properties":[{"type":"olm.bundle.object","value":{"data":"e30="}},{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}],
 "relatedImages":[{"image":"r/z:1"},{"image":"r/a:1"}]}`)
	r := mustNew(t, Options{})
	for _, tc := range []struct {
		asLoaded          bool
		firstProp, firstI string
	}{{false, "olm.package", "r/a:1"}, {true, "olm.bundle.object", "r/z:1"}} {
		cfg, err := r.Render(context.Background(), []string{cat}, Request{CatalogsAsLoaded: tc.asLoaded})
		if err != nil {
			t.Fatal(err)
		}
		b := cfg.Bundles[0]
		if b.Properties[0].Type != tc.firstProp || b.RelatedImages[0].Image != tc.firstI {
			t.Errorf("CatalogsAsLoaded %v: properties start with %s, related images with %s", tc.asLoaded, b.Properties[0].Type, b.RelatedImages[0].Image)
		}
	}
}
