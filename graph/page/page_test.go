package page

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/graph/graphtest"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func load(t *testing.T, path string) (*graph.Catalog, []declcfg.Meta) {
	t.Helper()
	cfg, err := declcfg.Load(context.Background(), []string{path}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return graph.New(cfg, nil), cfg.Others
}

// golden compares the document with testdata/golden/NAME.json (its JSON,
// indented): the data the page embeds, not the page's bytes, so that
// drawing changes leave the goldens alone.
func golden(t *testing.T, name string, doc *Document) {
	t.Helper()
	var got bytes.Buffer
	if err := WriteJSON(&got, doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./graph/page -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s differs from %s (go test ./graph/page -update rewrites it after a check of the diff):\n%s", name, path, firstDiff(got.String(), string(want)))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}

// The demo package (testdata/demo) has every mark the page draws; its
// document is the page's contract with its script. Dependencies are not
// resolved here (the CLI resolves them, as fbc upgrade-path does).
func TestGoldenDemo(t *testing.T) {
	cat, others := load(t, filepath.Join("testdata", "demo"))
	doc, err := Build(context.Background(), cat, Options{Catalog: "demo", Others: others})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "demo", doc)

	p := doc.Packages[1]
	if p.Name != "demo" {
		t.Fatalf("second package is %s, want demo", p.Name)
	}
	// A few facts the golden holds, spelled out.
	byName := map[string]int{}
	for i, b := range p.Bundles {
		byName[b.Name] = i
	}
	if b := p.Bundles[byName["demo.v0.8.0"]]; !b.Missing {
		t.Errorf("demo.v0.8.0, which only an edge names, is not marked missing: %+v", b)
	}
	if b := p.Bundles[byName["demo.v1.2.0"]]; b.Lifecycle != "1.2" {
		t.Errorf("demo.v1.2.0's lifecycle = %q, want 1.2", b.Lifecycle)
	}
	all := p.Views[0]
	if all.Channel != "" || len(all.Nodes) != len(p.Bundles) {
		t.Errorf("the view of every channel has %d of %d nodes", len(all.Nodes), len(p.Bundles))
	}
	var downgrade bool
	for _, e := range p.Views[0].Edges {
		if p.Bundles[e.From].Name == "demo.v2.1.0-rc.1" && p.Bundles[e.To].Name == "demo.v2.0.1" {
			downgrade = e.V1Ignores != ""
		}
	}
	if !downgrade {
		t.Error("the edge from 2.1.0-rc.1 down to 2.0.1 is not marked as one v1 does not take")
	}
	if len(p.Lifecycle) != 2 {
		t.Errorf("lifecycle versions = %d, want 2", len(p.Lifecycle))
	}
}

// Real packages where OLM classic and OLM v1 part ways (docs/upgrades.md).
func TestGoldenCorpus(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	for _, pkg := range []string{"kurrentdb-operator", "visionone-containersecurity"} {
		t.Run(pkg, func(t *testing.T) {
			cat, others := load(t, filepath.Join(corpus, "certified-operators", "catalogs", "v4.18", pkg))
			doc, err := Build(context.Background(), cat, Options{Package: pkg, Catalog: "catalogs/v4.18/" + pkg, Others: others})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, pkg, doc)
			diffs := 0
			for _, v := range doc.Packages[0].Views {
				diffs += len(v.Differences)
			}
			if diffs == 0 {
				t.Errorf("%s: no view shows where classic and v1 differ", pkg)
			}
		})
	}
}

// The page of a change: the two catalogs merged, every node, entry, edge
// and channel the change added or removed marked, the findings by package,
// and the package the change left alone counted, not drawn.
func TestGoldenChange(t *testing.T) {
	oldCat, oldOthers := load(t, filepath.Join("testdata", "change", "old"))
	newCat, newOthers := load(t, filepath.Join("testdata", "change", "new"))
	report, err := graph.DiffWith(oldCat, newCat, graph.DiffOptions{Semantics: []graph.Semantics{graph.Classic, graph.V1}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := BuildDiff(context.Background(), oldCat, newCat, report, DiffOptions{Old: "old", New: "new", OldOthers: oldOthers, NewOthers: newOthers})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "change", doc)
	if doc.Unchanged != 1 || len(doc.Packages) != 1 {
		t.Fatalf("%d packages shown, %d unchanged; want op shown and quiet unchanged", len(doc.Packages), doc.Unchanged)
	}
	p := doc.Packages[0]
	status := map[string]string{}
	for _, b := range p.Bundles {
		status[b.Name] = b.Status
	}
	if status["op.v1.1.0"] != "removed" || status["op.v1.3.0"] != "added" || status["op.v1.0.0"] != "" {
		t.Errorf("bundle statuses = %v", status)
	}
	for _, c := range p.Channels {
		if want := map[string]string{"candidate": "removed", "fast": "added", "stable": ""}[c.Name]; c.Status != want {
			t.Errorf("channel %s status %q, want %q", c.Name, c.Status, want)
		}
	}
	// A cluster still running the removed op.v1.1.0 is simulated in NEW
	// from its old version, as fbc diff simulates it.
	var stable *View
	for _, v := range p.Views {
		if v.Channel == "stable" {
			stable = v
		}
	}
	for i, n := range stable.Nodes {
		if p.Bundles[n].Name == "op.v1.1.0" && stable.V1.Steps[i] == nil {
			t.Error("no v1 step in NEW from the removed op.v1.1.0")
		}
	}
}

// The page holds the script, the style and the data inline and names no
// other resource: no src or href, no url() outside the page, no import.
func TestPageIsSelfContained(t *testing.T) {
	cat, others := load(t, filepath.Join("testdata", "demo"))
	doc, err := Build(context.Background(), cat, Options{Catalog: "demo", Others: others})
	if err != nil {
		t.Fatal(err)
	}
	// A message that tries to end the data's script element stays data
	// (encoding/json writes its < as \u003c).
	doc.Packages[0].Deprecated = `</script><script src="https://example.com/x.js"></script>`
	var out bytes.Buffer
	if err := WriteHTML(&out, doc); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("the page has %d </script>, want 2 (the data's and the script's)", n)
	}
	for _, re := range []string{`(?i)<[^>]*\b(src|href|srcset|action|data)\s*=`, `(?i)url\(\s*['"]?(https?:|//)`, `(?i)@import`, `(?i)<link\b`, `(?i)\bfetch\(|XMLHttpRequest|WebSocket|EventSource|importScripts`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page has %q (%s): it must load nothing", m, re)
		}
	}
	for _, s := range []string{pageCSS, pageJS} {
		if strings.Contains(strings.ToLower(s), "</script") || strings.Contains(strings.ToLower(s), "</style") {
			t.Error("the style or the script holds a closing tag that would end it early")
		}
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// pageSize is the size of the page of a catalog's package ("" for every
// package).
func pageSize(t *testing.T, path, pkg string) int {
	t.Helper()
	cat, others := load(t, path)
	doc, err := Build(context.Background(), cat, Options{Package: pkg, Catalog: path, Others: others})
	if err != nil {
		t.Fatal(err)
	}
	var c countWriter
	if err := WriteHTML(&c, doc); err != nil {
		t.Fatal(err)
	}
	return c.n
}

// The page stays small: under 4 MB for project-quay (152 bundles in 12
// channels, community-operators-prod's v4.18 catalog at the corpus's
// commit; the repository comes from sharedtest.Mirror) and for every
// package of certified-operators v4.18 at once (59 packages, 739 bundles).
func TestPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pages of whole catalogs")
	}
	const limit = 4 << 20
	t.Run("certified-v4.18", func(t *testing.T) {
		n := pageSize(t, filepath.Join(sharedtest.Corpus(t), "certified-operators", "catalogs", "v4.18"), "")
		t.Logf("every package of certified-operators v4.18: %d bytes", n)
		if n > limit {
			t.Errorf("the page is %d bytes, over %d", n, limit)
		}
	})
	t.Run("project-quay", func(t *testing.T) {
		git := sharedtest.Mirror(t, "redhat-openshift-ecosystem/community-operators-prod")
		out, err := exec.Command("git", "--git-dir", git, "show", "699495f2ff526f9679a0d9d54688f09c683eff2c:catalogs/v4.18/project-quay/catalog.yaml").Output()
		if err != nil {
			t.Fatalf("git show: %v", err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "catalog.yaml"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		n := pageSize(t, dir, "project-quay")
		t.Logf("project-quay: %d bytes", n)
		if n > limit {
			t.Errorf("the page is %d bytes, over %d", n, limit)
		}
	})
}

// pathEnds gives, from every bundle and for a fresh install, the end of
// the path r.Path gives: the same upgrades, the same last bundle, the same
// failure. On the demo package (failures, a downgrade, skipped entries),
// a long synthetic channel and the corpus packages of the goldens, under
// both OLMs, with and without a channel.
func TestPathEndsAsPath(t *testing.T) {
	cats := map[string]*graph.Catalog{"long": graph.New(graphtest.SyntheticChannel(200), nil)}
	cats["demo"], _ = load(t, filepath.Join("testdata", "demo"))
	if corpus := sharedtest.Find(); corpus != "" {
		for _, pkg := range []string{"kurrentdb-operator", "visionone-containersecurity"} {
			cats[pkg], _ = load(t, filepath.Join(corpus, "corpus", "certified-operators", "catalogs", "v4.18", pkg))
		}
	}
	for name, cat := range cats {
		for _, p := range cat.Packages {
			for _, ch := range append([]string{""}, p.ChannelNames()...) {
				for _, sem := range []graph.Semantics{graph.Classic, graph.V1} {
					opts := graph.Options{Semantics: sem}
					if ch != "" {
						opts.Channels = []string{ch}
					}
					r, err := graph.NewResolver(p, opts)
					if err != nil {
						t.Fatal(err)
					}
					plain, _ := graph.NewResolver(p, opts)
					r.Remember()
					pe := &pathEnds{r: r, memo: map[string]*pathEnd{}, on: map[string]bool{}}
					froms := []*graph.Installed{nil}
					for _, b := range p.Bundles {
						froms = append(froms, &graph.Installed{Name: b.Name, Version: b.Version})
					}
					for _, from := range froms {
						got, want := pe.walk(from), plain.Path(from)
						wantErr := ""
						if want.Err != nil {
							wantErr = want.Err.Error()
						}
						gotErr := cmp.Or(got.pathErr, got.err)
						if got.moves != len(want.Bundles()) || gotErr != wantErr {
							t.Errorf("%s/%s channel %q %s from %v: %d moves, error %q; Path: %q, error %q", name, p.Name, ch, sem, from, got.moves, gotErr, want.Line(), wantErr)
						}
					}
				}
			}
		}
	}
}
