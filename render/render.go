// Package render turns sources into file-based catalog blobs: bundle
// directories and bundle images become olm.bundle blobs exactly as opm
// renders them; catalog directories, files, standard input and catalog
// images are loaded as they are. It also owns the catalog migrations
// (bundle-object-to-csv-metadata) and the derivation of packages and
// channels from bundles (Request.WithChannels). One long-lived Renderer per
// command reads every source, with one image client.
package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/repo"
)

// Kind is a kind of source. Kinds combine as a mask in Options.Allowed.
type Kind uint

const (
	// KindBundleDir is a directory with manifests/ and metadata/.
	KindBundleDir Kind = 1 << iota
	// KindBundleImage is an image labelled with a bundle package.
	KindBundleImage
	// KindCatalogDir is any other directory: an FBC tree.
	KindCatalogDir
	// KindCatalogImage is an image labelled with a configs directory.
	KindCatalogImage
	// KindCatalogFile is a single FBC file (opm refuses files).
	KindCatalogFile
	// KindStdin is "-": an FBC stream on standard input.
	KindStdin

	// KindAll allows every kind.
	KindAll = KindBundleDir | KindBundleImage | KindCatalogDir | KindCatalogImage | KindCatalogFile | KindStdin
	// KindBundles allows bundle directories and images.
	KindBundles = KindBundleDir | KindBundleImage
	// KindCatalogs allows every catalog kind.
	KindCatalogs = KindCatalogDir | KindCatalogImage | KindCatalogFile | KindStdin
)

func (k Kind) String() string {
	switch k {
	case KindBundleDir:
		return "bundle directory"
	case KindBundleImage:
		return "bundle image"
	case KindCatalogDir:
		return "catalog directory"
	case KindCatalogImage:
		return "catalog image"
	case KindCatalogFile:
		return "catalog file"
	case KindStdin:
		return "standard input"
	}
	var names []string
	for b := KindBundleDir; b <= KindStdin; b <<= 1 {
		if k&b != 0 {
			names = append(names, b.String())
		}
	}
	return strings.Join(names, ", ")
}

// Options says how a Renderer reaches its sources. They hold for the
// Renderer's life: one Renderer serves a whole command.
type Options struct {
	// Image says how images are pulled (registry access, cache, platform).
	Image image.Options
	// Stdin is read for the source "-" (default os.Stdin).
	Stdin io.Reader
	// Jobs bounds how many sources render at once (default: 4 per CPU;
	// images mostly wait on the network).
	Jobs int
	// Warn receives warnings (ignored files and the like), possibly from
	// several goroutines at once; nil drops them.
	Warn fault.Warn
	// Inspect, when set, looks at each document of a local catalog (a
	// directory, a file, standard input) and returns the fields that the
	// blob types leave out, which render then warns about: the command
	// line passes validate.UnknownFields. Catalog images are not
	// inspected: their content is not the user's to fix.
	Inspect func(declcfg.Document) []*declcfg.LoadError
	// Progress, when set, counts every call's sources (found when a call
	// starts, done as each is rendered) and the files of catalog sources
	// (found when a directory or image has been listed, done as each is
	// read), from several goroutines.
	Progress *progress.Counter
}

// Request says what one call of a Renderer makes of its sources.
type Request struct {
	// Allowed restricts the source kinds (zero allows all).
	Allowed Kind
	// MigrateLevel runs the migrations up to and including this one ("" or
	// "none" runs none, "all" every one); see MigrationLevels.
	MigrateLevel string
	// ImageRefTemplate is a Go text/template over .Package, .Name and
	// .Version that sets the image of bundles rendered from directories.
	ImageRefTemplate string
	// WithChannels also derives olm.package and olm.channel blobs from the
	// bundles' channel annotations and CSV upgrade edges (Render only).
	WithChannels bool
	// CatalogsAsLoaded keeps the blobs of catalog sources exactly as they
	// were loaded. By default they are written as opm render writes them:
	// olm.bundle.object properties last, related images sorted. Callers
	// that pass catalogs through (merging, serving) set it.
	CatalogsAsLoaded bool
	// Part, when set, sees each part of a source (a catalog file's blobs,
	// a bundle) before RenderEach gathers it, with the source's index, and
	// may change it: compose moves large property values out of memory
	// there, so that a gathered catalog holds only what it needs. Parts of
	// different sources come from several goroutines at once. An error
	// fails the source.
	Part func(src int, part *declcfg.DeclarativeConfig) error
	// Keep, when set, is asked about each document of a catalog source (a
	// directory, a file, standard input or a catalog image) before it is
	// decoded, with the source's index (declcfg.LoadOptions.Keep): a
	// document it refuses is skipped, problems and all. OLM v1 resolution
	// keeps the packages it resolves, as operator-controller reads only
	// those. Documents of one source are asked about in catalog order;
	// those of different sources from several goroutines at once.
	Keep func(src int, doc declcfg.Document) bool
}

func (q Request) allowed() Kind {
	if q.Allowed == 0 {
		return KindAll
	}
	return q.Allowed
}

func (q Request) template() (*template.Template, error) {
	if q.ImageRefTemplate == "" {
		return nil, nil
	}
	t, err := template.New("image-ref-template").Option("missingkey=error").Parse(q.ImageRefTemplate)
	if err != nil {
		return nil, fault.Errorf(fault.Usage, "parsing the image reference template: %w", err)
	}
	return t, nil
}

// ErrNotAllowed is wrapped by errors for sources of a kind Request.Allowed
// excludes.
var ErrNotAllowed = errors.New("not allowed")

// result is one source's rendering: its blobs went to the call's sink as
// they were made; cfg holds them when the call gathers.
type result struct {
	cfg     *declcfg.DeclarativeConfig
	bundles []*parsedBundle
	err     *Error
}

// Sink receives a source's blobs as they are made, a part at a time (a
// bundle, or a catalog file's blobs), with the source's index. Parts of one
// source arrive in load order; parts of different sources from several
// goroutines at once. The part is the sink's to keep.
type Sink func(src int, part *declcfg.DeclarativeConfig) error

// source is one thing to render.
type source struct {
	ref string
	// image, for bundles, is the image reference to record instead of the
	// default (the reference of an image, the template's for a directory).
	image string
	// bundle restricts the source to bundles (RenderBundles).
	bundle bool
	// contents keeps the bundle's files (ReadBundles).
	contents bool
	// warn, when set, receives this source's warnings instead of
	// Options.Warn.
	warn fault.Warn
	// keep is Request.Keep for this source, nil without it.
	keep func(declcfg.Document) bool
}

func (r *call) warnFor(s source) fault.Warn {
	if s.warn != nil {
		return s.warn
	}
	return r.opts.Warn
}

// Renderer reads sources (bundle directories and images, catalog
// directories, files, standard input and images) into blobs. It is safe
// for concurrent use, and keeps one image client (connections, tokens, the
// cache) for all its calls, made on first use so that rendering only
// directories never touches the image cache.
type Renderer struct {
	opts Options

	clientOnce sync.Once
	client     *image.Client
	clientErr  error
}

// New returns a Renderer. Options that contradict each other are a Usage
// error.
func New(opts Options) (*Renderer, error) {
	if opts.Image.UseHTTP && opts.Image.SkipTLSVerify {
		return nil, fault.Errorf(fault.Usage, "plain HTTP (UseHTTP) and no TLS verification (SkipTLSVerify) cannot both be asked for: skipping TLS verification already allows plain HTTP")
	}
	return &Renderer{opts: opts}, nil
}

func (r *Renderer) jobs() int {
	if r.opts.Jobs > 0 {
		return r.opts.Jobs
	}
	return 4 * runtime.NumCPU()
}

// Offline reports whether the Renderer's images come only from the cache
// and local files.
func (r *Renderer) Offline() bool { return r.opts.Image.Offline }

// ErrOffline is in the chain of every error that an image missing from the
// cache caused while offline (Options.Image.Offline, CacheOnly).
var ErrOffline = image.ErrOffline

// CacheOnly returns a Renderer like r that takes images only from the
// cache and local files (r itself when it is offline already), for callers
// that look in the cache, then elsewhere, before they ask a registry.
func (r *Renderer) CacheOnly() *Renderer {
	if r.Offline() {
		return r
	}
	opts := r.opts
	opts.Image.Offline = true
	return &Renderer{opts: opts}
}

// images returns the image client, made on first use.
func (r *Renderer) images() (*image.Client, error) {
	r.clientOnce.Do(func() { r.client, r.clientErr = image.NewClient(r.opts.Image) })
	return r.client, r.clientErr
}

// call is one call of a Renderer: its request, the parsed image reference
// template and the migrations to run.
type call struct {
	*Renderer
	req        Request
	tmpl       *template.Template
	migrations []migration
}

func (r *Renderer) start(req Request) (*call, error) {
	tmpl, err := req.template()
	if err != nil {
		return nil, err
	}
	ms, err := migrationsUpTo(req.MigrateLevel)
	if err != nil {
		return nil, err
	}
	return &call{Renderer: r, req: req, tmpl: tmpl, migrations: ms}, nil
}

// run renders every source, Options.Jobs at a time, results in source
// order. With stopUnreachable, a registry that cannot be reached stops the
// sources not yet started: their failure would only repeat the same news.
// Blobs go to sink as they are made; with a nil sink each result gathers
// its source's blobs.
func (r *call) run(ctx context.Context, srcs []source, stopUnreachable bool, sink Sink) []result {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]result, len(srcs))
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, r.jobs())
	)
	r.opts.Progress.Found(len(srcs))
	for i, s := range srcs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			results[i] = result{err: &Error{Source: s.ref, Err: ctx.Err()}}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			results[i] = r.renderTo(ctx, s, i, sink)
			if e := results[i].err; e != nil && stopUnreachable && unreachable(e.Err) {
				cancel()
			}
			r.opts.Progress.Done(1)
		}()
	}
	wg.Wait()
	if parent.Err() == nil && ctx.Err() != nil {
		// Drop the cancellations the unreachable registry caused.
		for i := range results {
			if e := results[i].err; e != nil && errors.Is(e.Err, context.Canceled) {
				results[i] = result{}
			}
		}
	}
	return results
}

// collect merges results in order, or gathers their errors.
func collect(results []result) (*declcfg.DeclarativeConfig, []*parsedBundle, error) {
	var errs Errors
	out := &declcfg.DeclarativeConfig{}
	var bundles []*parsedBundle
	for _, res := range results {
		switch {
		case res.err != nil:
			errs = append(errs, res.err)
		default:
			out.Merge(res.cfg)
			bundles = append(bundles, res.bundles...)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return out, bundles, nil
}

// Render renders every source and merges the results in argument order. It
// renders everything before returning: on any error the config is nil and
// the error is an Errors listing every failed source. A request that does
// not fit (a bad template or migration level) is a Usage error.
func (r *Renderer) Render(ctx context.Context, refs []string, req Request) (*declcfg.DeclarativeConfig, error) {
	c, err := r.start(req)
	if err != nil {
		return nil, err
	}
	out, bundles, err := collect(c.run(ctx, sources(refs), true, nil))
	if err != nil {
		return nil, err
	}
	if req.WithChannels {
		derived, err := deriveChannels(out.Packages, bundles)
		if err != nil {
			return nil, err
		}
		out.Merge(derived)
	}
	return out, nil
}

// RenderTo renders what opm render writes, without gathering: each
// source's blobs go to sink as they are made, so that a catalog is held a
// file at a time (a declcfg.Spool writes them in opm's order). The blobs
// WithChannels derives come last, as the source len(refs). Blobs of the
// OLM schemas that name no package, which opm's writer leaves out, are not
// handed over: Options.Warn is told of each. Every source is rendered
// before RenderTo returns; on any error, it is an Errors as Render's, and
// the sink has seen the blobs of the sources that rendered: the caller
// discards them.
func (r *Renderer) RenderTo(ctx context.Context, refs []string, req Request, sink Sink) error {
	c, err := r.start(req)
	if err != nil {
		return err
	}
	var (
		mu      sync.Mutex
		defined = make([][]declcfg.Package, len(refs)) // each source's packages, for WithChannels
	)
	record := func(src int, part *declcfg.DeclarativeConfig) error {
		r.leaveOutPackageless(part)
		if req.WithChannels {
			mu.Lock()
			for _, p := range part.Packages {
				defined[src] = append(defined[src], declcfg.Package{Name: strings.Clone(p.Name), Pos: p.Pos})
			}
			mu.Unlock()
		}
		return sink(src, part)
	}
	_, bundles, err := collect(c.run(ctx, sources(refs), true, record))
	if err != nil || !req.WithChannels {
		return err
	}
	derived, err := deriveChannels(slices.Concat(defined...), bundles)
	if err != nil {
		return err
	}
	return sink(len(refs), derived)
}

// leaveOutPackageless removes the olm.package, olm.channel, olm.bundle and
// olm.deprecations blobs that name no package, as opm's writer does, and
// says so for each (the blobs of other schemas without a package are
// written, after every package).
func (r *Renderer) leaveOutPackageless(cfg *declcfg.DeclarativeConfig) {
	warn := func(pos declcfg.Pos, what string) {
		if r.opts.Warn != nil {
			r.opts.Warn(fmt.Sprintf("%s: %s names no package: left out of the output, as opm render leaves it out", pos, what))
		}
	}
	cfg.Packages = slices.DeleteFunc(cfg.Packages, func(p declcfg.Package) bool {
		if p.Name != "" {
			return false
		}
		warn(p.Pos, "an olm.package blob")
		return true
	})
	cfg.Channels = slices.DeleteFunc(cfg.Channels, func(c declcfg.Channel) bool {
		if c.Package != "" {
			return false
		}
		warn(c.Pos, fmt.Sprintf("olm.channel %q", c.Name))
		return true
	})
	cfg.Bundles = slices.DeleteFunc(cfg.Bundles, func(b declcfg.Bundle) bool {
		if b.Package != "" {
			return false
		}
		warn(b.Pos, fmt.Sprintf("olm.bundle %q", b.Name))
		return true
	})
	cfg.Deprecations = slices.DeleteFunc(cfg.Deprecations, func(d declcfg.Deprecation) bool {
		if d.Package != "" {
			return false
		}
		warn(d.Pos, "an olm.deprecations blob")
		return true
	})
}

// Rendered is what became of one source of RenderEach: its blobs, or why
// it failed.
type Rendered struct {
	Config *declcfg.DeclarativeConfig
	Err    *Error
}

// RenderEach renders every source on its own, Options.Jobs at a time, and
// returns what became of each, in order: callers that keep sources apart
// (merging catalogs, serving several) use it. Every source is tried, even
// after a registry could not be reached. Request.WithChannels does not
// apply. A request that does not fit is a Usage error.
func (r *Renderer) RenderEach(ctx context.Context, refs []string, req Request) ([]Rendered, error) {
	c, err := r.start(req)
	if err != nil {
		return nil, err
	}
	results := c.run(ctx, sources(refs), false, nil)
	out := make([]Rendered, len(results))
	for i, res := range results {
		out[i] = Rendered{Config: res.cfg, Err: res.err}
	}
	return out, nil
}

func sources(refs []string) []source {
	srcs := make([]source, len(refs))
	for i, ref := range refs {
		srcs[i] = source{ref: ref}
	}
	return srcs
}

// BundleSource names one bundle to render: Ref is a bundle directory or a
// bundle image; Image, when set, becomes the bundle's image (and so enters
// its related images) whatever Ref is. Templates use it to render a local
// copy of a bundle under the reference they name (an image map).
type BundleSource struct {
	Ref   string
	Image string
}

// RenderBundles renders bundle sources, Options.Jobs at a time, into one
// olm.bundle each, in order. Catalog sources are refused. Migrations and the
// image reference template apply as in Render; WithChannels does not.
func (r *Renderer) RenderBundles(ctx context.Context, srcs []BundleSource, req Request) ([]declcfg.Bundle, error) {
	c, ss, err := r.startBundles(srcs, req)
	if err != nil {
		return nil, err
	}
	out, _, err := collect(c.run(ctx, ss, true, nil))
	if err != nil {
		return nil, err
	}
	return out.Bundles, nil
}

// startBundles starts a rendering of bundle sources only.
func (r *Renderer) startBundles(srcs []BundleSource, req Request) (*call, []source, error) {
	c, err := r.start(req)
	if err != nil {
		return nil, nil, err
	}
	ss := make([]source, len(srcs))
	for i, s := range srcs {
		ss[i] = source{ref: s.Ref, image: s.Image, bundle: true}
	}
	return c, ss, nil
}

// RenderBundlesEach renders bundle sources as RenderBundles does, and
// returns what became of each, in order, instead of failing as a whole:
// the one olm.bundle of each source that could be read, or why it could
// not. Once a registry could not be reached, sources not yet rendered are
// not started, and their Err says so.
func (r *Renderer) RenderBundlesEach(ctx context.Context, srcs []BundleSource, req Request) ([]Rendered, error) {
	c, ss, err := r.startBundles(srcs, req)
	if err != nil {
		return nil, err
	}
	results := c.run(ctx, ss, true, nil)
	out := make([]Rendered, len(results))
	for i, res := range results {
		out[i] = Rendered{Config: res.cfg, Err: res.err}
		if res.err == nil && res.cfg == nil {
			out[i].Err = &Error{Source: ss[i].ref, Err: errors.New("not read: the reading stopped when a registry could not be reached")}
		}
	}
	return out, nil
}

// RenderBundle renders one bundle source; see RenderBundles.
func (r *Renderer) RenderBundle(ctx context.Context, ref, image string, req Request) (*declcfg.Bundle, error) {
	bs, err := r.RenderBundles(ctx, []BundleSource{{Ref: ref, Image: image}}, req)
	if err != nil {
		return nil, err
	}
	return &bs[0], nil
}

// renderTo renders source i into sink, or into the result's cfg when sink
// is nil.
func (r *call) renderTo(ctx context.Context, s source, i int, sink Sink) result {
	if r.req.Keep != nil {
		s.keep = func(doc declcfg.Document) bool { return r.req.Keep(i, doc) }
	}
	if sink == nil {
		cfg := &declcfg.DeclarativeConfig{}
		res := r.render(ctx, s, func(part *declcfg.DeclarativeConfig) error {
			if r.req.Part != nil {
				if err := r.req.Part(i, part); err != nil {
					return err
				}
			}
			cfg.Merge(part)
			return nil
		})
		if res.err == nil {
			res.cfg = cfg
		}
		return res
	}
	return r.render(ctx, s, func(part *declcfg.DeclarativeConfig) error { return sink(i, part) })
}

// render classifies one source the way opm does and renders it, handing
// its blobs to emit as they are made (a catalog a file at a time).
func (r *call) render(ctx context.Context, s source, emit func(*declcfg.DeclarativeConfig) error) result {
	fail := func(err error, invalid bool) result {
		var e *Error
		if errors.As(err, &e) {
			return result{err: e}
		}
		return result{err: &Error{Source: s.ref, Err: err, Invalid: invalid}}
	}
	kind, err := classify(s.ref)
	if err != nil {
		return fail(err, false)
	}
	if kind == kindImage {
		return r.renderImage(ctx, s, emit)
	}
	if s.bundle && kind != KindBundleDir {
		return fail(fmt.Errorf("not a bundle: a %s (a bundle directory holds manifests/ and metadata/)", kind), true)
	}
	if !r.req.allowed().has(kind) {
		return fail(notAllowed(kind, s.ref), false)
	}
	if kind == KindBundleDir {
		pb, perr := parseBundle(dirBundleFiles(s.ref), bundleOptions{Image: s.image, ImageTemplate: r.tmpl, Warn: r.warnFor(s), KeepFiles: s.contents})
		if perr != nil {
			return result{err: perr}
		}
		return r.emitBundle(s.ref, pb, emit)
	}
	blobs := 0
	err = loadCatalog(ctx, s.ref, r.opts, s.keep, func(part *declcfg.DeclarativeConfig) error {
		blobs++
		return r.emitCatalog(s.ref, part, emit)
	})
	if err != nil {
		if kind == KindCatalogDir {
			err = withBundleDirHint(s.ref, err)
		}
		return fail(err, false)
	}
	if blobs == 0 && r.opts.Warn != nil && s.keep == nil {
		// Valid (opm renders it to nothing too), but an empty output file
		// is rarely what was meant.
		if kind == KindStdin {
			r.opts.Warn("standard input holds no catalog blobs")
		} else {
			r.opts.Warn(fmt.Sprintf("%s: no catalog blobs in this %s", s.ref, kind))
		}
	}
	return result{}
}

// kindImage marks a source to be opened as an image; its labels say which
// image kind it is.
const kindImage Kind = 1 << 31

// classify applies opm's rules: "-" is standard input; a path that exists
// is a bundle directory (with manifests/ and metadata/), another directory
// or a file; anything else is an image reference (and so are fbc's oci:,
// oci-archive: and docker-archive: references).
func classify(ref string) (Kind, error) {
	if ref == "-" {
		return KindStdin, nil
	}
	p := repo.Classify(ref)
	err := p.Err
	switch {
	case p.Kind == repo.KindLocalImage:
		return kindImage, nil
	case errors.Is(err, fs.ErrNotExist):
		if !hasRegistryHost(ref) {
			return 0, errors.New("no such file or directory (an image reference names its registry: quay.io/org/repo:tag, docker.io/library/name:tag, localhost:5000/repo:tag)")
		}
		if _, perr := image.ParseReference(ref); perr != nil {
			return 0, fmt.Errorf("no such file or directory, and not an image reference either (%v)", perr)
		}
		return kindImage, nil
	case err != nil:
		return 0, unwrapPathError(err)
	case p.Kind == repo.KindBundleDir:
		return KindBundleDir, nil
	case !p.IsDir:
		return KindCatalogFile, nil
	}
	return KindCatalogDir, nil
}

// hasRegistryHost reports whether ref starts with a registry host, as opm
// requires (it refuses names that are not canonical). A missing path like
// "bundels/foo" or "./foo" is then reported as one, not pulled from
// docker.io.
func hasRegistryHost(ref string) bool {
	host, _, ok := strings.Cut(ref, "/")
	return ok && (strings.ContainsAny(host, ".:") || host == "localhost") && host != "." && host != ".."
}

// finish applies the steps opm applies after rendering, to a part of a
// source: object properties last, related images sorted, migrations.
// Bundles rendered here always get opm's order; a catalog's only when it is
// not to be kept as loaded.
func (r *call) finish(ref string, cfg *declcfg.DeclarativeConfig, rendered bool) *Error {
	if rendered || !r.req.CatalogsAsLoaded {
		for i := range cfg.Bundles {
			b := &cfg.Bundles[i]
			b.Properties = moveObjectsLast(b.Properties)
			sortRelatedImages(b.RelatedImages)
		}
	}
	for _, m := range r.migrations {
		if err := m.run(cfg); err != nil {
			return &Error{Source: ref, Err: fmt.Errorf("migration %s: %w", m.name, err), Invalid: true}
		}
	}
	return nil
}

// emitCatalog finishes a part of a catalog source and hands it over. An
// error from emit is passed back as it is.
func (r *call) emitCatalog(ref string, part *declcfg.DeclarativeConfig, emit func(*declcfg.DeclarativeConfig) error) error {
	if err := r.finish(ref, part, false); err != nil {
		return err
	}
	return emit(part)
}

// emitBundle finishes a rendered bundle, hands it over, and keeps it (as
// migrated) for WithChannels.
func (r *call) emitBundle(ref string, pb *parsedBundle, emit func(*declcfg.DeclarativeConfig) error) result {
	cfg := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{pb.Bundle}}
	if err := r.finish(ref, cfg, true); err != nil {
		return result{err: err}
	}
	pb.Bundle = cfg.Bundles[0]
	if err := emit(cfg); err != nil {
		return result{err: &Error{Source: ref, Err: err}}
	}
	return result{bundles: []*parsedBundle{pb}}
}

func (k Kind) has(other Kind) bool { return k&other == other }

func notAllowed(k Kind, ref string) error {
	return fmt.Errorf("cannot render %s %q here: %w", k, ref, ErrNotAllowed)
}

// dirBundleFiles reads a bundle directory.
func dirBundleFiles(dir string) bundleFiles {
	tree, _ := safefs.NewTree(dir) // nil when dir cannot be resolved: reading it fails anyway
	return bundleFiles{
		Source:    dir,
		Tree:      tree,
		FS:        safefs.DirFS(dir),
		Manifests: "manifests",
		Metadata:  "metadata",
		Display:   func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) },
	}
}

// loadCatalog loads an FBC directory, file or stream, handing fn each
// file's blobs.
func loadCatalog(ctx context.Context, ref string, opts Options, keep func(declcfg.Document) bool, fn func(*declcfg.DeclarativeConfig) error) error {
	// The blobs handed to fn own their values, and each file's documents
	// are dropped once decoded: long values need not be copied first.
	lo := declcfg.LoadOptions{Stdin: opts.Stdin, Warn: opts.Warn, Keep: keep, Walk: declcfg.WalkOptions{Borrow: true, Progress: opts.Progress}}
	if opts.Inspect != nil {
		lo.Inspect = func(doc declcfg.Document) []*declcfg.LoadError {
			found := opts.Inspect(doc)
			for _, e := range found {
				e.Msg += " (ignored, as opm does)"
			}
			return found
		}
	}
	if e := catalogError(ref, declcfg.LoadEach(ctx, []string{ref}, lo, fn)); e != nil {
		return e
	}
	return nil
}

// catalogError makes a load's error a source's: the catalog's content is
// at fault unless a file could not be read. Errors that are already a
// source's pass as they are.
func catalogError(ref string, err error) *Error {
	var e *Error
	var les declcfg.LoadErrors
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return e
	case errors.As(err, &les):
		return &Error{Source: ref, Err: err, Invalid: !les.HasIO()}
	}
	return &Error{Source: ref, Err: err}
}

// withBundleDirHint explains two common mistakes, both read as a catalog
// directory as opm does: a directory of bundle directories, and a bundle
// whose manifests are not in manifests/ and metadata/.
func withBundleDirHint(dir string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil {
		return err
	}
	var bundles, csvs []string
	for _, de := range entries {
		switch {
		case de.IsDir() && repo.IsBundleDir(filepath.Join(dir, de.Name())):
			bundles = append(bundles, de.Name())
		case !de.IsDir() && strings.Contains(strings.ToLower(de.Name()), "clusterserviceversion"):
			csvs = append(csvs, de.Name())
		}
	}
	switch {
	case len(bundles) == 1:
		e.Err = fmt.Errorf("%w\n(%s is read as a catalog directory, but it holds one bundle directory, %s: pass that instead, %s)",
			e.Err, dir, bundles[0], filepath.Join(dir, bundles[0]))
	case len(bundles) > 0:
		e.Err = fmt.Errorf("%w\n(%s is read as a catalog directory, but it holds bundle directories such as %s: pass each bundle as its own argument, e.g. %s)",
			e.Err, dir, bundles[0], filepath.Join(dir, "*")+string(filepath.Separator))
	case len(csvs) > 0:
		e.Err = fmt.Errorf("%w\n(%s is read as a catalog directory, but it holds %s: a bundle directory keeps its manifests in manifests/ and its annotations in metadata/)",
			e.Err, dir, csvs[0])
	}
	return e
}
