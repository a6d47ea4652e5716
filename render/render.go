// Package render turns sources into file-based catalog blobs: bundle
// directories and bundle images become olm.bundle blobs exactly as opm
// renders them; catalog directories, files, standard input and catalog
// images are loaded as they are. It also owns the catalog migrations
// (bundle-object-to-csv-metadata) and the derivation of packages and
// channels from bundles (--with-channels).
package render

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
	"text/template"

	"github.com/fbc-project/fbc/declcfg"
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

// Options tunes Render.
type Options struct {
	// MigrateLevel runs the migrations up to and including this one ("" or
	// "none" runs none); see MigrationLevels.
	MigrateLevel string
	// ImageRefTemplate is a Go text/template over .Package, .Name and
	// .Version that sets the image of bundles rendered from directories.
	ImageRefTemplate string
	// WithChannels also derives olm.package and olm.channel blobs from the
	// bundles' channel annotations and CSV upgrade edges.
	WithChannels bool
	// Allowed restricts the source kinds (zero allows all).
	Allowed Kind
	// Stdin is read for the source "-" (default os.Stdin).
	Stdin io.Reader
	// Jobs bounds how many sources render at once (default: 2 per CPU).
	Jobs int
	// Warn receives warnings (ignored files and the like); nil drops them.
	// It may be called from several goroutines at once.
	Warn func(msg string)
}

func (o Options) allowed() Kind {
	if o.Allowed == 0 {
		return KindAll
	}
	return o.Allowed
}

func (o Options) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return 2 * runtime.NumCPU()
}

func (o Options) template() (*template.Template, error) {
	if o.ImageRefTemplate == "" {
		return nil, nil
	}
	t, err := template.New("image-ref-template").Option("missingkey=error").Parse(o.ImageRefTemplate)
	if err != nil {
		return nil, fmt.Errorf("parsing the image reference template: %w", err)
	}
	return t, nil
}

// ErrNotAllowed is wrapped by errors for sources of a kind Options.Allowed
// excludes.
var ErrNotAllowed = errors.New("not allowed")

// result is one source's rendering.
type result struct {
	cfg     *declcfg.DeclarativeConfig
	bundles []*parsedBundle
	err     *Error
}

// Render renders every source and merges the results in argument order. It
// renders everything before returning: on any error the config is nil and
// the error is an Errors listing every failed source. Options errors (a bad
// template or migration level) are returned as plain errors.
func Render(ctx context.Context, refs []string, opts Options) (*declcfg.DeclarativeConfig, error) {
	tmpl, err := opts.template()
	if err != nil {
		return nil, err
	}
	migrations, err := migrationsUpTo(opts.MigrateLevel)
	if err != nil {
		return nil, err
	}
	results := make([]result, len(refs))
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, opts.jobs())
	)
	for i, ref := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results[i] = result{err: &Error{Source: ref, Err: ctx.Err()}}
				return
			}
			defer func() { <-slots }()
			results[i] = renderOne(ctx, ref, opts, tmpl, migrations)
		}()
	}
	wg.Wait()

	var errs Errors
	out := &declcfg.DeclarativeConfig{}
	var bundles []*parsedBundle
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		out.Merge(r.cfg)
		bundles = append(bundles, r.bundles...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if opts.WithChannels {
		if err := addChannels(out, bundles); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RenderBundle renders one bundle source, a bundle directory or a bundle
// image, into an olm.bundle. A non-empty image becomes the bundle's image
// (and so enters its related images) whatever the source is: templates use
// it to render a local copy of a bundle under the reference they name.
// Migrations and the image reference template apply as in Render.
func RenderBundle(ctx context.Context, ref, image string, opts Options) (*declcfg.Bundle, error) {
	tmpl, err := opts.template()
	if err != nil {
		return nil, err
	}
	ms, err := migrationsUpTo(opts.MigrateLevel)
	if err != nil {
		return nil, err
	}
	kind, err := classify(ref)
	switch {
	case err != nil:
		return nil, &Error{Source: ref, Err: err}
	case kind != KindBundleDir:
		return nil, &Error{Source: ref, Invalid: true, Err: fmt.Errorf("not a bundle: a %s (a bundle directory holds manifests/ and metadata/)", kind)}
	case !opts.allowed().has(kind):
		return nil, &Error{Source: ref, Err: notAllowed(kind, ref)}
	}
	pb, perr := parseBundle(dirBundleFiles(ref), bundleOptions{Image: image, ImageTemplate: tmpl, Warn: opts.Warn})
	if perr != nil {
		return nil, perr
	}
	cfg := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{pb.Bundle}}
	if r := finish(ref, cfg, nil, ms); r.err != nil {
		return nil, r.err
	}
	return &cfg.Bundles[0], nil
}

// renderOne classifies one source the way opm does and renders it.
func renderOne(ctx context.Context, ref string, opts Options, tmpl *template.Template, migrations []migration) result {
	fail := func(err error) result {
		var e *Error
		if errors.As(err, &e) {
			return result{err: e}
		}
		return result{err: &Error{Source: ref, Err: err}}
	}
	kind, err := classify(ref)
	if err != nil {
		return fail(err)
	}
	if !opts.allowed().has(kind) {
		return fail(notAllowed(kind, ref))
	}
	if kind == KindBundleDir {
		pb, perr := parseBundle(dirBundleFiles(ref), bundleOptions{ImageTemplate: tmpl, Warn: opts.Warn})
		if perr != nil {
			return result{err: perr}
		}
		cfg := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{pb.Bundle}}
		return finish(ref, cfg, []*parsedBundle{pb}, migrations)
	}
	cfg, err := loadCatalog(ctx, ref, opts)
	if err != nil {
		if kind == KindCatalogDir {
			err = withBundleDirHint(ref, err)
		}
		return fail(err)
	}
	return finish(ref, cfg, nil, migrations)
}

// classify applies opm's rules: "-" is standard input, a directory with
// manifests/ and metadata/ a bundle, any other directory a catalog; fbc
// also reads a single catalog file.
func classify(ref string) (Kind, error) {
	if ref == "-" {
		return KindStdin, nil
	}
	st, err := os.Stat(ref)
	switch {
	case err != nil:
		return 0, unwrapPathError(err)
	case !st.IsDir():
		return KindCatalogFile, nil
	case isBundleDir(ref):
		return KindBundleDir, nil
	}
	return KindCatalogDir, nil
}

// finish applies the per-source steps opm applies after rendering: object
// properties last, related images sorted, migrations.
func finish(ref string, cfg *declcfg.DeclarativeConfig, bundles []*parsedBundle, migrations []migration) result {
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		b.Properties = moveObjectsLast(b.Properties)
		sortRelatedImages(b.RelatedImages)
	}
	for _, m := range migrations {
		if err := m.run(cfg); err != nil {
			return result{err: &Error{Source: ref, Err: fmt.Errorf("migration %s: %w", m.name, err), Invalid: true}}
		}
	}
	// Bundles rendered here carry the migrated blob to --with-channels.
	for _, pb := range bundles {
		for _, b := range cfg.Bundles {
			if b.Name == pb.Bundle.Name {
				pb.Bundle = b
			}
		}
	}
	return result{cfg: cfg, bundles: bundles}
}

func (k Kind) has(other Kind) bool { return k&other == other }

func notAllowed(k Kind, ref string) error {
	return fmt.Errorf("cannot render %s %q here: %w", k, ref, ErrNotAllowed)
}

// isBundleDir applies opm's rule: a directory with both manifests/ and
// metadata/ subdirectories.
func isBundleDir(dir string) bool {
	m, err1 := os.Stat(filepath.Join(dir, "manifests"))
	md, err2 := os.Stat(filepath.Join(dir, "metadata"))
	return err1 == nil && err2 == nil && m.IsDir() && md.IsDir()
}

// dirBundleFiles reads a bundle directory.
func dirBundleFiles(dir string) bundleFiles {
	return bundleFiles{
		Source:    dir,
		FS:        os.DirFS(dir),
		Manifests: "manifests",
		Metadata:  "metadata",
		Display:   func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) },
	}
}

// loadCatalog loads an FBC directory, file or stream.
func loadCatalog(ctx context.Context, ref string, opts Options) (*declcfg.DeclarativeConfig, error) {
	cfg, err := declcfg.Load(ctx, []string{ref}, declcfg.LoadOptions{Stdin: opts.Stdin})
	if err != nil {
		var les declcfg.LoadErrors
		if errors.As(err, &les) {
			return nil, &Error{Source: ref, Err: err, Invalid: !les.HasIO()}
		}
		return nil, &Error{Source: ref, Err: err}
	}
	return cfg, nil
}

// withBundleDirHint explains a common mistake: passing a directory of
// bundle directories, which opm (and so fbc) reads as a catalog.
func withBundleDirHint(dir string, err error) error {
	entries, rerr := os.ReadDir(dir)
	if rerr != nil {
		return err
	}
	var bundles []string
	for _, e := range entries {
		if e.IsDir() && isBundleDir(filepath.Join(dir, e.Name())) {
			bundles = append(bundles, e.Name())
		}
	}
	if len(bundles) == 0 {
		return err
	}
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	e.Err = fmt.Errorf("%w\n(%s is read as a catalog directory, but it holds bundle directories such as %s: pass each bundle as its own argument, e.g. %s)",
		e.Err, dir, bundles[0], filepath.Join(dir, "*"))
	return e
}
