package olmv1

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/render"
)

// BenchmarkCorpus resolves one ClusterExtension (trident-operator, in both
// catalogs) against the certified and community v4.18 catalogs of the
// corpus together, end to end: both catalog directories read through the
// Renderer (kept to the extension's package as they are read), admission,
// the walk, the install check. Load renders the same two directories whole
// in the same run, the cost of reading them at all. The goal is under a
// second per resolution.
//
//	go test ./resolve/olmv1 -run '^$' -bench Corpus -benchmem -benchtime 5x
func BenchmarkCorpus(b *testing.B) {
	corpus := sharedtest.Corpus(b)
	certified := filepath.Join(corpus, "certified-operators", "catalogs", "v4.18")
	community := filepath.Join(corpus, "community-operators-prod", "catalogs", "v4.18")
	cat := func(name string, priority int32) ClusterCatalog {
		raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": name},
			"spec": map[string]any{"priority": priority, "source": map[string]any{"type": "Image", "image": map[string]any{"ref": "example.com/" + name}}}})
		c, err := ParseClusterCatalog(declcfg.Pos{File: "catalogs.yaml", Line: 1}, raw)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	raw := []byte(`{"metadata":{"name":"trident"},"spec":{"namespace":"trident","source":{"sourceType":"Catalog","catalog":{"packageName":"trident-operator"}}}}`)
	ext, err := ParseClusterExtension(declcfg.Pos{File: "trident.yaml", Line: 1}, raw, nil)
	if err != nil {
		b.Fatal(err)
	}
	newRequest := func(b *testing.B) Request {
		r, err := render.New(render.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return Request{
			Catalogs:   []ClusterCatalog{cat("certified-operators", 10), cat("community-operators", 0)},
			Extensions: []ClusterExtension{ext},
			Contents:   []CatalogContent{{Name: "certified-operators", Source: certified}, {Name: "community-operators", Source: community}},
			Renderer:   r,
		}
	}
	b.Run("Resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := Resolve(context.Background(), newRequest(b))
			if err != nil {
				b.Fatal(err)
			}
			if res[0].Bundle == nil || res[0].Bundle.Catalog != "certified-operators" {
				b.Fatalf("resolved %+v, err %v", res[0].Bundle, res[0].Err)
			}
		}
	})
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := render.New(render.Options{})
			if err != nil {
				b.Fatal(err)
			}
			out, err := r.RenderEach(context.Background(), []string{certified, community}, render.Request{Allowed: render.KindCatalogs, CatalogsAsLoaded: true})
			if err != nil || out[0].Err != nil || out[1].Err != nil {
				b.Fatal(err)
			}
		}
	})
}
