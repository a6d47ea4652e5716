package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// template-corpus REPO renders every catalog template of a corpus pipeline
// repository (operators/<pkg>/catalog-templates/*.yaml, mapped to OpenShift
// versions by operators/<pkg>/ci.yaml) offline through `fbc template` and
// compares each result with the catalog the pipeline published
// (catalogs/<ocp>/<pkg>/catalog.yaml). It prints one line per (template,
// version) pair; testdata/script/template_corpus.txtar holds the expected
// lines, so a change in what matches is a test failure.
//
// The image map of each pair is generated the way a maintainer would write
// it: a community bundle image quay.io/community-operator-pipeline-prod/
// <pkg>:<version> maps to the bundle directory operators/<pkg>/<version>/;
// an image the template names by digest maps to the directory of the bundle
// the published catalog lists under that image. A bundle the corpus has no
// directory for is mapped to its published olm.bundle blob saved as a file
// (a "stand-in"): the pair still checks the template's channels, edges and
// package blob, and the line counts such bundles, whose properties then match
// by construction.
func init() {
	scriptCmds["template-corpus"] = templateCorpusCmd
}

type corpusPair struct {
	pkg, template, ocp string
	// tmpl and catalog are the template file and the published catalog.
	tmpl, catalog string
}

type ciFile struct {
	FBC struct {
		CatalogMapping []struct {
			TemplateName string   `json:"template_name"`
			CatalogNames []string `json:"catalog_names"`
			Type         string   `json:"type"`
		} `json:"catalog_mapping"`
	} `json:"fbc"`
}

// corpusPairs lists the (template, version) pairs of repo whose published
// catalog is in the corpus, and describes those whose catalog is not: the
// versions the corpus holds are v4.16, v4.18 and v4.22, and of those a few
// catalogs were missing from the source snapshot (MISSING_FROM_SNAPSHOT.tsv).
func corpusPairs(repo string) (pairs []corpusPair, missing []string, err error) {
	if _, err := os.Stat(filepath.Join(repo, "operators")); err != nil {
		return graphPairs(repo)
	}
	snapshotGaps, err := missingFromSnapshot(repo)
	if err != nil {
		return nil, nil, err
	}
	cis, err := filepath.Glob(filepath.Join(repo, "operators", "*", "ci.yaml"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(cis)
	for _, ci := range cis {
		data, err := os.ReadFile(ci)
		if err != nil {
			return nil, nil, err
		}
		var c ciFile
		if err := yaml.Unmarshal(data, &c); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ci, err)
		}
		pkg := filepath.Base(filepath.Dir(ci))
		for _, m := range c.FBC.CatalogMapping {
			for _, ocp := range m.CatalogNames {
				if _, err := os.Stat(filepath.Join(repo, "catalogs", ocp)); err != nil {
					continue // the corpus holds only some OpenShift versions
				}
				rel := filepath.Join("catalogs", ocp, pkg, "catalog.yaml")
				p := corpusPair{pkg: pkg, template: m.TemplateName, ocp: ocp,
					tmpl:    filepath.Join(repo, "operators", pkg, "catalog-templates", m.TemplateName),
					catalog: filepath.Join(repo, rel)}
				if _, err := os.Stat(filepath.Join(repo, rel)); err != nil {
					why := "the snapshot has no catalog of this package for " + ocp
					if snapshotGaps[filepath.ToSlash(rel)] {
						why = "its catalog is listed in MISSING_FROM_SNAPSHOT.tsv"
					}
					missing = append(missing, fmt.Sprintf("%s %s %s: not compared: %s", pkg, ocp, m.TemplateName, why))
					continue
				}
				pairs = append(pairs, p)
			}
		}
	}
	return pairs, missing, nil
}

// graphPairs lists the pairs of a repository laid out like securesign/fbc:
// <ocp>/<pkg>/graph.yaml is a basic template (with inline deprecations)
// and <ocp>/<pkg>/catalog/<pkg>/catalog.json its rendering.
func graphPairs(repo string) (pairs []corpusPair, missing []string, err error) {
	graphs, err := filepath.Glob(filepath.Join(repo, "v*", "*", "graph.yaml"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(graphs)
	snapshotGaps, err := missingFromSnapshot(repo)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range graphs {
		dir := filepath.Dir(g)
		pkg, ocp := filepath.Base(dir), filepath.Base(filepath.Dir(dir))
		rel := filepath.Join(ocp, pkg, "catalog", pkg, "catalog.json")
		if _, err := os.Stat(filepath.Join(repo, rel)); err != nil {
			why := "the snapshot has no catalog of this package for " + ocp
			if snapshotGaps[filepath.ToSlash(rel)] {
				why = "its catalog is listed in MISSING_FROM_SNAPSHOT.tsv"
			}
			missing = append(missing, fmt.Sprintf("%s %s graph.yaml: not compared: %s", pkg, ocp, why))
			continue
		}
		pairs = append(pairs, corpusPair{pkg: pkg, template: "graph.yaml", ocp: ocp, tmpl: g, catalog: filepath.Join(repo, rel)})
	}
	return pairs, missing, nil
}

// missingFromSnapshot reads which files of repo the corpus snapshot lacks
// (MISSING_FROM_SNAPSHOT.tsv: source and path, tab-separated).
func missingFromSnapshot(repo string) (map[string]bool, error) {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(repo), "MISSING_FROM_SNAPSHOT.tsv"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if src, path, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok && src == filepath.Base(repo) {
			out[path] = true
		}
	}
	return out, nil
}

// migrateLevel is what the pipelines use: catalogs for OpenShift 4.17 and
// later carry olm.csv.metadata instead of olm.bundle.object. No ci.yaml in
// the corpus sets a level of its own (their fbc keys are enabled,
// catalog_mapping and version_promotion_strategy), so the version decides.
func migrateLevel(ocp string) string {
	var major, minor int
	fmt.Sscanf(ocp, "v%d.%d", &major, &minor)
	if major > 4 || major == 4 && minor >= 17 {
		return "bundle-object-to-csv-metadata"
	}
	return "none"
}

// bundleDirs maps "<pkg>/<csv name>" to bundle directories, from the
// corpus's BUNDLES.tsv.
func bundleDirs(corpus string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(corpus, "BUNDLES.tsv"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 4 {
			continue
		}
		dir := filepath.Join(filepath.Dir(corpus), f[0]) // paths start with "corpus/"
		out[filepath.Base(filepath.Dir(dir))+"/"+f[3]] = dir
	}
	return out, nil
}

func templateCorpusCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: template-corpus REPO_DIR")
	}
	repo := ts.MkAbs(args[0])
	corpus := filepath.Dir(repo)
	dirs, err := bundleDirs(corpus)
	ts.Check(err)
	pairs, missing, err := corpusPairs(repo)
	ts.Check(err)
	work := ts.MkAbs("corpus-work")
	ts.Check(os.MkdirAll(work, 0o755))
	var matched, allFromDirs, fromDirs, standIns int
	out := ts.Stdout()
	for i, p := range pairs {
		line, ok, nd, ns := runCorpusPair(ts, repo, dirs, filepath.Join(work, fmt.Sprint(i)), p)
		fromDirs += nd
		standIns += ns
		if ok {
			matched++
			if ns == 0 {
				allFromDirs++
			}
		}
		fmt.Fprintln(out, line)
	}
	for _, m := range missing {
		fmt.Fprintln(out, m)
	}
	fmt.Fprintf(out, "%d of %d pairs match and validate (%d of them with every bundle rendered from its directory); bundles rendered from directories: %d; stand-ins: %d\n",
		matched, len(pairs), allFromDirs, fromDirs, standIns)
}

// runCorpusPair renders one pair and describes the outcome in one line.
func runCorpusPair(ts *testscript.TestScript, repo string, dirs map[string]string, work string, p corpusPair) (line string, ok bool, fromDirs, standIns int) {
	ts.Check(os.MkdirAll(work, 0o755))
	head := fmt.Sprintf("%s %s %s", p.pkg, p.ocp, p.template)
	want, err := declcfg.Load(context.Background(), []string{p.catalog}, declcfg.LoadOptions{})
	ts.Check(err)
	tmplPath := p.tmpl
	refs, err := templateRefs(tmplPath)
	if err != nil {
		return fmt.Sprintf("%s: template does not parse: %v", head, err), false, 0, 0
	}
	published := map[string]*declcfg.Bundle{}
	for i := range want.Bundles {
		published[want.Bundles[i].Image] = &want.Bundles[i]
	}
	imageMap := map[string]string{}
	for _, ref := range refs {
		if dir := corpusBundleDir(repo, dirs, p.pkg, ref, published[ref]); dir != "" {
			imageMap[ref] = dir
			fromDirs++
			continue
		}
		b := published[ref]
		if b == nil {
			continue // neither a directory nor a published bundle: fbc reports it
		}
		file := filepath.Join(work, fmt.Sprintf("standin-%d.json", standIns))
		var buf bytes.Buffer
		ts.Check(declcfg.WriteJSON(&declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{*b}}, &buf))
		ts.Check(os.WriteFile(file, buf.Bytes(), 0o644))
		imageMap[ref] = file
		standIns++
	}
	mapData, err := json.MarshalIndent(imageMap, "", "  ")
	ts.Check(err)
	mapFile := filepath.Join(work, "images.json")
	ts.Check(os.WriteFile(mapFile, mapData, 0o644))

	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"template", tmplPath, "--image-map", mapFile, "--offline",
		"--migrate-level", migrateLevel(p.ocp), "--no-validate", "--cache-dir", filepath.Join(work, "cache")}, nil, &stdout, &stderr)
	counts := fmt.Sprintf("(%d from directories, %d stand-ins)", fromDirs, standIns)
	if code != 0 {
		msg := strings.TrimSpace(stderr.String())
		msg = strings.ReplaceAll(msg, repo+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, work+string(filepath.Separator), "")
		return fmt.Sprintf("%s: fbc template exit %d: %s", head, code, firstLine(msg)), false, fromDirs, standIns
	}
	got, err := declcfg.LoadBytes("out.json", stdout.Bytes())
	ts.Check(err)
	// The published catalogs passed opm validate; a rendering that matches
	// must pass fbc's validator too, and one that does not is told apart.
	vr, err := validate.ValidateConfig(context.Background(), got, validate.Options{})
	ts.Check(err)
	if !vr.Valid() {
		counts += " " + invalidSummary(vr)
	}
	diffs := diffCatalogs(want, got)
	if len(diffs) == 0 {
		return fmt.Sprintf("%s: match %s", head, counts), vr.Valid(), fromDirs, standIns
	}
	more := ""
	if len(diffs) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(diffs)-3)
		diffs = diffs[:3]
	}
	return fmt.Sprintf("%s: MISMATCH %s: %s%s", head, counts, strings.Join(diffs, "; "), more), false, fromDirs, standIns
}

// invalidSummary names the error rules a rendering breaks, with counts.
func invalidSummary(vr *validate.Result) string {
	rules := map[string]int{}
	for _, d := range vr.Diagnostics {
		if d.Severity == declcfg.SeverityError {
			rules[d.Rule]++
		}
	}
	var parts []string
	for _, r := range sortedKeys(rules) {
		parts = append(parts, fmt.Sprintf("%s x%d", r, rules[r]))
	}
	return "[fbc validate: " + strings.Join(parts, ", ") + "]"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// templateRefs lists the bundle images a template names, in order.
func templateRefs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var refs []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && strings.EqualFold(k, "image") {
					if !slices.Contains(refs, strings.TrimSpace(s)) {
						refs = append(refs, strings.TrimSpace(s))
					}
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	sort.Strings(refs)
	return refs, nil
}

// corpusBundleDir finds a reference's bundle directory: by the community
// pipeline's tag convention, or by the name of the bundle the catalog
// publishes under that image.
func corpusBundleDir(repo string, dirs map[string]string, pkg, ref string, published *declcfg.Bundle) string {
	const community = "quay.io/community-operator-pipeline-prod/"
	if rest, ok := strings.CutPrefix(ref, community+pkg+":"); ok {
		dir := filepath.Join(repo, "operators", pkg, rest)
		if st, err := os.Stat(filepath.Join(dir, "manifests")); err == nil && st.IsDir() {
			return dir
		}
	}
	if published != nil {
		if dir, ok := dirs[pkg+"/"+published.Name]; ok && strings.HasPrefix(dir, repo) {
			return dir
		}
	}
	return ""
}

// diffCatalogs lists how got differs from want: package blob, channels and
// their entries and edges, the bundle set, and each bundle's image,
// properties and related images.
func diffCatalogs(want, got *declcfg.DeclarativeConfig) []string {
	var d []string
	add := func(format string, args ...any) { d = append(d, fmt.Sprintf(format, args...)) }
	if len(want.Packages) != len(got.Packages) {
		add("%d package blobs, want %d", len(got.Packages), len(want.Packages))
	} else if len(want.Packages) == 1 {
		w, g := want.Packages[0], got.Packages[0]
		if w.Name != g.Name {
			add("package %q, want %q", g.Name, w.Name)
		}
		if w.DefaultChannel != g.DefaultChannel {
			add("defaultChannel %q, want %q", g.DefaultChannel, w.DefaultChannel)
		}
		if w.Description != g.Description {
			add("package description differs (%d bytes, want %d)", len(g.Description), len(w.Description))
		}
		switch {
		case (w.Icon == nil) != (g.Icon == nil):
			add("package icon present: %v, want %v", g.Icon != nil, w.Icon != nil)
		case w.Icon != nil && (w.Icon.MediaType != g.Icon.MediaType || !bytes.Equal(w.Icon.Data, g.Icon.Data)):
			add("package icon differs")
		}
		if !sameProperties(w.Properties, g.Properties) {
			add("package properties differ")
		}
	}
	wc, gc := map[string]declcfg.Channel{}, map[string]declcfg.Channel{}
	for _, c := range want.Channels {
		wc[c.Name] = c
	}
	for _, c := range got.Channels {
		gc[c.Name] = c
	}
	for _, name := range sortedKeys(wc) {
		g, ok := gc[name]
		if !ok {
			add("channel %s missing", name)
			continue
		}
		d = append(d, diffEntries(name, wc[name].Entries, g.Entries)...)
	}
	for _, name := range sortedKeys(gc) {
		if _, ok := wc[name]; !ok {
			add("extra channel %s", name)
		}
	}
	wb, gb := map[string]declcfg.Bundle{}, map[string]declcfg.Bundle{}
	for _, b := range want.Bundles {
		wb[b.Name] = b
	}
	for _, b := range got.Bundles {
		gb[b.Name] = b
	}
	for _, name := range sortedKeys(wb) {
		g, ok := gb[name]
		if !ok {
			add("bundle %s missing", name)
			continue
		}
		w := wb[name]
		if w.Image != g.Image {
			add("bundle %s image %q, want %q", name, g.Image, w.Image)
		}
		if !sameProperties(w.Properties, g.Properties) {
			add("bundle %s properties differ: %s", name, propertyDiff(w.Properties, g.Properties))
		}
		if !slices.EqualFunc(w.RelatedImages, g.RelatedImages, func(a, b declcfg.RelatedImage) bool { return a.Name == b.Name && a.Image == b.Image }) {
			add("bundle %s relatedImages differ", name)
		}
	}
	for _, name := range sortedKeys(gb) {
		if _, ok := wb[name]; !ok {
			add("extra bundle %s", name)
		}
	}
	if len(want.Deprecations) != len(got.Deprecations) {
		add("%d deprecation blobs, want %d", len(got.Deprecations), len(want.Deprecations))
	} else {
		for i := range want.Deprecations {
			if !slices.EqualFunc(want.Deprecations[i].Entries, got.Deprecations[i].Entries, func(a, b declcfg.DeprecationEntry) bool {
				return a.Reference == b.Reference && a.Message == b.Message
			}) {
				add("deprecations differ")
			}
		}
	}
	if len(want.Others) != len(got.Others) {
		add("%d other blobs, want %d", len(got.Others), len(want.Others))
	}
	return d
}

func diffEntries(channel string, want, got []declcfg.ChannelEntry) []string {
	var d []string
	gm := map[string]declcfg.ChannelEntry{}
	for _, e := range got {
		gm[e.Name] = e
	}
	wm := map[string]bool{}
	for _, w := range want {
		wm[w.Name] = true
		g, ok := gm[w.Name]
		switch {
		case !ok:
			d = append(d, fmt.Sprintf("channel %s lacks entry %s", channel, w.Name))
		case w.Replaces != g.Replaces || !slices.Equal(w.Skips, g.Skips) || w.SkipRange != g.SkipRange:
			d = append(d, fmt.Sprintf("channel %s entry %s has %s, want %s", channel, w.Name, edges(g), edges(w)))
		}
	}
	for _, g := range got {
		if !wm[g.Name] {
			d = append(d, fmt.Sprintf("channel %s has extra entry %s", channel, g.Name))
		}
	}
	return d
}

func edges(e declcfg.ChannelEntry) string {
	var parts []string
	if e.Replaces != "" {
		parts = append(parts, "replaces "+e.Replaces)
	}
	if len(e.Skips) > 0 {
		parts = append(parts, "skips ["+strings.Join(e.Skips, " ")+"]")
	}
	if e.SkipRange != "" {
		parts = append(parts, "skipRange "+e.SkipRange)
	}
	if len(parts) == 0 {
		return "no edges"
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// canonicalJSON re-encodes a value with sorted keys, so that key order and
// indentation do not count as differences.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func sameProperties(want, got []declcfg.Property) bool {
	return slices.EqualFunc(want, got, func(a, b declcfg.Property) bool {
		return a.Type == b.Type && canonicalJSON(a.Value) == canonicalJSON(b.Value)
	})
}

// propertyDiff names the first differing property.
func propertyDiff(want, got []declcfg.Property) string {
	for i := range min(len(want), len(got)) {
		if want[i].Type != got[i].Type {
			return fmt.Sprintf("property %d is %s, want %s", i, got[i].Type, want[i].Type)
		}
		if canonicalJSON(want[i].Value) != canonicalJSON(got[i].Value) {
			return fmt.Sprintf("property %d (%s) value differs", i, want[i].Type)
		}
	}
	return fmt.Sprintf("%d properties, want %d", len(got), len(want))
}
