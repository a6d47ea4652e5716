package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/template"
)

// Finder finds bundle images in an operator repository, offline: the
// bundle blob with that image in the operator's published catalogs
// (catalogs/*/<operator>/, whatever package the blob names), or the
// bundle directory of the image's version in operators/<operator>/ (named
// by the image's tag, or by the version of the blob found). Each catalog
// file and each bundle directory is read once, on first need, however many
// templates and catalogs ask.
//
// Catalogs from v4.17 on hold bundles with olm.csv.metadata instead of
// their manifests (olm.bundle.object). For a catalog rendered without that
// migration, a blob that still has its manifests is taken first, then the
// bundle directory, and a migrated blob only as a last resort (with a
// warning); for one rendered with it, any blob of the image will do.
type Finder struct {
	op   *repo.Operator
	r    *render.Renderer
	warn fault.Warn
	// show names a path in messages.
	show func(string) string

	// fixed maps images to bundle directories that are theirs by
	// definition (the bundle being released).
	fixed map[string]string

	mu      sync.Mutex
	loaded  bool
	files   []repo.CatalogFile
	blobs   map[string]*foundBlob
	dirs    map[string]*dirResult
	warned  map[string]bool
	catalog int // catalog files read, for Stats
	bundles int // bundle directories rendered, for Stats
}

type foundBlob struct {
	bundle declcfg.Bundle
	full   bool // it has its olm.bundle.object properties
	file   string
}

type dirResult struct {
	once   sync.Once
	bundle *declcfg.Bundle
	err    error
}

// NewFinder returns a Finder for an operator's bundle images; r renders its
// bundle directories.
// Paths in its messages are shown from workDir when they are under it
// ("" shows them from the repository's root).
func NewFinder(op *repo.Operator, r *render.Renderer, workDir string, warn fault.Warn) *Finder {
	f := &Finder{op: op, r: r, warn: warn, fixed: map[string]string{}, dirs: map[string]*dirResult{}, warned: map[string]bool{}}
	f.show = func(p string) string { return relTo(op.Repo.Root, p) }
	if workDir != "" {
		f.show = func(p string) string { return showFrom(workDir, p) }
	}
	return f
}

// Fix makes image resolve to the bundle directory dir, before anything
// else is asked.
func (f *Finder) Fix(image, dir string) { f.fixed[image] = dir }

// ForLevel is the Finder for templates rendered with migrate level
// csvMetadata or without.
func (f *Finder) ForLevel(csvMetadata bool) template.Finder {
	return levelFinder{f: f, csvMetadata: csvMetadata}
}

type levelFinder struct {
	f           *Finder
	csvMetadata bool
}

func (l levelFinder) Find(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
	return l.f.find(ctx, ref, l.csvMetadata)
}

func (l levelFinder) Where(ref string) string { return l.f.where(ref) }

func (l levelFinder) Whole(ctx context.Context, ref string) (*declcfg.Bundle, error) {
	return l.f.Whole(ctx, ref)
}

// Blob returns the published bundle blob of an image and the catalog file
// it is in, if the package's catalogs have one.
func (f *Finder) Blob(ctx context.Context, image string) (*declcfg.Bundle, string, error) {
	if err := f.load(ctx); err != nil {
		return nil, "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.blobs[image]; ok {
		return &b.bundle, b.file, nil
	}
	return nil, "", nil
}

// load reads the package's published catalogs, once.
func (f *Finder) load(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded {
		return nil
	}
	if err := f.op.Repo.CheckPackageLinks(f.op.Name); err != nil {
		var le *repo.LinkOutError
		if errors.As(err, &le) {
			le.Show = f.show
		}
		return err
	}
	files, err := f.op.Repo.PackageCatalogs(f.op.Name)
	if err != nil {
		return fmt.Errorf("listing the published catalogs: %w", err)
	}
	f.files, f.blobs = files, map[string]*foundBlob{}
	for _, cf := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		cfg, err := declcfg.Load(ctx, []string{cf.Path}, declcfg.LoadOptions{})
		f.catalog++
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			msg, line := firstLine(err), 0
			var les declcfg.LoadErrors
			if errors.As(err, &les) && len(les) > 0 {
				msg, line = les[0].Msg, les[0].Pos.Line
				if len(les) > 1 {
					msg += fmt.Sprintf(" (and %d more problems)", len(les)-1)
				}
			}
			f.warn.Printf("%s: not read for bundle images: %s", declcfg.Pos{File: f.show(cf.Path), Line: line}, msg)
			continue
		}
		for _, b := range cfg.Bundles {
			// The folder is the operator's (catalogs/<catalog>/<operator>/),
			// and the package its blobs name may have another name
			// (certified isovalent-networking publishes package clife): a
			// blob with the image is that image's bundle, whatever its
			// package.
			if b.Image == "" {
				continue
			}
			full := declcfg.HasProperty(b.Properties, declcfg.PropertyBundleObject)
			if have, ok := f.blobs[b.Image]; ok && (have.full || !full) {
				continue
			}
			f.blobs[b.Image] = &foundBlob{bundle: b, full: full, file: cf.Path}
		}
	}
	f.loaded = true
	return nil
}

func (f *Finder) find(ctx context.Context, ref string, csvMetadata bool) ([]declcfg.Bundle, error) {
	b, migrated, err := f.lookup(ctx, ref, csvMetadata)
	switch {
	case err != nil:
		return nil, err
	case b != nil:
		return []declcfg.Bundle{*b}, nil
	case migrated != nil:
		f.warnOnce(ref, "%s: the only copy of bundle %s (%s) is in %s, which has olm.csv.metadata instead of its manifests: catalogs before v4.17 rendered from it lack its olm.bundle.object properties; map the image to its bundle directory or image (--image-map) to render them whole",
			ref, migrated.bundle.Name, ref, f.show(migrated.file))
		return []declcfg.Bundle{migrated.bundle}, nil
	}
	return nil, fmt.Errorf("%w: %s", template.ErrNotFound, f.where(ref))
}

// Whole returns an image's bundle with its manifests (olm.bundle.object),
// for a template that needs its CSV where find gave a blob migrated to
// olm.csv.metadata (the semver template copies the head's icon into the
// package, as opm does from the image it renders): a published blob that
// still has them, or the bundle directory of its version. nil when the
// repository has neither.
func (f *Finder) Whole(ctx context.Context, ref string) (*declcfg.Bundle, error) {
	b, _, err := f.lookup(ctx, ref, false)
	return b, err
}

// lookup finds ref's bundle: the bundle directory it is fixed to, a
// published blob with its manifests (or any published blob, when
// csvMetadata is set), the bundle directory of its version. Without these,
// migrated is the published blob without its manifests, if there is one.
func (f *Finder) lookup(ctx context.Context, ref string, csvMetadata bool) (b *declcfg.Bundle, migrated *foundBlob, err error) {
	if dir, ok := f.fixed[ref]; ok {
		b, err := f.renderDir(ctx, dir, ref)
		return b, nil, err
	}
	if err := f.load(ctx); err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	blob := f.blobs[ref]
	f.mu.Unlock()
	if blob != nil && (blob.full || csvMetadata) {
		b := blob.bundle
		return &b, nil, nil
	}
	var fromBlob string
	if blob != nil {
		fromBlob = blobVersion(&blob.bundle)
	}
	if dir := f.versionDir(ref, fromBlob); dir != "" {
		b, err := f.renderDir(ctx, dir, ref)
		return b, nil, err
	}
	return nil, blob, nil
}

// versionDir finds the bundle directory of the image's version: named by
// its tag (with or without a leading v) or by the version of its published
// blob.
func (f *Finder) versionDir(ref, blobVersion string) string {
	var names []string
	if r, err := imageref.Parse(ref); err == nil && r.Tag != "" {
		names = append(names, r.Tag, strings.TrimPrefix(r.Tag, "v"))
	}
	if blobVersion != "" {
		names = append(names, blobVersion, "v"+blobVersion)
	}
	for _, n := range names {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) {
			continue
		}
		if dir := filepath.Join(f.op.Dir, n); repo.IsBundleDir(dir) {
			return dir
		}
	}
	return ""
}

// renderDir renders a bundle directory under image, once per directory.
func (f *Finder) renderDir(ctx context.Context, dir, image string) (*declcfg.Bundle, error) {
	f.mu.Lock()
	d, ok := f.dirs[dir]
	if !ok {
		d = &dirResult{}
		f.dirs[dir] = d
	}
	f.mu.Unlock()
	d.once.Do(func() {
		d.bundle, d.err = f.r.RenderBundle(ctx, dir, image, render.Request{Allowed: render.KindBundles})
		f.mu.Lock()
		f.bundles++
		f.mu.Unlock()
	})
	if d.err != nil {
		return nil, d.err
	}
	b := *d.bundle
	b.Image = image
	return &b, nil
}

// where says where find looked for ref.
func (f *Finder) where(ref string) string {
	f.mu.Lock()
	n := len(f.files)
	f.mu.Unlock()
	cats := fmt.Sprintf("not in the package's published catalogs (%s/*/%s/: %d %s)", repo.CatalogsDir, f.op.Name, n, plural(n, "file", "files"))
	var tags []string
	if r, err := imageref.Parse(ref); err == nil && r.Tag != "" {
		tags = append(tags, f.rel(filepath.Join(f.op.Dir, r.Tag)))
		if t := strings.TrimPrefix(r.Tag, "v"); t != r.Tag && t != "" {
			tags = append(tags, f.rel(filepath.Join(f.op.Dir, t)))
		}
	}
	if len(tags) == 0 {
		return cats + ", and its reference names no version to look for a bundle directory by (no tag)"
	}
	return cats + ", and no bundle directory " + strings.Join(tags, " or ")
}

func (f *Finder) warnOnce(key, format string, args ...any) {
	f.mu.Lock()
	seen := f.warned[key]
	f.warned[key] = true
	f.mu.Unlock()
	if !seen {
		f.warn.Printf(format, args...)
	}
}

// rel names a path of the repository from its root.
func (f *Finder) rel(p string) string { return relTo(f.op.Repo.Root, p) }

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// blobVersion is a bundle's version from its olm.package property.
func blobVersion(b *declcfg.Bundle) string {
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyPackage {
			continue
		}
		var v declcfg.PackageProperty
		if p.Decode(&v) == nil {
			return v.Version
		}
	}
	return ""
}

// firstLine is an error's first line, for warnings about files that hold
// many problems.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " (and more)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
