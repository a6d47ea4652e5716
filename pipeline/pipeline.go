// Package pipeline does on a maintainer's machine what the operator
// pipelines (operator-pipelines) do to an operator repository: render every
// catalog ci.yaml maps from its template (make catalogs, which runs
// render_catalogs.sh: Catalogs) and release a bundle into the catalog
// templates and catalogs its release-config.yaml names (the release bot,
// add_bundle_to_fbc.py: Release). Templates render through template, with
// bundle images taken from the image map, the image cache, the repository's
// own published catalogs and bundle directories (Finder), then registries;
// every catalog is validated; and all the files a run writes land together
// or not at all (atomicfile.Batch).
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/template"
	"github.com/fbc-project/fbc/validate"
)

// Options are what Catalogs and Release share.
type Options struct {
	// ImageMap is an image map file ("" for none): see template.ImageMap.
	ImageMap string
	// Renderer renders bundle directories and images (required).
	Renderer *render.Renderer
	// WorkDir, when set, is where paths in results and messages are shown
	// from (paths outside it are shown whole).
	WorkDir string
	// Check renders and compares without writing: Result.Stale lists the
	// files that differ from what would be written.
	Check bool
	// NoValidate writes catalogs without validating them.
	NoValidate bool
	// Warn receives warnings (a template's unknown fields, a bundle only
	// found migrated).
	Warn fault.Warn
	// AllowTagMismatch lets Release take an image whose tag is neither the
	// bundle directory's name nor its CSV's version (TagMismatchError).
	AllowTagMismatch bool
	// LockWait is how long Catalogs and Release wait for another run in
	// the repository to finish (see LockFile); 0 does not wait.
	LockWait time.Duration
	// Note receives notes (a wait for another run).
	Note fault.Warn
}

// LockFile is the file, at the repository's root, that a run of Catalogs
// or Release holds (atomicfile.Lock) from before it reads the repository
// until its files have landed: two runs at once would each read the
// templates and catalogs before the other wrote them, and the last to
// land would undo the other's release.
const LockFile = ".fbc-lock"

// JournalFile is the file, at the repository's root, where the files a run
// lands are written down before they land (atomicfile.Batch.Journal): a
// run killed while its files landed (3 catalogs new, 5 old) leaves it, and
// the next run of Catalogs or Release finishes that batch, or undoes it
// when it cannot be finished, before anything else; with Check, it says
// so instead (Result.Interrupted).
const JournalFile = ".fbc-journal"

// recoverBatch finishes or undoes the batch a killed run left (see
// JournalFile), or, with Check, says that one is there.
func (p *run) recoverBatch() error {
	path := filepath.Join(p.op.Repo.Root, JournalFile)
	if p.opts.Check {
		in, err := atomicfile.ReadJournal(path)
		if in == nil || err != nil {
			return p.journalError(err)
		}
		next := "finishes it"
		if !in.Finishable {
			next = "undoes it"
		}
		p.res.Interrupted = fmt.Sprintf("%s: %s; the next fbc catalogs or fbc release in the repository %s", p.show(path), p.killed(in), next)
		p.opts.Warn.Printf("%s", p.res.Interrupted)
		return nil
	}
	in, err := atomicfile.RecoverBatch(path)
	if in == nil || err != nil {
		return p.journalError(err)
	}
	switch {
	case in.Finishable:
		p.opts.Note.Printf("%s; finished it: %s", p.killed(in), p.list("wrote", in.Pending))
	case in.Landing:
		p.opts.Note.Printf("%s; undid it, since the new content of a file it had not written is gone: %s", p.killed(in), p.list("put back", in.Landed))
	default:
		p.opts.Note.Printf("%s; undid it: removed its temporary files", p.killed(in))
	}
	return nil
}

// killed says what a journal shows of the run that left it.
func (p *run) killed(in *atomicfile.Interrupted) string {
	who := fmt.Sprintf("an fbc run (pid %d, started %s)", in.PID, in.Started.Format(time.RFC3339))
	if !in.Landing {
		return who + " was killed while it wrote its files, before any was in place"
	}
	n := len(in.Landed) + len(in.Pending)
	return fmt.Sprintf("%s was killed while its files landed: %d of %d in place, %d not", who, len(in.Landed), n, len(in.Pending))
}

// list names files shown from the working directory, after a verb.
func (p *run) list(verb string, files []string) string {
	if len(files) == 0 {
		return verb + " nothing more"
	}
	shown := make([]string, len(files))
	for i, f := range files {
		shown[i] = p.show(f)
	}
	return verb + " " + strings.Join(shown, ", ")
}

// journalError makes a journal fbc cannot use a reason the run cannot
// start (exit 2).
func (p *run) journalError(err error) error {
	if err == nil {
		return nil
	}
	var je *atomicfile.JournalError
	if errors.As(err, &je) {
		je.Path = p.show(je.Path)
	}
	return fault.Wrap(fault.Run, err)
}

// lockRepo takes the repository's lock for a run that does what; the run
// releases it when it returns.
func (p *run) lockRepo(ctx context.Context, what string) (*atomicfile.Lock, error) {
	path := filepath.Join(p.op.Repo.Root, LockFile)
	holder := fmt.Sprintf("fbc (pid %d) %s", os.Getpid(), what)
	l, err := atomicfile.AcquireLock(ctx, path, holder, p.opts.LockWait, func(other string) {
		if other == "" {
			other = "another fbc run"
		}
		p.opts.Note.Printf("waiting for %s to finish: it holds %s (for up to %s)", other, p.show(path), p.opts.LockWait)
	})
	var le *atomicfile.LockedError
	if errors.As(err, &le) {
		le.Path = p.show(le.Path)
	}
	return l, err
}

// begin takes the repository's lock for a run that does what, finishes
// or rolls back a batch an interrupted run left, and checks the published
// catalogs' links, as every writing run does first; the run calls release
// when it returns.
func (p *run) begin(ctx context.Context, what string) (release func(), err error) {
	lock, err := p.lockRepo(ctx, what)
	if err != nil {
		return nil, err
	}
	if err := p.recoverBatch(); err != nil {
		lock.Release()
		return nil, err
	}
	if err := p.checkPublishedLinks(); err != nil {
		lock.Release()
		return nil, err
	}
	return lock.Release, nil
}

// Result is what a run did.
type Result struct {
	// Operator is the package's name.
	Operator string
	// Written lists the files written (or, with Check, that would be),
	// shown from WorkDir; Unchanged those whose content was already right.
	Written, Unchanged []string
	// Removed lists the catalog folders removed (Catalogs: catalogs
	// ci.yaml no longer maps), shown from WorkDir.
	Removed []string
	// Stale lists, with Options.Check, the files that differ from what
	// the run would write, and the folders it would remove.
	Stale []string
	// Reports holds each catalog's validation, in catalog order.
	Reports []Report
	// Templates lists, for Release, what happened to each template.
	Templates []TemplateChange
	// Image is, for Release, the bundle's image; ImageNote says how it was
	// named when none was given ("" otherwise).
	Image, ImageNote string
	// Interrupted says, with Options.Check, that a run killed while its
	// files landed left the repository half-written (see JournalFile),
	// which the next run that writes finishes or undoes; "" otherwise.
	Interrupted string
	Stats       Stats
}

// Report is one catalog's validation.
type Report struct {
	Catalog string
	File    string // the catalog file, shown from WorkDir
	Result  *validate.Result
}

// Stats count the work, to show that each template renders once per set of
// options and each source is read once.
type Stats struct {
	// Templates rendered, and renders made (one per template and migrate
	// level its catalogs need).
	Templates, Renders int
	// Catalogs written (or compared).
	Catalogs int
	// SourcesRead counts bundle sources read: image-map entries, images
	// from the cache or a registry, bundle directories; CatalogFilesRead
	// the published catalog files read for bundle images.
	SourcesRead, CatalogFilesRead int
}

// InvalidError is a run whose rendered catalogs have errors: nothing was
// written, and Result.Reports says what is wrong.
type InvalidError struct {
	Catalogs []string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s not valid; nothing was written", plural(len(e.Catalogs), "catalog "+e.Catalogs[0]+" is", fmt.Sprintf("%d catalogs are", len(e.Catalogs))))
}

// FaultKind is Input: the catalogs are findings.
func (e *InvalidError) FaultKind() fault.Kind { return fault.Input }

// job is one template to render and the catalogs rendered from it.
type job struct {
	name     string // template_name
	typ      string // olm.template.basic or olm.semver
	path     string // the template file
	data     []byte // its text
	catalogs []string
	// pos is where ci.yaml maps it.
	pos declcfg.Pos
}

// run holds what a run of Catalogs or Release shares.
type run struct {
	opts   Options
	op     *repo.Operator
	finder *Finder
	memo   *template.Memo
	m      *template.ImageMap
	batch  atomicfile.Batch
	res    *Result
	// fixed is the image of the bundle being released and its directory.
	fixedImage, fixedDir string
}

func newRun(ctx context.Context, op *repo.Operator, opts Options) (*run, error) {
	if opts.Renderer == nil {
		return nil, errors.New("pipeline: no renderer")
	}
	p := &run{opts: opts, op: op, memo: &template.Memo{}, res: &Result{Operator: op.Name}}
	p.finder = NewFinder(op, opts.Renderer, opts.WorkDir, opts.Warn)
	if opts.ImageMap != "" {
		m, err := template.LoadImageMap(ctx, opts.ImageMap)
		if err != nil {
			return nil, err
		}
		p.m = m
	}
	return p, nil
}

// show names a path from the working directory.
func (p *run) show(path string) string {
	if p.opts.WorkDir == "" {
		return path
	}
	return showFrom(p.opts.WorkDir, path)
}

// showFrom names path from dir: relative when it is under dir or near it
// (up to three levels up), whole otherwise.
func showFrom(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil || strings.HasPrefix(r, strings.Repeat(".."+string(filepath.Separator), 4)) {
		return path
	}
	return r
}

// checkName refuses a template or catalog name that would lead out of its
// folder.
func checkName(name, what string, pos declcfg.Pos, nested bool) error {
	clean := path.Clean(filepath.ToSlash(name))
	bad := name == "" || clean != filepath.ToSlash(name) || strings.HasPrefix(clean, "../") || clean == ".." || clean == "." || path.IsAbs(clean) || filepath.IsAbs(name) || strings.Contains(name, `\`)
	if !nested && strings.Contains(name, "/") {
		bad = true
	}
	if bad {
		return fault.Wrap(fault.Input, repo.ProblemAt(pos, fmt.Sprintf("%s %q is not a plain name: fbc writes only inside the repository's folders", what, name)))
	}
	return nil
}

// source resolves bundle references for templates rendered with or
// without olm.csv.metadata.
func (p *run) source(csvMetadata bool) template.BundleRenderer {
	chain := template.Sources(template.SourceOptions{Map: p.m, Renderer: p.opts.Renderer, Finder: p.finder.ForLevel(csvMetadata), Memo: p.memo})
	return func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		if p.fixedImage != "" && ref == p.fixedImage {
			b, err := p.finder.renderDir(ctx, p.fixedDir, ref)
			if err != nil {
				return nil, err
			}
			return []declcfg.Bundle{*b}, nil
		}
		return chain(ctx, ref)
	}
}

// whole renders a bundle whole for a template that needs its CSV (see
// Finder.Whole); the bundle being released renders from its directory.
func (p *run) whole(ctx context.Context, ref string) (*declcfg.Bundle, error) {
	if p.fixedImage != "" && ref == p.fixedImage {
		return p.finder.renderDir(ctx, p.fixedDir, ref)
	}
	return p.finder.Whole(ctx, ref)
}

// rendered is one catalog's file.
type rendered struct {
	catalog string
	path    string
	data    []byte
	cfg     *declcfg.DeclarativeConfig
}

// render renders each job once per migrate level its catalogs need and
// returns every catalog's file, in job then catalog order.
func (p *run) render(ctx context.Context, jobs []job) ([]rendered, error) {
	var out []rendered
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kind := template.KindBasic
		if j.typ == repo.TypeSemver {
			kind = template.KindSemver
		}
		byLevel := map[bool]*rendered{}
		p.res.Stats.Templates++
		for _, c := range j.catalogs {
			level := repo.UsesCSVMetadata(c)
			r := byLevel[level]
			if r == nil {
				res, err := template.Render(ctx, p.show(j.path), j.data, template.Options{
					Kind:   kind,
					Render: p.source(level),
					Whole:  p.whole,
					Migrate: func(cfg *declcfg.DeclarativeConfig) error {
						if !level {
							return nil
						}
						return render.Migrate(cfg, render.MigrateBundleObjectToMeta)
					},
				})
				var empty *template.EmptyError
				if errors.As(err, &empty) {
					return nil, fault.Wrap(fault.Run, fmt.Errorf("%s: nothing to render: %w", j.pos.Prefix("ci.yaml maps "+j.name), err))
				}
				if err != nil {
					return nil, err
				}
				p.res.Stats.Renders++
				for _, w := range res.Warnings {
					p.opts.Warn.Printf("%v", w)
				}
				var buf bytes.Buffer
				if err := declcfg.Write(res.Config, declcfg.FormatYAML, &buf); err != nil {
					return nil, fmt.Errorf("writing the catalog of %s: %w", p.show(j.path), err)
				}
				r = &rendered{data: buf.Bytes(), cfg: res.Config}
				byLevel[level] = r
			}
			file := filepath.Join(p.op.Repo.CatalogDir(c, p.op.Name), "catalog.yaml")
			out = append(out, rendered{catalog: c, path: file, data: r.data, cfg: r.cfg})
		}
	}
	p.res.Stats.Catalogs = len(out)
	p.res.Stats.SourcesRead = p.memo.Reads() + p.finder.bundles
	p.res.Stats.CatalogFilesRead = p.finder.catalog
	return out, nil
}

// validate checks each catalog, with the rules of the OpenShift release
// its name gives (vX.Y), and records the reports.
func (p *run) validate(ctx context.Context, cats []rendered) error {
	if p.opts.NoValidate {
		return nil
	}
	var bad []string
	for _, c := range cats {
		vo := validate.Options{}
		if v, ok := repo.CatalogRelease(c.catalog); ok {
			vo.TargetOCP = &v
		}
		vr, err := validate.ValidateConfig(ctx, c.cfg, vo)
		if err != nil {
			return err
		}
		for i := range vr.Diagnostics {
			if vr.Diagnostics[i].File == "" {
				vr.Diagnostics[i].File = p.show(c.path)
			}
		}
		p.res.Reports = append(p.res.Reports, Report{Catalog: c.catalog, File: p.show(c.path), Result: vr})
		if !vr.Valid() {
			bad = append(bad, c.catalog)
		}
	}
	if len(bad) > 0 {
		return &InvalidError{Catalogs: bad}
	}
	return nil
}

// stage adds a file to the batch, or records it as unchanged (or stale,
// with Check). A path through a symbolic link is refused (see noLinks).
func (p *run) stage(path string, data []byte, old []byte, exists bool) error {
	if err := p.noLinks(path); err != nil {
		return err
	}
	if exists && bytes.Equal(old, data) {
		p.res.Unchanged = append(p.res.Unchanged, p.show(path))
		return nil
	}
	p.res.Written = append(p.res.Written, p.show(path))
	if p.opts.Check {
		p.res.Stale = append(p.res.Stale, p.show(path))
		return nil
	}
	p.batch.Write(path, data, 0o644)
	return nil
}

// checkPublishedLinks refuses, before anything is read, a symbolic link
// in the package's folders under catalogs/ that leads out of its catalog
// (repo.LinkOutError): the run would read a bundle from it and rewrite or
// remove it, where fbc validate refuses it.
func (p *run) checkPublishedLinks() error {
	err := p.op.Repo.CheckPackageLinks(p.op.Name)
	var le *repo.LinkOutError
	if errors.As(err, &le) {
		le.Show = p.show
	}
	return err
}

// noLinks refuses a path to write or remove when any part of it below the
// repository's root, itself included, is a symbolic link: writing through
// catalogs/<catalog>/ or catalogs/<catalog>/<pkg>/ linked elsewhere would
// change another catalog's files, or files outside the repository. Parts
// that do not exist yet are made by the batch, as folders.
func (p *run) noLinks(path string) error {
	root := p.op.Repo.Root
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || !safefs.Within(path, root) {
		return fault.Errorf(fault.Run, "%s is not inside the repository %s: fbc writes only inside the repository's folders", p.show(path), p.show(root))
	}
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if err != nil {
			return nil // missing (made by the batch), or not a folder: writing says so
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(at)
			return fault.Errorf(fault.Run, "%s is a symbolic link (to %s): fbc writes only inside the repository's own folders, never through a link, so it does not write %s; nothing was changed", p.show(at), target, p.show(path))
		}
	}
	return nil
}

// land writes the batch, unless checking.
func (p *run) land(ctx context.Context) error {
	if p.opts.Check {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.batch.Journal = filepath.Join(p.op.Repo.Root, JournalFile)
	if err := p.batch.Commit(ctx); err != nil {
		var be *atomicfile.BatchError
		if errors.As(err, &be) {
			// Name the files as the user sees them.
			cause := be.Err
			var pe *fs.PathError
			if errors.As(cause, &pe) {
				cause = fmt.Errorf("%s %s: %w", pe.Op, p.show(pe.Path), pe.Err)
			}
			err = fmt.Errorf("%s %s: %w; nothing was changed", be.Op, p.show(be.Path), cause)
		}
		return fault.Wrap(fault.Run, err)
	}
	return nil
}

// sortedCatalogs orders catalog names by version.
func sortedCatalogs(names []string) []string {
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case repo.CatalogLess(a, b):
			return -1
		case repo.CatalogLess(b, a):
			return 1
		}
		return 0
	})
	return out
}

// CatalogFinding is one distinct finding of the catalogs' validation, with
// the catalogs it was found in: a template mapped to seven catalogs
// renders one mistake into all seven, which is one thing to fix.
type CatalogFinding struct {
	declcfg.Finding
	// InCatalog is set for a finding about the rendered catalog file
	// itself (it has no place in the template): its File is "", since
	// each catalog has its own.
	InCatalog bool
	// Catalogs and Files are the catalogs it was found in and their
	// files, in catalog order.
	Catalogs, Files []string
}

// InvalidFindings returns the findings of the catalogs that are not valid,
// each distinct one once (in the order first found), with the catalogs
// that have it.
func (r *Result) InvalidFindings() []CatalogFinding {
	type key struct {
		declcfg.Finding
		inCatalog bool
	}
	var out []CatalogFinding
	at := map[key]int{}
	for _, rep := range r.Reports {
		if rep.Result.Valid() {
			continue
		}
		for _, d := range rep.Result.Diagnostics {
			k := key{Finding: d}
			if d.File == rep.File {
				k.File, k.inCatalog = "", true
			}
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				out = append(out, CatalogFinding{Finding: k.Finding, InCatalog: k.inCatalog})
			}
			if f := &out[i]; !slices.Contains(f.Catalogs, rep.Catalog) {
				f.Catalogs = append(f.Catalogs, rep.Catalog)
				f.Files = append(f.Files, rep.File)
			}
		}
	}
	return out
}
