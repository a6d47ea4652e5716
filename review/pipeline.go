package review

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
)

// pipelineOf is the pipeline whose rules a review applies: the one asked
// for; else the operator repository's (config.yaml's organization:
// community-operators runs the community pipeline, certified-operators and
// redhat-marketplace the certified one); else Konflux's, for a path in a
// Konflux FBC repository; else none, and every pipeline's rules apply.
func (rv *reviewer) pipelineOf(paths []string, rp *repoRuns) validate.Pipeline {
	if rv.opts.Pipeline != "" {
		return rv.opts.Pipeline
	}
	for _, root := range rp.roots() {
		if cfg := rp.config(root); cfg != nil {
			if pl := organizationPipeline(cfg.Organization); pl != "" {
				return pl
			}
		}
	}
	for _, p := range paths {
		if p != "-" && repo.KonfluxRoot(p) != "" {
			return validate.PipelineKonflux
		}
	}
	return ""
}

// organizationPipeline is the pipeline config.yaml's organization runs.
func organizationPipeline(org string) validate.Pipeline {
	switch org {
	case "community-operators":
		return validate.PipelineCommunity
	case "certified-operators", "redhat-marketplace":
		return validate.PipelineCertified
	}
	return ""
}

// roots are the operator repositories the review reads, each once.
func (rp *repoRuns) roots() []string {
	var out []string
	add := func(root string) {
		if !slices.Contains(out, root) {
			out = append(out, root)
		}
	}
	for _, f := range rp.operators {
		add(f.Operator.Repo.Root)
	}
	for _, r := range rp.runs {
		add(r.root)
	}
	return out
}

// judge applies what the pipeline and the repository say of the findings:
// a rule the pipeline does not run is left out, and so is one whose static
// test config.yaml skips for the operator (tests: ignore_operators); and a
// released bundle's findings from the rules the pipelines apply when a
// bundle is released are warnings, since the bundle cannot change.
func (rv *reviewer) judge(ctx context.Context, res *validate.Result, rules []validate.Rule, pl validate.Pipeline, rp *repoRuns) error {
	byID := map[string]validate.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	rel, err := rv.releasedBundles(ctx, rp)
	if err != nil {
		return err
	}
	kept := res.Diagnostics[:0]
	for _, d := range res.Diagnostics {
		r := byID[d.Rule]
		if !r.RunBy(pl) {
			continue
		}
		at := rp.locate(d.File)
		if test := r.Provenance().Test; test != "" && at.operator != "" && rp.config(at.root).Ignores(test, at.operator) {
			continue
		}
		if d.Severity == declcfg.SeverityError {
			if why := rel.why(d, at); why != "" {
				d.Severity = declcfg.SeverityWarning
				d.Message += " (" + why + ")"
			}
		}
		kept = append(kept, d)
	}
	res.Diagnostics = kept
	return nil
}

// place is where a finding's file sits in an operator repository.
type place struct {
	root, operator string
	// catalog is set for a file of catalogs/<catalog>/<operator>/; bundle
	// for one of operators/<operator>/<bundle>/ (a folder name).
	catalog, bundle string
}

// locate says where file is in the repositories the review reads.
func (rp *repoRuns) locate(file string) place {
	if file == "" || file == "-" {
		return place{}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return place{}
	}
	for _, root := range rp.roots() {
		rel, err := filepath.Rel(root, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		switch {
		case len(parts) >= 3 && parts[0] == repo.OperatorsDir:
			return place{root: root, operator: parts[1], bundle: parts[2]}
		case len(parts) >= 2 && parts[0] == repo.OperatorsDir:
			return place{root: root, operator: parts[1]}
		case len(parts) >= 3 && parts[0] == repo.CatalogsDir:
			return place{root: root, operator: parts[2], catalog: parts[1]}
		}
		return place{root: root}
	}
	return place{}
}

// released is what an operator repository has released: per operator, the
// bundle folders whose bundle a published catalog holds (and the catalogs
// that hold it), or that are older than every bundle the catalogs publish
// (bundles of before the operator's catalogs, which no release will add).
type released struct {
	// folders maps root and operator to its released bundle folders, each
	// to why it counts as released.
	folders map[[2]string]map[string]string
}

// releaseTime reports whether a rule is one the pipelines apply when a
// bundle is released, to the pull request's bundle only: its
// release-config.yaml, the YAML linter, and its content.
func releaseTime(rule string) bool {
	switch rule {
	case validate.RuleRCSchema, validate.RuleRCFBC, validate.RuleRCTemplate, validate.RuleRCSemverChannels,
		validate.RuleRCDefaultChannel, validate.RuleYAMLLint:
		return true
	}
	return bundleContent(rule)
}

// bundleContent reports whether a rule is about a bundle's own content,
// which the pipelines check when the bundle is released: its image
// references and the profiles' checks.
func bundleContent(rule string) bool {
	return rule == validate.RuleImageReference || validate.IsProfileRule(rule)
}

// why says why a finding is only a warning, or "": a release-time finding
// in the folder of a released bundle, and a bundle-content finding about a
// bundle of a published catalog.
func (rel *released) why(d declcfg.Finding, at place) string {
	switch {
	case at.bundle != "" && releaseTime(d.Rule):
		why, ok := rel.folders[[2]string{at.root, at.operator}][at.bundle]
		if !ok {
			return ""
		}
		return "a warning: " + why + "; the pipelines check a bundle in the pull request that releases it, and a released bundle cannot change"
	case at.catalog != "" && d.Bundle != "" && bundleContent(d.Rule):
		return fmt.Sprintf("a warning: bundle %s is released, in catalog %s, and a released bundle cannot change; the pipelines check a bundle in the pull request that releases it", d.Bundle, at.catalog)
	}
	return ""
}

// releasedBundles finds, for each operator folder reviewed, which of its
// bundle folders count as released: their bundle is in a published
// catalog, or is older than every bundle the catalogs publish.
func (rv *reviewer) releasedBundles(ctx context.Context, rp *repoRuns) (*released, error) {
	rel := &released{folders: map[[2]string]map[string]string{}}
	for _, f := range rp.operators {
		op := f.Operator
		from := op.Repo
		if b, ok := rv.publishedRoot[from.Root]; ok {
			from = &repo.Repo{Root: b}
		}
		pub, err := publishedBundles(ctx, from, op.Name)
		if err != nil {
			return nil, err
		}
		if len(pub.catalogs) == 0 {
			continue
		}
		folders := map[string]string{}
		for _, b := range f.Bundles {
			dir := filepath.Join(op.Dir, filepath.Base(b.Dir))
			csv, err := repo.ReadCSV(dir)
			if err != nil || csv.Name == "" {
				continue // the bundle's own checks report it
			}
			v, verr := semver.ParseTolerant(csv.Version)
			switch cats, ok := pub.catalogs[csv.Name]; {
			case ok:
				folders[filepath.Base(dir)] = fmt.Sprintf("bundle %s is released, in catalogs %s", csv.Name, strings.Join(cats, ", "))
			case verr == nil && pub.lowest != nil && v.LT(*pub.lowest):
				folders[filepath.Base(dir)] = fmt.Sprintf("bundle %s (%s) is older than every bundle the operator's catalogs publish (from %s on), and no release adds it to them", csv.Name, v, pub.lowest)
			}
		}
		rel.folders[[2]string{op.Repo.Root, op.Name}] = folders
	}
	return rel, nil
}

// published is what an operator's published catalogs (catalogs/*/<operator>/)
// hold: each bundle name, with the catalogs that hold it in catalog order,
// and the lowest version among them.
type published struct {
	catalogs map[string][]string
	lowest   *semver.Version
}

// publishedBundles reads an operator's published catalogs. A catalog that
// cannot be read is left out (its own checks say why).
func publishedBundles(ctx context.Context, r *repo.Repo, operator string) (*published, error) {
	files, err := r.PackageCatalogs(operator)
	if err != nil {
		return nil, err
	}
	out := &published{catalogs: map[string][]string{}}
	for _, cf := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cfg, err := declcfg.Load(ctx, []string{cf.Path}, declcfg.LoadOptions{Decode: declcfg.DecodeOptions{Values: func(typ string) bool { return typ == declcfg.PropertyPackage }}})
		if err != nil && cfg == nil {
			continue
		}
		for _, b := range cfg.Bundles {
			if !slices.Contains(out.catalogs[b.Name], cf.Catalog) {
				out.catalogs[b.Name] = append(out.catalogs[b.Name], cf.Catalog)
			}
			pps, err := declcfg.PackageProperties(b.Properties)
			if err != nil || len(pps) != 1 {
				continue
			}
			if v, err := semver.Parse(pps[0].Version); err == nil && (out.lowest == nil || v.LT(*out.lowest)) {
				out.lowest = &v
			}
		}
	}
	return out, nil
}
