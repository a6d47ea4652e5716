package olmv1

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/render"
)

// vector is one scenario of ../shared/vectors/olmv1-resolve.json (its
// _about says how to read them): verified against operator-controller's
// own resolver and its ClusterExtension CRD.
type vector struct {
	Name   string `json:"name"`
	Inputs struct {
		Catalogs []struct {
			Name             string            `json:"name"`
			Priority         int32             `json:"priority"`
			Labels           map[string]string `json:"labels"`
			AvailabilityMode string            `json:"availabilityMode"`
			Serving          *bool             `json:"serving"`
			FBC              []struct {
				Root string `json:"root"`
				Path string `json:"path"`
			} `json:"fbc"`
			Blobs []json.RawMessage `json:"blobs"`
		} `json:"catalogs"`
		Extension    map[string]any   `json:"extension"`
		Installed    *InstalledBundle `json:"installed"`
		FeatureGates map[string]bool  `json:"featureGates"`
	} `json:"inputs"`
	Expect struct {
		Bundle  string `json:"bundle"`
		Version string `json:"version"`
		Catalog string `json:"catalog"`
		Image   string `json:"image"`
		Error   string `json:"error"`
	} `json:"expect"`
	Admission struct {
		Allowed bool     `json:"allowed"`
		Errors  []string `json:"errors"`
	} `json:"expect_admission"`
	Deprecation json.RawMessage `json:"expect_deprecation"`
}

type deprecationJSON struct {
	Catalog string             `json:"catalog"`
	Entries []DeprecationEntry `json:"entries"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	data := sharedtest.ReadVector(t, "olmv1-resolve.json")
	var file struct {
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Vectors
}

// corpusCatalogs renders each corpus catalog the vectors name once, kept
// to the packages they resolve.
type corpusCatalogs struct {
	once    sync.Once
	configs map[string]*declcfg.DeclarativeConfig
	err     error
}

func (cc *corpusCatalogs) get(t *testing.T, vs []vector, path string) *declcfg.DeclarativeConfig {
	t.Helper()
	cc.once.Do(func() {
		pkgs := map[string]bool{}
		var paths []string
		for _, v := range vs {
			pkgs[v.Inputs.Extension["packageName"].(string)] = true
			for _, c := range v.Inputs.Catalogs {
				for _, f := range c.FBC {
					if !slices.Contains(paths, f.Path) {
						paths = append(paths, f.Path)
					}
				}
			}
		}
		r, err := render.New(render.Options{})
		if err != nil {
			cc.err = err
			return
		}
		srcs := make([]string, len(paths))
		for i, p := range paths {
			srcs[i] = filepath.Join(sharedtest.Corpus(t), p)
		}
		out, err := r.RenderEach(context.Background(), srcs, render.Request{Allowed: render.KindCatalogs, CatalogsAsLoaded: true,
			Part: func(_ int, part *declcfg.DeclarativeConfig) error { keepPackages(part, pkgs); return nil }})
		if err != nil {
			cc.err = err
			return
		}
		cc.configs = map[string]*declcfg.DeclarativeConfig{}
		for i, p := range paths {
			if out[i].Err != nil {
				cc.err = out[i].Err
				return
			}
			cc.configs[p] = out[i].Config
		}
	})
	if cc.err != nil {
		t.Fatal(cc.err)
	}
	return cc.configs[path]
}

// TestVectors resolves every scenario through Resolve, from manifests
// built the way a repository writes them, and compares the bundle (or
// operator-controller's exact error), the API server's admission, and the
// deprecation returned.
func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	var corpus corpusCatalogs
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			req := Request{}
			usesCorpus := false
			for _, c := range v.Inputs.Catalogs {
				usesCorpus = usesCorpus || len(c.FBC) > 0
			}
			if usesCorpus && testing.Short() {
				t.Skip("reads whole corpus catalogs")
			}
			for _, c := range v.Inputs.Catalogs {
				man := map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog",
					"metadata": map[string]any{"name": c.Name, "labels": c.Labels},
					"spec":     map[string]any{"priority": c.Priority, "source": map[string]any{"type": "Image", "image": map[string]any{"ref": "example.com/" + c.Name + ":latest"}}}}
				if c.AvailabilityMode != "" {
					man["spec"].(map[string]any)["availabilityMode"] = c.AvailabilityMode
				}
				if c.Serving != nil && !*c.Serving {
					man["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Serving", "status": "False", "reason": "Unavailable"}}}
				}
				raw, _ := json.Marshal(man)
				cat, err := ParseClusterCatalog(declcfg.Pos{File: "catalogs.yaml", Line: 1, Col: 1}, raw)
				if err != nil {
					t.Fatal(err)
				}
				req.Catalogs = append(req.Catalogs, cat)
				cfg := &declcfg.DeclarativeConfig{}
				for _, f := range c.FBC {
					if f.Root != "corpus" {
						t.Fatalf("unknown root %q", f.Root)
					}
					loaded := corpus.get(t, vs, f.Path)
					cfg.Packages = append(cfg.Packages, loaded.Packages...)
					cfg.Channels = append(cfg.Channels, loaded.Channels...)
					cfg.Bundles = append(cfg.Bundles, loaded.Bundles...)
					cfg.Deprecations = append(cfg.Deprecations, loaded.Deprecations...)
					cfg.Others = append(cfg.Others, loaded.Others...)
				}
				if len(c.Blobs) > 0 {
					var stream []byte
					for _, b := range c.Blobs {
						stream = append(append(stream, b...), '\n')
					}
					blobs, err := declcfg.LoadBytes(c.Name+".json", stream)
					if err != nil {
						t.Fatal(err)
					}
					cfg.Packages = append(cfg.Packages, blobs.Packages...)
					cfg.Channels = append(cfg.Channels, blobs.Channels...)
					cfg.Bundles = append(cfg.Bundles, blobs.Bundles...)
					cfg.Deprecations = append(cfg.Deprecations, blobs.Deprecations...)
					cfg.Others = append(cfg.Others, blobs.Others...)
				}
				req.Contents = append(req.Contents, CatalogContent{Name: c.Name, Source: c.Name, Config: cfg})
			}
			ext := map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
				"metadata": map[string]any{"name": "ext"},
				"spec":     map[string]any{"namespace": "default", "source": map[string]any{"sourceType": "Catalog", "catalog": v.Inputs.Extension}}}
			if in := v.Inputs.Installed; in != nil {
				ext["status"] = map[string]any{"install": map[string]any{"bundle": in}}
			}
			raw, _ := json.Marshal(ext)
			e, err := ParseClusterExtension(declcfg.Pos{File: "ext.yaml", Line: 1, Col: 1}, raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Extensions = []ClusterExtension{e}
			for name, on := range v.Inputs.FeatureGates {
				req.Gates = req.Gates.With(name, on)
			}
			results, err := Resolve(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			res := results[0]

			var gotErrs []string
			for _, ae := range res.Admission.Errors {
				gotErrs = append(gotErrs, ae.Message)
			}
			if res.Admission.Allowed() != v.Admission.Allowed || !slices.Equal(gotErrs, v.Admission.Errors) {
				t.Errorf("admission: allowed %t %q, want %t %q", res.Admission.Allowed(), gotErrs, v.Admission.Allowed, v.Admission.Errors)
			}
			want := v.Expect
			if want.Error != "" {
				if res.Err == nil {
					t.Fatalf("resolved %s, want error %q", res.Bundle.Name, want.Error)
				}
				if res.Err.Error() != want.Error {
					t.Errorf("error\n got %q\nwant %q", res.Err, want.Error)
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("error %q, want %s", res.Err, want.Bundle)
			}
			got := res.Bundle
			if got.Name != want.Bundle || got.Version != want.Version || got.Catalog != want.Catalog || got.Image != want.Image {
				t.Errorf("resolved %s %s from %s (%s), want %s %s from %s (%s)", got.Name, got.Version, got.Catalog, got.Image, want.Bundle, want.Version, want.Catalog, want.Image)
			}
			checkDeprecation(t, v.Deprecation, res.Deprecation)
		})
	}
}

func checkDeprecation(t *testing.T, want json.RawMessage, got *Deprecation) {
	t.Helper()
	var gotJSON *deprecationJSON
	if got != nil {
		gotJSON = &deprecationJSON{Catalog: got.Catalog, Entries: got.Entries}
	}
	var variants []*deprecationJSON
	var od struct {
		OrderDependent bool               `json:"order_dependent"`
		Variants       []*deprecationJSON `json:"variants"`
	}
	if json.Unmarshal(want, &od) == nil && od.OrderDependent {
		variants = od.Variants
	} else {
		var one *deprecationJSON
		if err := json.Unmarshal(want, &one); err != nil {
			t.Fatalf("expect_deprecation: %v", err)
		}
		variants = []*deprecationJSON{one}
	}
	for _, v := range variants {
		if reflect.DeepEqual(v, gotJSON) {
			return
		}
	}
	g, _ := json.Marshal(gotJSON)
	w, _ := json.Marshal(variants)
	t.Errorf("deprecation %s, want one of %s", g, w)
}
