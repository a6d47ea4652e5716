package render

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// The corpus (../shared/corpus) holds real bundle directories and, in its
// v4.16 catalogs, opm's rendering of many of them (olm.bundle.object form).
// These tests render every such bundle directory and compare with opm's
// result; the v4.18 catalogs do the same for olm.csv.metadata.

func corpusDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Corpus(t)
}

// corpusBundle is a row of BUNDLES.tsv.
type corpusBundle struct {
	Dir     string // absolute
	Repo    string // certified-operators or community-operators-prod
	Package string
	CSVName string
}

func corpusBundles(t testing.TB, corpus string) []corpusBundle {
	t.Helper()
	f, err := os.Open(filepath.Join(corpus, "BUNDLES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusBundle
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		rel := strings.TrimPrefix(cols[0], "corpus/")
		out = append(out, corpusBundle{
			Dir:     filepath.Join(corpus, rel),
			Repo:    strings.SplitN(rel, "/", 2)[0],
			Package: cols[1],
			CSVName: cols[3],
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// catalogBundles loads the bundles of one OpenShift version's catalogs of
// both repositories, keyed by repository and bundle name.
func catalogBundles(t testing.TB, corpus, ocp string) map[string]declcfg.Bundle {
	t.Helper()
	out := map[string]declcfg.Bundle{}
	for _, repo := range []string{"certified-operators", "community-operators-prod"} {
		dir := filepath.Join(corpus, repo, "catalogs", ocp)
		cfg, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
		if err != nil {
			t.Fatalf("loading %s: %v", dir, err)
		}
		for _, b := range cfg.Bundles {
			out[repo+"/"+b.Name] = b
		}
	}
	return out
}

// diffBundle compares fbc's rendering with opm's and describes every
// difference: property order (by type), property values (decoded JSON),
// bundle objects (decoded, and byte for byte) and related images.
func diffBundle(got, want declcfg.Bundle) []string {
	var diffs []string
	types := func(ps []declcfg.Property) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Type
		}
		return out
	}
	if gt, wt := types(got.Properties), types(want.Properties); !slices.Equal(gt, wt) {
		diffs = append(diffs, fmt.Sprintf("property types differ:\n  fbc %v\n  opm %v", gt, wt))
		return diffs
	}
	for i := range got.Properties {
		g, w := got.Properties[i], want.Properties[i]
		if g.Type == declcfg.PropertyBundleObject {
			gd, err1 := declcfg.DecodeBundleObject(g.Value)
			wd, err2 := declcfg.DecodeBundleObject(w.Value)
			if err1 != nil || err2 != nil {
				diffs = append(diffs, fmt.Sprintf("property %d: bad bundle object: %v %v", i, err1, err2))
				continue
			}
			if !jsonEqual(gd, wd) {
				diffs = append(diffs, fmt.Sprintf("property %d: bundle object differs: %s", i, firstDiff(gd, wd)))
			} else if string(gd) != string(wd) {
				diffs = append(diffs, fmt.Sprintf("property %d: bundle object equal as JSON but not byte for byte: %s", i, firstDiff(gd, wd)))
			}
			continue
		}
		if !jsonEqual(g.Value, w.Value) {
			diffs = append(diffs, fmt.Sprintf("property %d (%s) differs:\n  fbc %s\n  opm %s", i, g.Type, clip(g.Value), clip(w.Value)))
		}
	}
	ri := func(rs []declcfg.RelatedImage) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Name + "=" + r.Image
		}
		return out
	}
	if gr, wr := ri(got.RelatedImages), ri(want.RelatedImages); !slices.Equal(gr, wr) {
		diffs = append(diffs, fmt.Sprintf("relatedImages differ:\n  fbc %v\n  opm %v", gr, wr))
	}
	if got.Package != want.Package || got.Name != want.Name || got.Image != want.Image {
		diffs = append(diffs, fmt.Sprintf("identity differs: fbc %s/%s@%s, opm %s/%s@%s", got.Package, got.Name, got.Image, want.Package, want.Name, want.Image))
	}
	return diffs
}

func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(va, vb)
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d: fbc %q / opm %q", i, a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
}

// goldenMismatches lists the corpus bundles whose fbc rendering is known to
// differ from the catalog's, with the reason. Every other bundle must match.
var goldenMismatches = map[string]string{
	"certified-operators/eda-openshift-operator.v5.0.2": "the catalog's relatedImages lack the bundle image, which opm " +
		"always adds for an image-rendered bundle (its siblings v5.0.0 and v5.0.1, rendered from the same basic template, " +
		"have it): the catalog entry was not produced by opm render from this bundle; everything else matches",
}

func TestCorpusGoldenBundleObjects(t *testing.T) {
	matched, compared := compareWithCatalogs(t, "v4.16", declcfg.PropertyBundleObject, Request{}, goldenMismatches)
	t.Logf("v4.16 olm.bundle.object: %d of %d corpus bundle directories with a catalog counterpart match opm exactly", matched, compared)
}

// csvMetadataMismatches lists corpus bundles whose olm.csv.metadata
// rendering is known to differ from the v4.18 catalogs', with the reason.
var csvMetadataMismatches = map[string]string{
	"certified-operators/postgresoperator.v5.2.0": "the published bundle image's CSV is not the directory's: the " +
		"catalog lists 24 related images, the directory's CSV 12, and the extra ones are lowercase aliases (pgadmin, " +
		"postgres_14, ...) and a ...-annotation entry that the certification pipeline injects when it builds the " +
		"image; the properties, olm.csv.metadata included, match",
}

func TestCorpusGoldenCSVMetadata(t *testing.T) {
	matched, compared := compareWithCatalogs(t, "v4.18", declcfg.PropertyCSVMetadata, Request{MigrateLevel: MigrateBundleObjectToMeta}, csvMetadataMismatches)
	t.Logf("v4.18 olm.csv.metadata: %d of %d corpus bundle directories with a catalog counterpart match opm exactly", matched, compared)
}

// compareWithCatalogs renders every corpus bundle directory whose bundle is
// in the ocp catalogs (with a property of type form) under the catalog's
// image, and compares. Bundles in known must differ, the others must match.
func compareWithCatalogs(t *testing.T, ocp, form string, req Request, known map[string]string) (matched, compared int) {
	corpus := corpusDir(t)
	want := catalogBundles(t, corpus, ocp)
	for _, cb := range corpusBundles(t, corpus) {
		golden, ok := want[cb.Repo+"/"+cb.CSVName]
		if !ok || !declcfg.HasProperty(golden.Properties, form) {
			continue
		}
		compared++
		name := cb.Repo + "/" + cb.CSVName
		var warnings []string
		r := mustNew(t, Options{Warn: func(s string) { warnings = append(warnings, s) }})
		got, err := r.RenderBundle(context.Background(), cb.Dir, golden.Image, req)
		var diffs []string
		if err != nil {
			diffs = []string{"render failed: " + err.Error()}
		} else {
			diffs = diffBundle(*got, golden)
		}
		if len(warnings) > 0 {
			t.Errorf("%s: unexpected warnings: %v", name, warnings)
		}
		reason, isKnown := known[name]
		switch {
		case len(diffs) == 0 && isKnown:
			t.Errorf("%s: matches opm now; drop it from the known differences (%s)", name, reason)
		case len(diffs) == 0:
			matched++
		case !isKnown:
			t.Errorf("%s (%s): differs from opm's rendering:\n%s", name, cb.Dir, strings.Join(diffs, "\n"))
		default:
			t.Logf("%s: known difference (%s):\n%s", name, reason, strings.Join(diffs, "\n"))
		}
	}
	if compared < 100 {
		t.Errorf("only %d bundles compared; the corpus should give over 100", compared)
	}
	return matched, compared
}
