// Package compose builds one catalog out of several: it reads catalog
// directories, files and images (and the references of a catalog config)
// through a render.Renderer, merges them package by package (conflicts and
// their policy), selects part of the result (filters, subsets that re-draw
// channels, dependencies), and writes the packages as folders of a catalog
// tree.
package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
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
	// Renderer reads every source: directories, files, standard input and
	// catalog images (default: a Renderer with zero Options).
	Renderer *render.Renderer
	// Keep, when set, says as each document of a source is read whether
	// its package's blobs are kept: the documents of a package it refuses
	// are skipped before they are decoded, problems and all (package-less
	// blobs are always kept), so that a caller wanting a few packages of a
	// large catalog neither decodes nor holds the rest. It sees the package
	// of every document of every source, and may be called from several
	// goroutines at once.
	Keep func(pkg string) bool
	// Cut, when set, selects part of the merged catalog in place of
	// Selection: it returns what is kept and notes for the user, and its
	// error fails Compose as it is.
	Cut func(*declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []Note, error)
}

// Result is a composed catalog and where each package goes. Config holds
// its bundles' large olm.bundle.object and olm.csv.metadata values in a
// temporary file (placeholders stand in for them): Expand and EachPackage
// put them back a part at a time, and run the migrations. Close releases
// the file.
type Result struct {
	Config *declcfg.DeclarativeConfig
	// Folder maps a package to its folder in the output tree.
	Folder func(pkg string) string
	// Notes are what merging and selecting changed on their own, or could
	// not do, for the user to read.
	Notes []Note
	// Validation is the result's validation, when ToDir validated it.
	Validation *validate.Result

	spool   *valueSpool
	migrate string
}

// Expand returns part of Config (some of its blobs) as it is written: with
// its spooled values back and the migrations run. part is not changed.
func (r *Result) Expand(part *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	out, err := r.spool.restore(part)
	if err != nil {
		return nil, err
	}
	if err := render.Migrate(out, r.migrate); err != nil {
		return nil, err
	}
	return out, nil
}

// EachPackage hands fn the composed catalog a package at a time, expanded,
// in package order (the package-less blobs first, when there are any): only
// one package's values are in memory at a time.
func (r *Result) EachPackage(fn func(*declcfg.DeclarativeConfig) error) error {
	parts := byPackage(r.Config)
	for _, name := range sortedKeys(parts) {
		part, err := r.Expand(parts[name])
		if err != nil {
			return err
		}
		if err := fn(part); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the file that holds the spooled values.
func (r *Result) Close() error { return r.spool.Close() }

// SourceError is a source that could not be read: a path that does not
// exist, a bundle directory given as a catalog, an image that cannot be
// pulled, or content that does not parse. Its kind is Err's.
type SourceError struct {
	Source string
	Err    error
}

func (e *SourceError) Error() string {
	var les declcfg.LoadErrors
	var re *render.Error
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

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (es SourceErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// FaultKind is Input when every source failed for its content, and Run
// when any could not be read.
func (es SourceErrors) FaultKind() fault.Kind {
	for _, e := range es {
		if fault.KindOf(e) != fault.Input {
			return fault.Run
		}
	}
	if len(es) == 0 {
		return fault.Run
	}
	return fault.Input
}

// ErrEmpty is returned (wrapped) when nothing is left to write. It is a Run
// error: nothing to work on must not pass as a finding or an empty success.
var ErrEmpty = fault.Wrap(fault.Run, errors.New("nothing to compose"))

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
// sources is a *ConflictError (Input) and a selection that does not fit is
// a *SelectionError (Usage).
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
	spool := newValueSpool("")
	res, err := compose(ctx, origins, opts, policy, spool)
	if err != nil {
		spool.Close()
		return nil, err
	}
	return res, nil
}

// compose is Compose once the sources are known, their large values going
// to spool as they are read.
func compose(ctx context.Context, origins []origin, opts Options, policy ConflictPolicy, spool *valueSpool) (*Result, error) {
	cfgs, err := readSources(ctx, origins, opts, spool)
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
	cut := opts.Cut
	if cut == nil {
		cut = func(cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []Note, error) {
			return Filter(cfg, opts.Selection)
		}
	}
	out, notes, err := cut(merged.Config)
	if err != nil {
		return nil, err
	}
	if out.IsEmpty() {
		names := make([]string, len(origins))
		for i, o := range origins {
			names[i] = declcfg.ShowPath(o.name)
		}
		verb := "hold"
		if len(names) == 1 {
			verb = "holds"
		}
		return nil, fmt.Errorf("%w: %s %s no catalog blobs", ErrEmpty, listNames(names, 10), verb)
	}
	// The migrations run as the result is expanded (Result.Expand), on
	// each part with its values back; a level they do not know fails here.
	if err := render.Migrate(&declcfg.DeclarativeConfig{}, opts.MigrateLevel); err != nil {
		return nil, err
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
		Config:  out,
		Folder:  func(pkg string) string { return folders[pkg] },
		Notes:   append(merged.Notes, notes...),
		spool:   spool,
		migrate: opts.MigrateLevel,
	}, nil
}

// readSources reads every source through the renderer, several at once.
// Local sources are checked first, so that a missing path or a bundle
// directory is reported as such rather than as an image reference.
func readSources(ctx context.Context, origins []origin, opts Options, spool *valueSpool) ([]*declcfg.DeclarativeConfig, error) {
	r := opts.Renderer
	if r == nil {
		var err error
		if r, err = render.New(render.Options{}); err != nil {
			return nil, err
		}
	}
	errs := make([]*SourceError, len(origins))
	var locs []string
	var index []int // origin of each loc
	for i, o := range origins {
		if o.local {
			if err := checkLocal(o.loc); err != nil {
				errs[i] = &SourceError{Source: o.name, Err: err}
				continue
			}
		}
		locs = append(locs, o.loc)
		index = append(index, i)
	}
	cfgs := make([]*declcfg.DeclarativeConfig, len(origins))
	if len(locs) > 0 {
		req := render.Request{Allowed: render.KindCatalogs, CatalogsAsLoaded: true,
			Part: func(_ int, part *declcfg.DeclarativeConfig) error { return spool.stash(part) }}
		if opts.Keep != nil {
			// Documents of other packages are not even decoded.
			req.Keep = func(_ int, doc declcfg.Document) bool {
				_, pkg, _ := doc.Identity()
				return pkg == "" || opts.Keep(pkg)
			}
		}
		rendered, err := r.RenderEach(ctx, locs, req)
		if err != nil {
			return nil, err
		}
		for k, res := range rendered {
			i := index[k]
			if res.Err != nil {
				errs[i] = &SourceError{Source: origins[i].name, Err: res.Err}
			}
			cfgs[i] = res.Config
		}
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

// checkLocal refuses a local source that does not exist or is a bundle
// directory.
func checkLocal(loc string) error {
	if loc == "-" {
		return nil
	}
	st, err := os.Stat(loc)
	if err != nil {
		return unwrapPathError(err)
	}
	if st.IsDir() && repo.IsBundleDir(loc) {
		return errors.New("is a bundle directory (manifests/ and metadata/), not a catalog: render it into a catalog first (fbc render)")
	}
	return nil
}
