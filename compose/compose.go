// Package compose builds one catalog out of several: it reads catalog
// directories, files and images (and the references of a catalog config),
// merges them package by package, selects part of the result, and lays the
// packages out as folders of a catalog tree.
package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
)

// Options says what to compose.
type Options struct {
	// Sources are catalog directories, catalog files, "-" (standard input)
	// or catalog image references; their packages go to folders named after
	// the package.
	Sources []string
	// Config, when set, adds the references of a catalog config; each
	// reference's packages go to the folder named after the reference.
	Config *CatalogConfig
	// Selection picks part of the merged catalog.
	Selection Selection
	// MigrateLevel runs render's migrations up to this level on the result
	// ("" or "none": none).
	MigrateLevel string
	// OnConflict settles packages that several sources define differently
	// (default: an error).
	OnConflict ConflictPolicy
	// Stdin is read for the source "-" (default os.Stdin).
	Stdin io.Reader
	// Walk tunes reading directories.
	Walk declcfg.WalkOptions
	// Render says how catalog images are read: registry access, cache,
	// platform, how many at once, warnings and progress. Its Allowed,
	// MigrateLevel and Stdin are compose's own.
	Render render.Options
}

// Result is a composed catalog and where each package goes.
type Result struct {
	Config *declcfg.DeclarativeConfig
	// Folder maps a package to its folder in the output tree.
	Folder func(pkg string) string
	// Notes are what merging and selecting changed on their own, or could
	// not do, for the user to read.
	Notes []Note
}

// SourceError is a source that could not be read: a path that does not
// exist, a bundle directory given as a catalog, an image that cannot be
// pulled, or content that does not parse.
type SourceError struct {
	Source string
	Err    error
	// Invalid marks problems with the source's content (a finding) as
	// opposed to failures to read it.
	Invalid bool
}

func (e *SourceError) Error() string {
	var les declcfg.LoadErrors
	var re render.Errors
	if errors.As(e.Err, &les) || errors.As(e.Err, &re) {
		// These name their files and lines, or their source, already.
		return e.Err.Error()
	}
	return fmt.Sprintf("source %s: %v", e.Source, e.Err)
}

func (e *SourceError) Unwrap() error { return e.Err }

// SourceErrors is every source that could not be read, in source order.
type SourceErrors []*SourceError

func (es SourceErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Invalid reports whether every failure is a problem with content.
func (es SourceErrors) Invalid() bool {
	for _, e := range es {
		if !e.Invalid {
			return false
		}
	}
	return len(es) > 0
}

// MigrateError is a migration that failed on a bundle's content.
type MigrateError struct{ Err error }

func (e *MigrateError) Error() string { return e.Err.Error() }
func (e *MigrateError) Unwrap() error { return e.Err }

// ErrEmpty is returned when nothing is left to write.
var ErrEmpty = errors.New("nothing to compose")

// origin is where a source came from: a positional source or a reference
// of the catalog config.
type origin struct {
	name  string // as shown to users
	loc   string // what is read: a path, "-" or an image reference
	local bool
	ref   *Reference
}

// Compose reads every source, merges the catalogs and applies the
// selection. Every source is read before anything fails: unreadable
// sources are reported together as SourceErrors; a conflict between
// sources is a *ConflictError and a selection that does not fit is
// a *SelectionError.
func Compose(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Sources) == 0 && opts.Config == nil {
		return nil, fmt.Errorf("%w: give at least one source or a catalog config", ErrEmpty)
	}
	policy := opts.OnConflict
	if policy == "" {
		policy = OnConflictError
	}
	var origins []origin
	for _, src := range opts.Sources {
		_, err := os.Stat(src)
		origins = append(origins, origin{name: src, loc: src, local: src == "-" || err == nil || looksLikePath(src)})
	}
	if c := opts.Config; c != nil {
		for i := range c.References {
			ref := &c.References[i]
			loc, local, err := c.resolve(*ref)
			if err != nil {
				return nil, err
			}
			origins = append(origins, origin{name: fmt.Sprintf("%s (reference %q of %s)", ref.Image, ref.Name, c.File), loc: loc, local: local, ref: ref})
		}
	}
	cfgs, err := readSources(ctx, origins, opts)
	if err != nil {
		return nil, err
	}
	sources := make([]Source, len(origins))
	for i, o := range origins {
		sources[i] = Source{Name: o.name, Config: cfgs[i]}
	}
	merged, err := MergeSources(sources, policy)
	if err != nil {
		return nil, err
	}
	out, notes, err := Filter(merged.Config, opts.Selection)
	if err != nil {
		return nil, err
	}
	if out.IsEmpty() {
		names := make([]string, len(origins))
		for i, o := range origins {
			names[i] = o.name
			if o.name == "-" {
				names[i] = "standard input"
			}
		}
		verb := "hold"
		if len(names) == 1 {
			verb = "holds"
		}
		return nil, fmt.Errorf("%w: %s %s no catalog blobs", ErrEmpty, listNames(names, 10), verb)
	}
	if err := render.Migrate(out, opts.MigrateLevel); err != nil {
		return nil, &MigrateError{Err: err}
	}
	folders := map[string]string{}
	byFolder := map[string]string{}
	for _, pkg := range out.PackageNames() {
		if pkg == "" {
			continue
		}
		f := pkg
		if o := origins[merged.From[pkg]]; o.ref != nil {
			f = o.ref.Name
		}
		folders[pkg] = f
		if other, ok := byFolder[f]; ok && origins[merged.From[other]].ref != origins[merged.From[pkg]].ref {
			return nil, fmt.Errorf("folder %q would hold both package %q and package %q: rename the reference in %s", f, other, pkg, opts.Config.File)
		}
		byFolder[f] = pkg
	}
	return &Result{
		Config: out,
		Folder: func(pkg string) string { return folders[pkg] },
		Notes:  append(merged.Notes, notes...),
	}, nil
}

// readSources reads every source: local ones one after the other, images
// through render, several at once.
func readSources(ctx context.Context, origins []origin, opts Options) ([]*declcfg.DeclarativeConfig, error) {
	cfgs := make([]*declcfg.DeclarativeConfig, len(origins))
	errs := make([]*SourceError, len(origins))
	var images []int
	for i, o := range origins {
		if !o.local {
			images = append(images, i)
			continue
		}
		cfg, err := readLocal(ctx, o.loc, opts)
		if err != nil {
			var les declcfg.LoadErrors
			errs[i] = &SourceError{Source: o.name, Err: err, Invalid: errors.As(err, &les) && !les.HasIO()}
			continue
		}
		cfgs[i] = cfg
	}
	if len(images) > 0 {
		ro := opts.Render
		ro.Allowed = render.KindCatalogImage
		ro.MigrateLevel = ""
		if ro.Images == nil {
			c, err := image.NewClient(ro.Image)
			if err != nil {
				return nil, err
			}
			ro.Images = c
		}
		jobs := ro.Jobs
		if jobs <= 0 {
			jobs = 4 * runtime.NumCPU()
		}
		ro.Jobs = 1
		progress := ro.Progress
		ro.Progress = nil
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			done  int
			slots = make(chan struct{}, jobs)
		)
		for _, i := range images {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				cfg, err := render.Render(ctx, []string{origins[i].loc}, ro)
				if err != nil {
					errs[i] = &SourceError{Source: origins[i].name, Err: err, Invalid: render.IsInvalidInput(err)}
				} else {
					cfgs[i] = cfg
				}
				if progress != nil {
					mu.Lock()
					done++
					progress(done, len(images))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	var failed SourceErrors
	for _, e := range errs {
		if e != nil {
			failed = append(failed, e)
		}
	}
	if len(failed) > 0 {
		return nil, failed
	}
	return cfgs, nil
}

// readLocal loads a catalog directory, file or "-".
func readLocal(ctx context.Context, loc string, opts Options) (*declcfg.DeclarativeConfig, error) {
	if loc != "-" {
		st, err := os.Stat(loc)
		if err != nil {
			return nil, unwrapPathError(err)
		}
		if st.IsDir() && isBundleDir(loc) {
			return nil, errors.New("is a bundle directory (manifests/ and metadata/), not a catalog: render it into a catalog first (fbc render)")
		}
	}
	return declcfg.Load(ctx, []string{loc}, declcfg.LoadOptions{Walk: opts.Walk, Stdin: opts.Stdin})
}

func isBundleDir(dir string) bool {
	for _, sub := range []string{"manifests", "metadata"} {
		st, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}
