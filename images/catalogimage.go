package images

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
)

// Rule ids of the catalog-image lint.
const (
	RuleImageConfigs   = "catalog-image-configs"
	RuleImageLayout    = "catalog-image-layout"
	RuleImagePlatforms = "catalog-image-platforms"
	RuleImageCache     = "catalog-image-cache"
)

// CatalogImageRules describes the catalog-image lint's findings.
func CatalogImageRules() []validate.Rule {
	return []validate.Rule{
		{ID: RuleImageConfigs, Severity: declcfg.SeverityError, Summary: "The configs label of a catalog image does not lead to its catalog",
			Help: "LABEL operators.operatorframework.io.index.configs.v1=/configs, the directory the catalog is copied to and that the image serves."},
		{ID: RuleImageLayout, Severity: declcfg.SeverityError, Summary: "A catalog image's configs are not one non-empty folder per package",
			Help: "Keep each package's blobs in a folder of its own under the configs directory (configs/PACKAGE/catalog.json), as opm and the pipelines lay them out."},
		{ID: RuleImagePlatforms, Severity: declcfg.SeverityError, Summary: "A catalog image index without usable platforms",
			Help: "Each entry of a catalog image index names its platform (os/arch), once, and holds the same catalog: build every platform's image from the same configs with the same labels."},
		{ID: RuleImageCache, Severity: declcfg.SeverityError, Summary: "A serve cache in a catalog image that does not match its configs",
			Help: "Rebuild the cache after the configs are in place, in the image build: RUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"] (fbc generate dockerfile writes it), or serve without the stale cache (--cache-enforce-integrity=false rebuilds it at every start)."},
	}
}

// serveCommand is what an image's entrypoint and command say about opm
// serve.
type serveCommand struct {
	serves    bool
	dir       string // the directory served
	cacheDir  string
	cacheOnly bool
	enforce   bool // --cache-enforce-integrity, explicit or by default
}

// parseServe reads `opm serve DIR [--cache-dir X] [--cache-only]
// [--cache-enforce-integrity[=B]]` out of a command line.
func parseServe(cmd []string) serveCommand {
	var sc serveCommand
	i := slices.Index(cmd, "serve")
	if i < 0 {
		return sc
	}
	sc.serves = true
	enforce := ""
	args := cmd[i+1:]
	for j := 0; j < len(args); j++ {
		a := args[j]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			if sc.dir == "" {
				sc.dir = a
			}
		case name == "cache-dir":
			if !hasValue && j+1 < len(args) {
				j++
				value = args[j]
			}
			sc.cacheDir = value
		case name == "cache-only":
			sc.cacheOnly = !hasValue || value == "true"
		case name == "cache-enforce-integrity":
			enforce = "true"
			if hasValue {
				enforce = value
			}
		case name == "port" || name == "p" || name == "termination-log" || name == "t" || name == "pprof-addr":
			if !hasValue {
				j++
			}
		}
	}
	switch enforce {
	case "":
		sc.enforce = sc.cacheDir != "" && !sc.cacheOnly
	default:
		sc.enforce = enforce == "true" || enforce == "1"
	}
	return sc
}

// LintCatalogImage checks a built catalog image the way Konflux's and the
// operator pipelines' checks look at one, on its manifests, config and the
// files under its configs and cache directories (read in memory, never
// written to disk): the configs label and that it leads to the catalog the
// image serves; one non-empty folder per package; an index whose entries
// name their platforms and carry the same catalog label; and a serve cache
// (opm serve --cache-dir) that matches the configs, as opm serve demands
// before it answers.
func LintCatalogImage(ctx context.Context, c *image.Client, ref string) ([]declcfg.Finding, error) {
	img, err := c.Open(ctx, ref)
	if err != nil {
		return nil, err
	}
	where := func(p string) declcfg.Pos {
		if p == "" {
			// The image itself: its reference, pinned to what was read.
			return declcfg.Pos{File: strings.TrimSuffix(render.InImage(ref, img.Digest(), ""), ":")}
		}
		return declcfg.Pos{File: render.InImage(ref, img.Digest(), p)}
	}
	var out []declcfg.Finding
	report := func(pos declcfg.Pos, rule string, sev declcfg.Severity, format string, args ...any) {
		out = append(out, declcfg.Finding{Rule: rule, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...)})
	}
	out = append(out, lintPlatforms(ctx, c, ref, img, where(""))...)

	label := img.Labels()[image.LabelCatalogConfigs]
	configs := strings.Trim(path.Clean("/"+strings.TrimSpace(label)), "/")
	if label == "" || configs == "" {
		report(where(""), RuleImageConfigs, declcfg.SeverityError, "no %s label: OLM and opm find a catalog image's catalog through it", image.LabelCatalogConfigs)
		return out, nil
	}
	sc := parseServe(img.Command())
	if sc.serves && sc.dir != "" && strings.Trim(path.Clean("/"+sc.dir), "/") != configs {
		report(where(""), RuleImageConfigs, declcfg.SeverityError, "the image serves %s (its command: %s), but its %s label says the catalog is in /%s",
			sc.dir, strings.Join(img.Command(), " "), image.LabelCatalogConfigs, configs)
	}
	prefixes := []string{configs}
	cacheDir := ""
	if sc.cacheDir != "" {
		cacheDir = strings.Trim(path.Clean("/"+sc.cacheDir), "/")
		if cacheDir != "" && cacheDir != configs && !strings.HasPrefix(cacheDir, configs+"/") {
			prefixes = append(prefixes, cacheDir)
		}
	}
	files, err := img.ReadFiles(ctx, prefixes, image.Limits{})
	if err != nil {
		return nil, err
	}
	cfs, err := fs.Sub(files, configs)
	if err != nil {
		return nil, err
	}
	if n, _ := countFiles(cfs); n == 0 {
		report(where(configs), RuleImageConfigs, declcfg.SeverityError, "the %s label says the catalog is in /%s, but the image has no files there", image.LabelCatalogConfigs, configs)
		return out, nil
	}
	layout, err := lintLayout(ctx, cfs, func(p string) declcfg.Pos { return where(path.Join(configs, p)) })
	if err != nil {
		return nil, err
	}
	out = append(out, layout...)
	if cacheDir != "" && sc.serves {
		cache, err := fs.Sub(files, cacheDir)
		if err != nil {
			return nil, err
		}
		d, err := lintCache(ctx, cfs, cache, sc, configs, cacheDir, where(cacheDir))
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	return out, nil
}

// countFiles counts the regular files under fsys.
func countFiles(fsys fs.FS) (int, error) {
	n := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n, err
}

// lintLayout checks one non-empty folder per package: the blobs of each
// top-level folder name one package, each package is in one folder, no
// folder is empty, and blobs at the root are named.
func lintLayout(ctx context.Context, cfs fs.FS, where func(string) declcfg.Pos) ([]declcfg.Finding, error) {
	var out []declcfg.Finding
	folders := map[string]map[string]bool{}  // folder -> packages
	packages := map[string]map[string]bool{} // package -> folders
	var atRoot []string
	entries, err := fs.ReadDir(cfs, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			folders[e.Name()] = map[string]bool{}
		}
	}
	err = declcfg.WalkFS(ctx, cfs, "", declcfg.WalkOptions{}, func(f *declcfg.File) error {
		top, _, inFolder := strings.Cut(f.Path, "/")
		for _, d := range f.Docs {
			schema := strValue(foldField(d.Node, "schema"))
			pkg := strValue(field(d.Node, "package"))
			if schema == declcfg.SchemaPackage {
				pkg = strValue(field(d.Node, "name"))
			}
			if pkg == "" {
				continue
			}
			if !inFolder {
				atRoot = append(atRoot, f.Path)
				continue
			}
			folders[top][pkg] = true
			if packages[pkg] == nil {
				packages[pkg] = map[string]bool{}
			}
			packages[pkg][top] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	report := func(p, format string, args ...any) {
		out = append(out, declcfg.Finding{Rule: RuleImageLayout, Severity: declcfg.SeverityError, Pos: where(p), Message: fmt.Sprintf(format, args...)})
	}
	for _, name := range sortedKeys(folders) {
		pkgs := sortedKeys(folders[name])
		switch {
		case len(pkgs) > 1:
			report(name, "folder %s holds blobs of %d packages (%s): each package has a folder of its own", name, len(pkgs), strings.Join(pkgs, ", "))
		case len(pkgs) == 0:
			report(name, "folder %s holds no catalog blobs: an empty folder where a package is expected", name)
		}
	}
	for _, pkg := range sortedKeys(packages) {
		if dirs := sortedKeys(packages[pkg]); len(dirs) > 1 {
			report(dirs[0], "package %s is spread over %d folders (%s): keep it in one", pkg, len(dirs), strings.Join(dirs, ", "))
		}
	}
	for _, p := range slices.Compact(atRoot) {
		report(p, "blobs directly in the configs directory: put each package's blobs in a folder named after it")
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lintPlatforms checks that an index names a platform in each entry, none
// twice, and that every platform's image is a catalog image with the same
// configs label.
func lintPlatforms(ctx context.Context, c *image.Client, ref string, img *image.Image, pos declcfg.Pos) []declcfg.Finding {
	var out []declcfg.Finding
	report := func(sev declcfg.Severity, format string, args ...any) {
		out = append(out, declcfg.Finding{Rule: RuleImagePlatforms, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...)})
	}
	if img.Reference().Kind != image.KindRegistry {
		return nil
	}
	info, err := c.Resolve(ctx, ref, true)
	if err != nil {
		return nil // Open read it: the error would be the same
	}
	if !info.Index {
		// A single image runs on its own platform only; whether that is
		// all its clusters run is not the image's to say.
		return nil
	}
	if len(info.Platforms) == 0 {
		report(declcfg.SeverityError, "an image index without images")
		return out
	}
	seen := map[string]bool{}
	want := img.Labels()[image.LabelCatalogConfigs]
	for i, p := range info.Platforms {
		switch {
		case p == "unknown" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/"):
			report(declcfg.SeverityError, "index entry %s names no platform: a cluster cannot pick it", info.Images[i])
			continue
		case seen[p]:
			report(declcfg.SeverityError, "platform %s appears twice in the index", p)
			continue
		}
		seen[p] = true
		pi, err := c.Open(ctx, imageref.WithDigest(ref, info.Images[i]))
		if err != nil {
			report(declcfg.SeverityError, "the %s image %s cannot be read: %v", p, info.Images[i], err)
			continue
		}
		if got := pi.Labels()[image.LabelCatalogConfigs]; got != want {
			report(declcfg.SeverityError, "the %s image has %s=%q, the image read has %q: every platform must carry the same catalog", p, image.LabelCatalogConfigs, got, want)
		}
	}
	return out
}

// lintCache compares the serve cache in the image with its configs.
func lintCache(ctx context.Context, cfs, cache fs.FS, sc serveCommand, configs, cacheDir string, pos declcfg.Pos) ([]declcfg.Finding, error) {
	st, err := readServeCache(ctx, cfs, cache)
	if err != nil {
		return []declcfg.Finding{{Rule: RuleImageCache, Severity: declcfg.SeverityError, Pos: pos,
			Message: fmt.Sprintf("the serve cache in /%s cannot be read as opm reads it: %v; rebuild it from /%s in the image", cacheDir, err, configs)}}, nil
	}
	rebuild := fmt.Sprintf(`rebuild it after the configs are copied: RUN ["/bin/opm", "serve", "/%s", "--cache-dir=/%s", "--cache-only"]`, configs, cacheDir)
	sev, effect := declcfg.SeverityWarning, "opm serve rebuilds it at every start, which slows the catalog pod down and needs a writable file system"
	if sc.enforce {
		sev, effect = declcfg.SeverityError, "opm serve refuses to start (integrity check failed), and the catalog pod crash-loops"
	}
	d := func(format string, args ...any) []declcfg.Finding {
		return []declcfg.Finding{{Rule: RuleImageCache, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...)}}
	}
	switch st.backend {
	case "":
		if !sc.enforce {
			return nil, nil
		}
		return d("the image serves with --cache-dir=/%s, but holds no cache there: %s; %s", cacheDir, effect, rebuild), nil
	case "unknown":
		return []declcfg.Finding{{Rule: RuleImageCache, Severity: declcfg.SeverityError, Pos: pos,
			Message: fmt.Sprintf("the cache directory /%s holds %s, which no opm cache format is: opm serve refuses it; %s", cacheDir, strings.Join(st.entries, ", "), rebuild)}}, nil
	case "json":
		// The json format hashes a tar of the files; fbc does not
		// recompute it (only opm releases before pogreb.v1 write it).
		return nil, nil
	}
	if st.stored != st.computed {
		return d("the serve cache in /%s was built from other configs than the image's (it records digest %s; the configs and the cache give %s): %s; %s",
			cacheDir, st.stored, st.computed, effect, rebuild), nil
	}
	return nil, nil
}
