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
	// RuleTemplateMissing: a template ci.yaml maps is not there, and no
	// bundle's release creates it.
	RuleTemplateMissing = "template-missing"
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
			Summary: "A catalog template ci.yaml maps cannot be rendered: it does not parse, is not a template of the type ci.yaml says, or names a bundle image found nowhere.",
			Help:    "Fix the template, or give the image's bundle (its directory under operators/<package>/VERSION, or --image-map with fbc catalogs)."},
		{ID: RuleTemplateMissing, Severity: declcfg.SeverityWarning,
			Summary: "A catalog template ci.yaml maps is not in catalog-templates/, and no bundle's release-config.yaml lists it (a release would create it): the catalogs mapped to it cannot be rendered.",
			Help:    "Add the template, release a bundle into it (fbc release), or take it out of ci.yaml's fbc.catalog_mapping."},
		{ID: RuleCatalogOutOfDate, Severity: declcfg.SeverityWarning,
			Summary: "A catalog under catalogs/ is not what its template renders, is missing, or is no longer mapped by ci.yaml.",
			Help:    "Run fbc catalogs on the operator's folder: it writes every mapped catalog and removes the unmapped ones."},
	}
}

// Inspection is what fbc validate checks of an operator's folder besides
// what validate checks of it (its bundles and settings files:
// validate.Options.Operators): its templates and catalogs.
type Inspection struct {
	Operator string
	// Catalogs are the package's published catalog files under catalogs/
	// that ci.yaml maps, shown from WorkDir: what the pipelines check.
	Catalogs []PublishedCatalog
	// Notes are one-line hints: folders that are neither bundles nor
	// templates, templates a release will create.
	Notes []string
	// Diagnostics are the problems of the templates (as rendered, for the
	// catalogs that are not what they render) and the catalogs that are
	// out of date.
	Diagnostics []declcfg.Finding
	// Files counts the templates read.
	Files int
}

// PublishedCatalog is a package's catalog file in one catalog.
type PublishedCatalog struct {
	Catalog string
	File    string
}

// Inspect reads an operator's folder as the pipelines do, beyond its
// bundles and settings files: the templates ci.yaml maps, rendered offline
// (images from the image cache and the repository, never a registry) and
// compared with the catalogs they are mapped to. A catalog that is what
// its template renders is left to the caller to check where it is
// published (Catalogs); what a template renders otherwise is validated
// here, at the template. Problems are diagnostics, not errors: only a run
// cut short is an error.
//
// The settings files are not Inspect's to report: the repository rules
// (validate.Options.Operators) read the same parse of them and report
// every problem, so a ci.yaml that cannot be read leaves Inspect nothing
// to render and nothing to say.
func Inspect(ctx context.Context, f *repo.Folder, opts Options) (*Inspection, error) {
	opts.Renderer = opts.Renderer.CacheOnly()
	opts.Check, opts.NoValidate = true, false
	p, err := newRun(ctx, f.Operator, opts)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Operator: f.Name}
	templates := false
	for _, e := range f.Entries {
		shown := f.Show(e.Path)
		switch e.Kind {
		case repo.TemplatesFolder:
			templates = true
		case repo.NestedBundle:
			rel, _ := filepath.Rel(e.Path, e.Bundle)
			in.Notes = append(in.Notes, fmt.Sprintf("skipping %s: its bundle is one level down (%s), where the pipelines do not look for it: they read operators/%s/VERSION/ itself; fbc validate %s checks it",
				shown, rel, f.Name, filepath.Join(shown, rel)))
		case repo.OtherDir:
			in.Notes = append(in.Notes, fmt.Sprintf("skipping %s: neither a bundle directory (manifests/ and metadata/) nor %s/", shown, repo.TemplatesDir))
		}
	}
	ci, err := f.CI.CI()
	switch {
	case f.CI.Missing:
		if templates {
			in.Diagnostics = append(in.Diagnostics, declcfg.Finding{Rule: RuleRepoConfig, Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: f.CI.Path}, Package: f.Name,
				Message: fmt.Sprintf("the operator has no ci.yaml: nothing maps the templates of %s/ to catalogs (fbc.catalog_mapping), so the pipelines render none of them", repo.TemplatesDir)})
		}
		return in, nil
	case err != nil:
		return in, nil // the repository rules report it
	case ci.FBC == nil || len(ci.FBC.Mappings) == 0:
		return in, nil
	}
	if err := in.templates(ctx, p, f, ci); err != nil {
		return nil, err
	}
	return in, nil
}

// templates renders each mapped template and compares the result with the
// published catalogs.
func (in *Inspection) templates(ctx context.Context, p *run, f *repo.Folder, ci *repo.CI) error {
	releasedBy := releases(f, p)
	jobs, err := p.mappedJobsEach(ci, func(err error, file string) {
		var missing *repo.MissingError
		if errors.As(err, &missing) {
			if bundle, ok := releasedBy[missing.Path]; ok {
				in.Notes = append(in.Notes, fmt.Sprintf("%s does not exist yet: the release of %s creates it (its release-config.yaml lists it; fbc release %s --image REF)", missing.Path, bundle, bundle))
				return
			}
			in.Diagnostics = append(in.Diagnostics, declcfg.Finding{Rule: RuleTemplateMissing, Severity: declcfg.SeverityWarning, Pos: missing.Pos, Package: in.Operator,
				Message: fmt.Sprintf("%s does not exist: ci.yaml maps it to catalogs, which cannot be rendered without it, and no bundle's release-config.yaml lists it", missing.Path)})
			return
		}
		in.addErr(RuleTemplateRender, err, file)
	})
	if err != nil {
		return err
	}
	in.Files += len(jobs)
	// Every catalog a usable mapping names is mapped, rendered or not.
	mapped := map[string]bool{}
	for _, m := range ci.FBC.Mappings {
		if checkMapping(m) == nil {
			for _, c := range m.Catalogs {
				mapped[c] = true
			}
		}
	}
	compared := map[string]bool{}
	for _, j := range jobs {
		cats, err := p.render(ctx, []job{j})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			in.addErr(RuleTemplateRender, err, p.show(j.path))
			continue
		}
		for _, c := range cats {
			compared[c.catalog] = true
			file := p.show(c.path)
			old, err := os.ReadFile(c.path)
			switch {
			case err == nil && bytes.Equal(old, c.data):
				// What is published is what the template renders: the
				// caller checks it where it is.
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
		switch {
		case !mapped[c.Catalog]:
			in.outOfDate(p.show(c.Path), fmt.Sprintf("ci.yaml does not map catalog %s: fbc catalogs %s removes it", c.Catalog, p.show(p.op.Dir)))
		case !compared[c.Catalog]:
			// Its template could not be rendered: what is published is
			// still what the pipelines check.
			in.Catalogs = append(in.Catalogs, PublishedCatalog{Catalog: c.Catalog, File: p.show(c.Path)})
		}
	}
	return nil
}

// releases maps the templates the bundles' release-config.yaml files list
// (shown as a MissingError names them) to the first bundle that lists
// each.
func releases(f *repo.Folder, p *run) map[string]string {
	out := map[string]string{}
	for _, b := range f.Bundles {
		if b.ReleaseConfig == nil {
			continue
		}
		rc, err := b.ReleaseConfig.ReleaseConfig()
		if err != nil {
			continue // the repository rules report it
		}
		for _, t := range rc.Templates {
			path := p.show(p.op.TemplatePath(t.Template))
			if _, ok := out[path]; !ok {
				out[path] = b.Dir
			}
		}
	}
	return out
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
	var fs declcfg.Findings // repo.Problems, template.Problems
	var f *declcfg.Finding
	var re *template.RenderError
	var le *declcfg.LoadError
	var me *repo.MissingError
	var out []posMsg
	switch {
	case errors.As(err, &fs):
		for _, p := range fs {
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
