package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/template"
	"github.com/fbc-project/fbc/validate"
)

// Rule ids of what Inspect finds besides catalog and bundle rules.
const (
	// RuleRepoConfig: ci.yaml, release-config.yaml or config.yaml does not
	// parse, or is not what the pipelines need to read it.
	RuleRepoConfig = repo.RuleConfig
	// RuleTemplateRender: a template ci.yaml maps cannot be rendered.
	RuleTemplateRender = "template-render"
	// RuleCatalogOutOfDate: a catalog is not what its template renders
	// (or ci.yaml no longer maps it).
	RuleCatalogOutOfDate = "catalog-out-of-date"
)

// Rules describes Inspect's rules, for the rule catalogue of reports.
func Rules() []validate.Rule {
	return []validate.Rule{
		{ID: RuleRepoConfig, Severity: declcfg.SeverityError,
			Summary: "An operator repository's ci.yaml, release-config.yaml or config.yaml does not parse, or a value fbc and the pipelines read has the wrong type.",
			Help:    "Fix the file at the reported line: the pipelines stop on it too."},
		{ID: RuleTemplateRender, Severity: declcfg.SeverityError,
			Summary: "A catalog template ci.yaml maps cannot be rendered: it is missing, does not parse, or names a bundle image found nowhere.",
			Help:    "Fix the template, or give the image's bundle (its directory under operators/<package>/VERSION, or --image-map with fbc catalogs)."},
		{ID: RuleCatalogOutOfDate, Severity: declcfg.SeverityWarning,
			Summary: "A catalog under catalogs/ is not what its template renders, is missing, or is no longer mapped by ci.yaml.",
			Help:    "Run fbc catalogs on the operator's folder: it writes every mapped catalog and removes the unmapped ones."},
	}
}

// Inspection is what fbc validate checks of an operator's folder, besides
// the rules of its bundles and catalogs.
type Inspection struct {
	Operator string
	// Bundles are the operator's bundle directories, under the folder as
	// it was named.
	Bundles []string
	// Catalogs are the package's catalog files under catalogs/ that
	// ci.yaml maps, shown from WorkDir.
	Catalogs []PublishedCatalog
	// Notes are one-line hints about folders that are neither bundles nor
	// templates.
	Notes []string
	// Diagnostics are the problems of ci.yaml, release-config.yaml and the
	// templates, and the catalogs that are out of date.
	Diagnostics []declcfg.Finding
}

// PublishedCatalog is a package's catalog file in one catalog.
type PublishedCatalog struct {
	Catalog string
	File    string
}

// Inspect reads an operator's folder as the pipelines do: its bundle
// directories; ci.yaml and every release-config.yaml, which must parse;
// its templates, rendered offline (images from the image cache and the
// repository, never a registry) and compared with the catalogs they are
// mapped to; and those catalogs. Problems in what it reads are
// diagnostics, not errors: only a folder that is no operator's, or a run
// cut short, is an error.
func Inspect(ctx context.Context, dir string, opts Options) (*Inspection, error) {
	op, err := repo.OperatorOf(dir)
	if err != nil {
		return nil, err
	}
	opts.Renderer = opts.Renderer.CacheOnly()
	opts.Check, opts.NoValidate = true, false
	p, err := newRun(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Operator: op.Name}
	ents, err := op.Entries()
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		shown := filepath.Join(dir, e.Name)
		switch e.Kind {
		case repo.BundleDir:
			in.Bundles = append(in.Bundles, shown)
			if rc := repo.ReleaseConfigPath(shown); exists(rc) {
				if _, err := repo.LoadReleaseConfig(shown); err != nil {
					in.addErr(RuleRepoConfig, err, rc)
				}
			}
		case repo.NestedBundle:
			rel, _ := filepath.Rel(e.Path, e.Bundle)
			in.Notes = append(in.Notes, fmt.Sprintf("skipping %s: its bundle is one level down (%s), where the pipelines do not look for it: they read operators/%s/VERSION/ itself; fbc validate %s checks it",
				shown, rel, op.Name, filepath.Join(shown, rel)))
		case repo.OtherDir:
			in.Notes = append(in.Notes, fmt.Sprintf("skipping %s: neither a bundle directory (manifests/ and metadata/) nor %s/", shown, repo.TemplatesDir))
		}
	}
	ci, err := p.readCI()
	var missing *repo.MissingError
	switch {
	case errors.As(err, &missing):
		in.Diagnostics = append(in.Diagnostics, declcfg.Finding{Rule: RuleRepoConfig, Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: missing.Path},
			Message: "the operator has no ci.yaml: the pipelines publish no catalog of it (fbc.catalog_mapping maps templates to catalogs)"})
		return in, nil
	case err != nil:
		in.addErr(RuleRepoConfig, err, p.show(op.CIPath()))
		return in, nil
	}
	if ci.FBC == nil || len(ci.FBC.Mappings) == 0 {
		return in, nil
	}
	if err := in.templates(ctx, p, ci); err != nil {
		return nil, err
	}
	return in, nil
}

// templates renders each mapped template and compares the result with the
// published catalogs.
func (in *Inspection) templates(ctx context.Context, p *run, ci *repo.CI) error {
	jobs, err := p.mappedJobsEach(ci, func(err error, file string) { in.addErr(RuleTemplateRender, err, file) })
	if err != nil {
		return err
	}
	mapped := map[string]bool{}
	for _, j := range jobs {
		for _, c := range j.catalogs {
			mapped[c] = true
		}
		cats, err := p.render(ctx, []job{j})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			in.addErr(RuleTemplateRender, err, p.show(j.path))
			continue
		}
		for _, c := range cats {
			file := p.show(c.path)
			old, err := os.ReadFile(c.path)
			switch {
			case err == nil && bytes.Equal(old, c.data):
				in.Catalogs = append(in.Catalogs, PublishedCatalog{Catalog: c.catalog, File: file})
				continue
			case err == nil:
				in.Catalogs = append(in.Catalogs, PublishedCatalog{Catalog: c.catalog, File: file})
				in.outOfDate(file, fmt.Sprintf("catalog %s is not what %s renders: fbc catalogs %s writes it", c.catalog, p.show(j.path), p.show(p.op.Dir)))
			case errors.Is(err, fs.ErrNotExist):
				in.outOfDate(file, fmt.Sprintf("catalog %s is missing: ci.yaml maps %s to it; fbc catalogs %s writes it", c.catalog, j.name, p.show(p.op.Dir)))
			default:
				in.addErr(RuleTemplateRender, err, file)
				continue
			}
			// What would be published is checked too, at the template.
			if err := p.validate(ctx, []rendered{c}); err != nil {
				var invalid *InvalidError
				if !errors.As(err, &invalid) {
					return err
				}
			}
		}
	}
	// The renders of one template for several catalogs mostly share their
	// problems: each is reported once.
	seen := map[declcfg.Finding]bool{}
	for _, rep := range p.res.Reports {
		for _, d := range rep.Result.Diagnostics {
			if d.File == rep.File {
				d.Message += fmt.Sprintf(" (in catalog %s as its template renders it)", rep.Catalog)
			}
			if !seen[d] {
				seen[d] = true
				in.Diagnostics = append(in.Diagnostics, d)
			}
		}
	}
	published, err := p.op.Repo.PackageCatalogs(p.op.Name)
	if err != nil {
		return err
	}
	for _, c := range published {
		if !mapped[c.Catalog] {
			in.outOfDate(p.show(c.Path), fmt.Sprintf("ci.yaml does not map catalog %s: fbc catalogs %s removes it", c.Catalog, p.show(p.op.Dir)))
		}
	}
	return nil
}

func (in *Inspection) outOfDate(file, msg string) {
	in.Diagnostics = append(in.Diagnostics, declcfg.Finding{Rule: RuleCatalogOutOfDate, Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: file}, Package: in.Operator, Message: msg})
}

// addErr turns an error into diagnostics, one per problem it holds, at its
// position (or the file it is about).
func (in *Inspection) addErr(rule string, err error, file string) {
	for _, pe := range problemsOf(err) {
		pos := pe.pos
		if pos.File == "" {
			pos.File = file
		}
		in.Diagnostics = append(in.Diagnostics, declcfg.Finding{Rule: rule, Severity: declcfg.SeverityError, Pos: pos, Package: in.Operator, Message: pe.msg})
	}
}

type posMsg struct {
	pos declcfg.Pos
	msg string
}

// problemsOf splits an error into its positioned problems.
func problemsOf(err error) []posMsg {
	var rps repo.Problems
	var tps template.Problems
	var f *declcfg.Finding
	var re *template.RenderError
	var le *declcfg.LoadError
	var me *repo.MissingError
	var out []posMsg
	switch {
	case errors.As(err, &rps):
		for _, p := range rps {
			out = append(out, posMsg{p.Pos, p.Message})
		}
	case errors.As(err, &tps):
		for _, p := range tps {
			out = append(out, posMsg{p.Pos, p.Message})
		}
	case errors.As(err, &re):
		out = append(out, posMsg{re.Pos, fmt.Sprintf("rendering bundle %q: %v", re.Ref, re.Err)})
	case errors.As(err, &f):
		out = append(out, posMsg{f.Pos, f.Message})
	case errors.As(err, &le):
		out = append(out, posMsg{le.Pos, le.Msg})
	case errors.As(err, &me):
		out = append(out, posMsg{me.Pos, fmt.Sprintf("%s does not exist (%s)", me.Path, me.What)})
	default:
		out = append(out, posMsg{declcfg.Pos{}, err.Error()})
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
