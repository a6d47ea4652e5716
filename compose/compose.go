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

	"github.com/fbc-project/fbc/declcfg"
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
	Selection declcfg.Selection
	// MigrateLevel runs render's migrations up to this level on the result
	// ("" or "none": none).
	MigrateLevel string
	// OnConflict settles packages that several sources define differently
	// (default: an error).
	OnConflict declcfg.ConflictPolicy
	// Stdin is read for the source "-" (default os.Stdin).
	Stdin io.Reader
	// Walk tunes reading directories.
	Walk declcfg.WalkOptions
	// Render reads a source that is not a local file or directory: a
	// catalog image reference. Nil makes such sources errors.
	Render func(ctx context.Context, ref string) (*declcfg.DeclarativeConfig, error)
}

// Result is a composed catalog and where each package goes.
type Result struct {
	Config *declcfg.DeclarativeConfig
	// Folder maps a package to its folder in the output tree.
	Folder func(pkg string) string
	// Notes are what merging and selecting changed on their own, or could
	// not do, for the user to read.
	Notes []declcfg.Note
}

// SourceError is a source that could not be read at all: a path that does
// not exist, a bundle directory given as a catalog, an image that cannot be
// pulled. Problems with a source's content are declcfg.LoadErrors instead.
type SourceError struct {
	Source string
	Err    error
}

func (e *SourceError) Error() string { return fmt.Sprintf("source %s: %v", e.Source, e.Err) }
func (e *SourceError) Unwrap() error { return e.Err }

// MigrateError is a migration that failed on a bundle's content.
type MigrateError struct{ Err error }

func (e *MigrateError) Error() string { return e.Err.Error() }
func (e *MigrateError) Unwrap() error { return e.Err }

// ErrEmpty is returned when nothing is left to write.
var ErrEmpty = errors.New("nothing to compose")

// Compose reads every source, merges the catalogs and applies the
// selection. Content problems of all sources are reported together (as
// declcfg.LoadErrors); a conflict between sources is a *declcfg.ConflictError
// and a selection that does not fit is a *declcfg.SelectionError.
func Compose(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Sources) == 0 && opts.Config == nil {
		return nil, fmt.Errorf("%w: give at least one source or a catalog config", ErrEmpty)
	}
	policy := opts.OnConflict
	if policy == "" {
		policy = declcfg.OnConflictError
	}
	type origin struct {
		ref    *Reference
		source string
	}
	var sources []declcfg.Source
	var origins []origin
	var loadErrs declcfg.LoadErrors
	load := func(name, loc string, local bool, o origin) error {
		cfg, err := readSource(ctx, loc, local, opts)
		var le declcfg.LoadErrors
		switch {
		case errors.As(err, &le) && !le.HasIO():
			loadErrs = append(loadErrs, le...)
			return nil
		case err != nil:
			return &SourceError{Source: name, Err: err}
		}
		sources = append(sources, declcfg.Source{Name: name, Config: cfg})
		origins = append(origins, o)
		return nil
	}
	for _, src := range opts.Sources {
		_, err := os.Stat(src)
		if err := load(src, src, src == "-" || err == nil || looksLikePath(src), origin{source: src}); err != nil {
			return nil, err
		}
	}
	if c := opts.Config; c != nil {
		for i := range c.References {
			ref := &c.References[i]
			loc, local, err := c.resolve(*ref)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s (reference %q of %s)", ref.Image, ref.Name, c.File)
			if err := load(name, loc, local, origin{ref: ref, source: loc}); err != nil {
				return nil, err
			}
		}
	}
	if len(loadErrs) > 0 {
		return nil, loadErrs
	}
	merged, err := declcfg.MergeSources(sources, policy)
	if err != nil {
		return nil, err
	}
	out, notes, err := declcfg.Filter(merged.Config, opts.Selection)
	if err != nil {
		return nil, err
	}
	if out.IsEmpty() {
		return nil, fmt.Errorf("%w: the sources hold no catalog blobs", ErrEmpty)
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

// readSource loads one catalog: a local directory, file or "-", or through
// Render an image reference.
func readSource(ctx context.Context, loc string, local bool, opts Options) (*declcfg.DeclarativeConfig, error) {
	if !local {
		if opts.Render == nil {
			return nil, fmt.Errorf("no such file or directory (and catalog images cannot be read here)")
		}
		return opts.Render(ctx, loc)
	}
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
