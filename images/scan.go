package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
)

// ScanOptions says how sources are read.
type ScanOptions struct {
	// Renderer reads bundle and catalog images, and the bundle images of
	// a template's stubs for their related images. Needed only when a
	// source is an image or a template with stubs.
	Renderer *render.Renderer
	// Stdin is read for the source "-".
	Stdin io.Reader
	// BundleImagesOnly keeps the bundle images only: no related images or
	// operator containers, and no template stub is rendered.
	BundleImagesOnly bool
	// Files, when set, reads only what is written in files (catalogs,
	// templates, bundle directories): image sources are refused and
	// template stubs are not rendered. Pin needs nothing else.
	Files bool
	// KeepUnread, when set, keeps a template stub whose bundle image
	// cannot be read with its bundle image alone, and records why in
	// Scan.Unread, instead of failing the scan: Check asks about the image
	// itself, and reports it as missing, or its related images as not
	// checked.
	KeepUnread bool
}

// Scan is what a scan found.
type Scan struct {
	// Sources are the sources scanned, as given.
	Sources []string
	// Bundles in the order of their sources, files and documents.
	Bundles []*Bundle
	// Files counts the files read.
	Files int
	// Channels counts the olm.channel blobs read (in catalogs, catalog
	// images and basic templates), for the report's summary.
	Channels int
	// Unread are the template stubs whose bundle images could not be read
	// for their related images (with ScanOptions.KeepUnread): their
	// bundles hold the bundle image alone.
	Unread []Failure
}

// Refs lists every reference of every bundle, in order.
func (s *Scan) Refs() []Ref {
	var out []Ref
	for _, b := range s.Bundles {
		out = append(out, b.Refs...)
	}
	return out
}

// ScanSources finds the images that sources name. A source is a catalog
// directory or file, a catalog template (a file, or a directory of them:
// each file is read as what its schema says), a bundle directory, "-" for
// a catalog on standard input, or a bundle or catalog image. Catalogs are
// read, not rendered: only what carries image references is decoded.
// Problems in the files (syntax, an unreadable file) are a
// declcfg.LoadErrors; sources that do not exist, a Run error naming them.
func ScanSources(ctx context.Context, sources []string, opts ScanOptions) (*Scan, error) {
	res := &Scan{Sources: sources}
	var errs declcfg.LoadErrors
	var stubs []*stub
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := scanSource(ctx, src, opts, res, &errs)
		if err != nil {
			return nil, err
		}
		stubs = append(stubs, st...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(stubs) > 0 && !opts.BundleImagesOnly && !opts.Files {
		unread, err := expandStubs(ctx, stubs, opts)
		switch {
		case err != nil:
			return nil, err
		case len(unread) > 0 && !opts.KeepUnread:
			return nil, stubErrors(unread)
		}
		res.Unread = unread
	}
	if opts.BundleImagesOnly {
		for _, b := range res.Bundles {
			keep := b.Refs[:0]
			for _, r := range b.Refs {
				if r.Kind == KindBundle {
					keep = append(keep, r)
				}
			}
			b.Refs = keep
		}
	}
	return res, nil
}

// scanSource scans one source into res, adding its file problems to errs.
func scanSource(ctx context.Context, src string, opts ScanOptions, res *Scan, errs *declcfg.LoadErrors) ([]*stub, error) {
	if src != "-" && image.IsLocalReference(src) {
		return scanImage(ctx, src, opts, res, errs)
	}
	if src != "-" {
		st, err := os.Stat(src)
		switch {
		case errors.Is(err, fs.ErrNotExist) && looksLikeImage(src):
			return scanImage(ctx, src, opts, res, errs)
		case err != nil:
			return nil, fault.Wrap(fault.Run, fmt.Errorf("%s: %w", src, unwrapPath(err)))
		case st.IsDir() && repo.IsBundleDir(src):
			b, err := scanBundleDir(src)
			if err != nil {
				return nil, err
			}
			res.Files++
			res.Bundles = append(res.Bundles, b)
			return nil, nil
		}
	}
	return scanFiles(ctx, src, opts, res, errs)
}

// looksLikeImage applies opm's rule for what is not a path: a reference
// that starts with a registry host.
func looksLikeImage(ref string) bool {
	host, _, ok := strings.Cut(ref, "/")
	if !ok || host == "." || host == ".." || !(strings.ContainsAny(host, ".:") || host == "localhost") {
		return false
	}
	_, err := image.ParseReference(ref)
	return err == nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileScan is what one file holds.
type fileScan struct {
	bundles  []*Bundle
	channels int
	stubs    []*stub
	errs     []*declcfg.LoadError
}

// scanFiles walks a catalog or template tree, a file or standard input.
// Each file is read into a buffer that later files reuse and parsed a
// document at a time (nothing of it is kept: what a scan keeps is copied);
// the CSVs of its bundles are read meanwhile on other goroutines, while
// the walk reads the next files.
func scanFiles(ctx context.Context, src string, opts ScanOptions, res *Scan, errs *declcfg.LoadErrors) ([]*stub, error) {
	stubs, err := scanWalk(ctx, src, res, errs, func(wo declcfg.WalkOptions, fn func(*declcfg.File) error) error {
		return declcfg.WalkPath(ctx, src, opts.Stdin, wo, fn)
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fault.Wrap(fault.Run, fmt.Errorf("%s: %w", src, unwrapPath(err)))
	}
	return stubs, nil
}

// scanWalk scans the files walk hands over (walked with the options it is
// given) into res, adding their problems to errs, and returns the
// templates' stubs.
func scanWalk(ctx context.Context, src string, res *Scan, errs *declcfg.LoadErrors, walk func(declcfg.WalkOptions, func(*declcfg.File) error) error) ([]*stub, error) {
	csvs := newCSVReaders(runtime.GOMAXPROCS(0))
	defer csvs.close()
	var stubs []*stub
	err := walk(declcfg.WalkOptions{Stream: true, Borrow: true, Reuse: true, Ahead: 2}, func(f *declcfg.File) error {
		fr := scanFile(f, src, csvs)
		res.Files++
		res.Channels += fr.channels
		res.Bundles = append(res.Bundles, fr.bundles...)
		stubs = append(stubs, fr.stubs...)
		*errs = append(*errs, fr.errs...)
		return ctx.Err()
	})
	return stubs, err
}

// csvReaders read bundles' CSVs on a few goroutines, each with a buffer
// to decode them in.
type csvReaders struct {
	jobs chan csvJob
	wg   sync.WaitGroup
}

type csvJob struct {
	facts *bundleFacts
	done  *sync.WaitGroup
}

func newCSVReaders(n int) *csvReaders {
	r := &csvReaders{jobs: make(chan csvJob, 4*n)}
	r.wg.Add(n)
	for range n {
		go func() {
			defer r.wg.Done()
			var buf []byte
			for j := range r.jobs {
				j.facts.readCSV(&buf)
				j.done.Done()
			}
		}()
	}
	return r
}

func (r *csvReaders) close() {
	close(r.jobs)
	r.wg.Wait()
}

// scanFile scans the documents of one file: olm.bundle blobs, and
// templates (whose schema says which kind). It returns when every CSV of
// the file is read: they share the file's bytes.
func scanFile(f *declcfg.File, src string, csvs *csvReaders) *fileScan {
	fr := &fileScan{}
	var blobs []*bundleFacts
	var pending sync.WaitGroup
	f.Each(func(doc declcfg.Document) {
		root := doc.Node
		// opm finds the schema (of catalogs and templates alike) whatever
		// the key's case.
		schema := strValue(foldField(root, "schema"))
		switch schema {
		case declcfg.SchemaBundle:
			bf := blobFacts(f.Path, root, true)
			blobs = append(blobs, bf)
			fr.bundles = append(fr.bundles, nil)
			if len(bf.objects) > 0 {
				pending.Add(1)
				csvs.jobs <- csvJob{bf, &pending}
			}
		case declcfg.SchemaChannel:
			fr.channels++
		case schemaBasic, schemaSemver, schemaSubstitutes:
			scanTemplate(f.Path, src, schema, root, fr)
		}
	})
	pending.Wait()
	// Blobs and templates keep their order in the file.
	i := 0
	for k, b := range fr.bundles {
		if b == nil {
			fr.bundles[k] = blobs[i].bundle(src)
			i++
		}
	}
	for _, e := range f.Errors {
		if !e.Warning {
			fr.errs = append(fr.errs, e)
		}
	}
	return fr
}

// scanImage reads a catalog image's files as a catalog directory's are read
// (the same references, at the same lines and columns of the same files),
// or renders a bundle image and reads its bundle.
func scanImage(ctx context.Context, ref string, opts ScanOptions, res *Scan, errs *declcfg.LoadErrors) ([]*stub, error) {
	if opts.Files {
		return nil, fault.Errorf(fault.Usage, "%s is an image: only files can be changed", ref)
	}
	if opts.Renderer == nil {
		return nil, fmt.Errorf("%s: no renderer to read images with", ref)
	}
	catalog := false
	stubs, err := scanWalk(ctx, ref, res, errs, func(wo declcfg.WalkOptions, fn func(*declcfg.File) error) error {
		var err error
		catalog, err = opts.Renderer.WalkCatalogImage(ctx, ref, wo, fn)
		return err
	})
	var re *render.Error
	switch {
	case err == nil && catalog:
		return stubs, nil
	case err == nil:
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &re):
		return nil, err
	default:
		return nil, fault.Wrap(fault.Run, fmt.Errorf("%s: %w", ref, unwrapPath(err)))
	}
	req := render.Request{Allowed: render.KindBundleImage | render.KindCatalogImage, CatalogsAsLoaded: true}
	return nil, opts.Renderer.RenderTo(ctx, []string{ref}, req, func(_ int, part *declcfg.DeclarativeConfig) error {
		for i := range part.Bundles {
			res.Bundles = append(res.Bundles, typedFacts(&part.Bundles[i]).bundle(ref))
		}
		return nil
	})
}

// scanBundleDir reads a bundle directory's CSV and package.
func scanBundleDir(dir string) (*Bundle, error) {
	manifests := filepath.Join(dir, "manifests")
	entries, err := os.ReadDir(manifests)
	if err != nil {
		return nil, fault.Wrap(fault.Run, err)
	}
	var csv *csvFacts
	var csvFile string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		switch strings.ToLower(path.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		p := filepath.Join(manifests, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fault.Wrap(fault.Run, err)
		}
		f := declcfg.ParseFile(p, data)
		for _, d := range f.Docs {
			if c := readCSV(p, d.Node); c != nil {
				if csv != nil {
					return nil, fault.Errorf(fault.Input, "%s: a second ClusterServiceVersion (the first is in %s): a bundle holds exactly one", p, csvFile)
				}
				csv, csvFile = c, p
			}
		}
		if csv == nil || csvFile == p {
			for _, e := range f.Errors {
				if !e.Warning && csvFile == p {
					return nil, declcfg.LoadErrors{e}
				}
			}
		}
	}
	if csv == nil {
		return nil, fault.Errorf(fault.Input, "%s: no ClusterServiceVersion: every bundle needs exactly one", manifests)
	}
	pkg := ""
	ann := filepath.Join(dir, "metadata", "annotations.yaml")
	if data, err := os.ReadFile(ann); err == nil {
		if f := declcfg.ParseFile(ann, data); len(f.Docs) > 0 {
			pkg = strValue(field(field(f.Docs[0].Node, "annotations"), "operators.operatorframework.io.bundle.package.v1"))
		}
	}
	f := &bundleFacts{pkg: pkg, name: csv.name, pos: declcfg.Pos{File: csvFile}, csv: csv,
		related: csv.refs, fromCSV: true, editable: true}
	return f.bundle(dir), nil
}
