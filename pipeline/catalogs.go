package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/repo"
)

// Catalogs renders every catalog the ci.yaml of the operator whose folder
// holds dir maps, as make catalogs does: each template of
// fbc.catalog_mapping into <root>/catalogs/<catalog>/<pkg>/catalog.yaml for
// each of its catalog_names, as YAML, with --migrate-level
// bundle-object-to-csv-metadata for v4.17 and later (and every 5.x). Like
// the Makefile, which empties every catalogs/*/<pkg>/ first, it removes the
// package's folders in catalogs ci.yaml does not map and any other file in
// the folders it writes. Each template renders once per migrate level its
// catalogs need, each bundle source is read once, every catalog is
// validated, and the files land together or not at all.
//
// A ci.yaml or template that cannot be used stops the run before anything
// is rendered (a Run error: exit 2); catalogs that do not validate are an
// *InvalidError, with the reports in the Result.
func Catalogs(ctx context.Context, dir string, opts Options) (*Result, error) {
	op, err := repo.OperatorOf(dir)
	if err != nil {
		return nil, err
	}
	p, err := newRun(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	release, err := p.begin(ctx, "rendering the catalogs of "+op.Name)
	if err != nil {
		return nil, err
	}
	defer release()
	ci, err := p.readCI()
	if err != nil {
		return nil, setupError(err)
	}
	cats, err := p.renderMapped(ctx, ci, nil, nil)
	if err != nil {
		return p.res, err
	}
	mapped := map[string]bool{}
	for _, c := range cats {
		mapped[c.catalog] = true
		if err := p.stageCatalog(c); err != nil {
			return p.res, err
		}
	}
	if err := p.removeUnmapped(mapped); err != nil {
		return p.res, err
	}
	return p.res, p.land(ctx)
}

// readCI reads the operator's ci.yaml, named from the working directory.
func (p *run) readCI() (*repo.CI, error) {
	path := p.op.CIPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &repo.MissingError{Path: p.show(path), What: "the operator's CI settings, whose fbc.catalog_mapping maps templates to catalogs"}
	}
	if err != nil {
		return nil, err
	}
	ci, err := repo.ParseCI(p.show(path), data)
	if err != nil {
		return nil, err
	}
	p.warnAll(ci.Warnings)
	return ci, nil
}

// warnAll passes a settings file's warnings on.
func (p *run) warnAll(ws repo.Problems) {
	for _, w := range ws {
		p.opts.Warn.Printf("%s", w.Error())
	}
}

// renderMapped renders the catalogs ci.yaml maps (see mappedJobs for
// order and texts) and validates them.
func (p *run) renderMapped(ctx context.Context, ci *repo.CI, order []string, texts map[string][]byte) ([]rendered, error) {
	jobs, err := p.mappedJobs(ci, order, texts)
	if err != nil {
		return nil, err
	}
	cats, err := p.render(ctx, jobs)
	if err != nil {
		return nil, err
	}
	return cats, p.validate(ctx, cats)
}

// setupError makes a problem with the repository's settings a reason the
// run could not start (exit 2), as the pipelines stop on it.
func setupError(err error) error {
	if fault.KindOf(err) == fault.Input {
		return fault.Wrap(fault.Run, err)
	}
	return err
}

// mappedJobs reads the templates ci.yaml maps, one job per template and
// type (mapping items that name the same template share it). order, when
// set, keeps only the templates it names and, as the release bot does, the
// catalogs of each one's first mapping item; texts gives templates' text
// instead of the file's.
//
// A catalog mapped to several templates is written by the pipelines once
// per template, so the last render stays: the last mapping item naming it
// for make catalogs, the template rendered last (latest in order) for the
// release bot. fbc renders it from that template only, and says so.
func (p *run) mappedJobs(ci *repo.CI, order []string, texts map[string][]byte) ([]job, error) {
	return p.jobsOf(ci, order, texts, func(err error, _ string) error { return err })
}

// mappedJobsEach is mappedJobs for a check that goes on past a mapping it
// cannot use: onErr hears of each (and the file it is about), and the
// others are rendered.
func (p *run) mappedJobsEach(ci *repo.CI, onErr func(err error, file string)) ([]job, error) {
	return p.jobsOf(ci, nil, nil, func(err error, file string) error {
		onErr(err, file)
		return nil
	})
}

// jobsOf is mappedJobs; fail decides whether a mapping that cannot be used
// stops the run (it returns the error) or is left out (nil).
func (p *run) jobsOf(ci *repo.CI, order []string, texts map[string][]byte, fail func(err error, file string) error) ([]job, error) {
	if ci.FBC == nil || len(ci.FBC.Mappings) == 0 {
		return nil, fault.Errorf(fault.Run, "%s has no fbc.catalog_mapping: no template is mapped to a catalog, so there is nothing to render", p.show(ci.File))
	}
	if !ci.FBC.Enabled {
		p.opts.Warn.Printf("%s: fbc.enabled is not true: the pipelines do not publish this operator's catalogs", p.show(ci.File))
	}
	type claim struct {
		job  int
		rank int
		pos  declcfg.Pos
	}
	var jobs []job
	claims := map[string]claim{}
	var catalogOrder []string
	for n, m := range ci.FBC.Mappings {
		rank := n
		if order != nil {
			if rank = slices.Index(order, m.Template); rank < 0 {
				continue
			}
		}
		if err := checkMapping(m); err != nil {
			if err := fail(setupError(err), ci.File); err != nil {
				return nil, err
			}
			continue
		}
		i := slices.IndexFunc(jobs, func(j job) bool { return j.name == m.Template && j.typ == m.Type })
		if i >= 0 && order != nil {
			continue // the bot reads the first mapping item of a template
		}
		if i < 0 {
			path := p.op.TemplatePath(m.Template)
			data, ok := texts[m.Template]
			var err error
			if !ok {
				data, err = os.ReadFile(path)
			}
			if errors.Is(err, fs.ErrNotExist) {
				err = &repo.MissingError{Path: p.show(path), What: "the template ci.yaml maps", Pos: m.TemplatePos}
			}
			if err != nil {
				if err := fail(err, ci.File); err != nil {
					return nil, err
				}
				continue
			}
			jobs = append(jobs, job{name: m.Template, typ: m.Type, path: path, data: data, pos: m.TemplatePos})
			i = len(jobs) - 1
		}
		for k, c := range m.Catalogs {
			prev, ok := claims[c]
			if !ok {
				catalogOrder = append(catalogOrder, c)
			} else if prev.job != i {
				winner, loser, at := jobs[i].name, jobs[prev.job].name, m.CatalogPos[k]
				if prev.rank > rank {
					winner, loser = loser, winner
				}
				p.opts.Warn.Printf("%s: catalog %s is mapped to both %s and %s: as the pipelines, which render both into it, leave it, it is rendered from %s, which they render last", at, c, loser, winner, winner)
				if prev.rank > rank {
					continue
				}
			}
			claims[c] = claim{job: i, rank: rank, pos: m.CatalogPos[k]}
		}
	}
	for _, c := range catalogOrder {
		j := &jobs[claims[c].job]
		if !slices.Contains(j.catalogs, c) {
			j.catalogs = append(j.catalogs, c)
		}
	}
	return slices.DeleteFunc(jobs, func(j job) bool { return len(j.catalogs) == 0 }), nil
}

// checkMapping refuses what the pipelines cannot render: an unknown type,
// no catalog to render into (the pipelines' schema wants catalog_names
// non-empty; rendering nothing would remove every published catalog),
// names that lead out of their folders.
func checkMapping(m repo.Mapping) error {
	if m.Type != repo.TypeBasic && m.Type != repo.TypeSemver {
		return repo.ProblemAt(m.TypePos, fmt.Sprintf("unknown template type %q: the pipelines render %s and %s templates", m.Type, repo.TypeBasic, repo.TypeSemver))
	}
	if len(m.Catalogs) == 0 {
		return repo.ProblemAt(m.CatalogsPos, fmt.Sprintf("catalog_names of %s is empty: the template is mapped to no catalog, so there is nothing to render (the pipelines refuse an empty list)", m.Template))
	}
	if err := checkName(m.Template, "template_name", m.TemplatePos, true); err != nil {
		return err
	}
	for k, c := range m.Catalogs {
		if err := checkName(c, "catalog name", m.CatalogPos[k], false); err != nil {
			return err
		}
	}
	return nil
}

// stageCatalog adds a catalog's file to the batch and removes any other
// file of its folder, which the Makefile's clean would have removed.
func (p *run) stageCatalog(c rendered) error {
	if err := p.noLinks(c.path); err != nil {
		return err
	}
	folder := filepath.Dir(c.path)
	ents, err := os.ReadDir(folder)
	if err != nil && !missing(err) {
		return fault.Wrap(fault.Run, err)
	}
	var old []byte
	exists := false
	for _, e := range ents {
		p2 := filepath.Join(folder, e.Name())
		if e.Name() == filepath.Base(c.path) && e.Type().IsRegular() {
			if old, err = os.ReadFile(p2); err != nil {
				return fault.Wrap(fault.Run, err)
			}
			exists = true
			continue
		}
		if err := p.remove(p2); err != nil {
			return err
		}
	}
	return p.stage(c.path, c.data, old, exists)
}

// remove adds a path to remove to the batch, or records it as stale. A
// path through a symbolic link, or a link itself, is refused (see noLinks).
func (p *run) remove(path string) error {
	if err := p.noLinks(path); err != nil {
		return err
	}
	p.res.Removed = append(p.res.Removed, p.show(path))
	if p.opts.Check {
		p.res.Stale = append(p.res.Stale, p.show(path))
		return nil
	}
	p.batch.RemoveAll(path)
	return nil
}

// removeUnmapped removes the package's folder from every catalog that
// ci.yaml does not map.
func (p *run) removeUnmapped(mapped map[string]bool) error {
	ents, err := os.ReadDir(p.op.Repo.CatalogsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fault.Wrap(fault.Run, err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && !mapped[e.Name()] {
			names = append(names, e.Name())
		}
	}
	for _, c := range sortedCatalogs(names) {
		folder := p.op.Repo.CatalogDir(c, p.op.Name)
		if _, err := os.Lstat(folder); err == nil {
			if err := p.remove(folder); err != nil {
				return err
			}
		}
	}
	return nil
}
