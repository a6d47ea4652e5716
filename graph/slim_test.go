package graph

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// loadSlim loads a catalog as fbc diff does: values ReadsValue does not
// name left unencoded, each file's part slimmed.
func loadSlim(t *testing.T, dir string) *Catalog {
	t.Helper()
	cfg := &declcfg.DeclarativeConfig{}
	err := declcfg.LoadEach(context.Background(), []string{dir}, declcfg.LoadOptions{Decode: declcfg.DecodeOptions{Values: ReadsValue}},
		func(part *declcfg.DeclarativeConfig) error {
			Slim(part)
			cfg.Merge(part)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, nil)
}

func loadFull(t *testing.T, dir string) *Catalog {
	t.Helper()
	cfg, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, nil)
}

// TestSlimDiffsAlike: what Slim drops is nothing the simulations read. On
// real catalog changes (one OpenShift release to the next), the diff of
// slimmed catalogs is the diff of whole ones, word for word, and so are
// the pictures.
func TestSlimDiffsAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("reads whole corpus catalogs")
	}
	corpus := sharedtest.Corpus(t)
	for _, pair := range [][2]string{
		{"community-operators-prod/catalogs/v4.16", "community-operators-prod/catalogs/v4.18"},
		{"certified-operators/catalogs/v4.18", "certified-operators/catalogs/v4.22"},
	} {
		t.Run(pair[0]+"->"+filepath.Base(pair[1]), func(t *testing.T) {
			oldDir, newDir := filepath.Join(corpus, pair[0]), filepath.Join(corpus, pair[1])
			report := func(o, n *Catalog) string {
				d, err := DiffWith(o, n, DiffOptions{Semantics: []Semantics{Classic, V1}})
				if err != nil {
					t.Fatal(err)
				}
				d.All = true
				var b bytes.Buffer
				if err := d.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			fullOld, fullNew := loadFull(t, oldDir), loadFull(t, newDir)
			slimOld, slimNew := loadSlim(t, oldDir), loadSlim(t, newDir)
			want, got := report(fullOld, fullNew), report(slimOld, slimNew)
			if got != want {
				t.Errorf("slimmed catalogs diff differently:\n%s\nwhole:\n%s", got, want)
			}
			if len(want) < 1000 {
				t.Errorf("the change is too small to tell anything: %s", want)
			}
			picture := func(c *Catalog) string {
				pic, err := Draw(c, PictureOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := pic.WriteMermaid(&b); err != nil {
					t.Fatal(err)
				}
				if err := pic.WriteJSON(&b, c); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			if picture(slimNew) != picture(fullNew) {
				t.Errorf("the slimmed catalog %s draws differently", pair[1])
			}
		})
	}
}
