package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
)

// labelDatabase marks the sqlite index images opm no longer reads.
const labelDatabase = "operators.operatorframework.io.index.database.v1"

// renderImage opens an image and renders it by what its labels say it is,
// in opm's order: a catalog (configs label), a bundle (package label), a
// sqlite index (refused).
func (r *call) renderImage(ctx context.Context, s source, emit func(*declcfg.DeclarativeConfig) error) result {
	fail := func(err error, invalid bool) result {
		return result{err: &Error{Source: s.ref, Err: err, Invalid: invalid}}
	}
	c, err := r.images()
	if err != nil {
		return fail(err, false)
	}
	img, err := c.Open(ctx, s.ref)
	if err != nil {
		return fail(err, imageContentProblem(err))
	}
	labels := img.Labels()
	var kind Kind
	_, isBundle := labels[image.LabelBundlePackage]
	switch {
	case labels[image.LabelCatalogConfigs] != "":
		kind = KindCatalogImage
	case isBundle:
		kind = KindBundleImage
	case labels[labelDatabase] != "":
		return fail(errors.New("sqlite-based index images are no longer supported: migrate the index to a file-based catalog (opm migrate) and render that"), true)
	default:
		return fail(unknownImage(labels), true)
	}
	if s.bundle && kind != KindBundleImage {
		return fail(fmt.Errorf("not a bundle: a %s", kind), true)
	}
	if !r.req.allowed().has(kind) {
		return fail(notAllowed(kind, s.ref), false)
	}
	if kind == KindCatalogImage {
		dir := labelDir(labels[image.LabelCatalogConfigs], "configs")
		fsys, err := img.ReadFiles(ctx, []string{dir}, image.Limits{})
		if err != nil {
			return fail(err, imageContentProblem(err))
		}
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return fail(err, false)
		}
		lo := declcfg.LoadOptions{Keep: s.keep, Walk: declcfg.WalkOptions{Borrow: true, Progress: r.opts.Progress}}
		err = declcfg.LoadFSEach(ctx, sub, InImage(s.ref, img.Digest(), dir), lo, func(part *declcfg.DeclarativeConfig) error {
			return r.emitCatalog(s.ref, part, emit)
		})
		if e := catalogError(s.ref, err); e != nil {
			return result{err: e}
		}
		return result{}
	}
	manifests := labelDir(labels[image.LabelBundleManifests], "manifests")
	metadata := labelDir(labels[image.LabelBundleMetadata], "metadata")
	fsys, err := img.ReadFiles(ctx, []string{manifests, metadata}, image.Limits{})
	if err != nil {
		return fail(err, imageContentProblem(err))
	}
	files := bundleFiles{
		Source:    s.ref,
		FS:        fsys,
		Manifests: manifests,
		Metadata:  metadata,
		Display:   func(p string) string { return InImage(s.ref, img.Digest(), p) },
	}
	ref := s.image
	if ref == "" {
		// opm records the reference as it was given, tag and all.
		ref = s.ref
	}
	pb, perr := parseBundle(files, bundleOptions{Image: ref, Warn: r.warnFor(s), KeepFiles: s.contents})
	if perr != nil {
		return result{err: perr}
	}
	pb.image = true
	return r.emitBundle(s.ref, pb, emit)
}

// labelDir turns a label's directory ("/configs", "manifests/") into a
// path within the image; an empty label means the conventional name.
func labelDir(v, def string) string {
	v = strings.Trim(path.Clean("/"+strings.TrimSpace(v)), "/")
	if v == "" || v == "." {
		return def
	}
	return v
}

// unknownImage lists the labels of an image that is neither a bundle nor a
// catalog, as opm does.
func unknownImage(labels map[string]string) error {
	if len(labels) == 0 {
		return errors.New("image type could not be determined: the image has no labels (a bundle image has " + image.LabelBundlePackage + ", a catalog image " + image.LabelCatalogConfigs + ")")
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("image type could not be determined: neither " + image.LabelBundlePackage + " nor " + image.LabelCatalogConfigs + " is among its labels:")
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %s=%s", k, labels[k])
	}
	return errors.New(b.String())
}

// imageContentProblem tells problems with what an image holds (an unsafe
// path, an entry over a limit) from failures to fetch it.
func imageContentProblem(err error) bool {
	var ce *image.ContentError
	return errors.As(err, &ce)
}

// unreachable reports a failure to reach a registry at all (refused or
// timed-out connections, server errors after retries), as opposed to a
// problem with one image or with a catalog's files.
func unreachable(err error) bool {
	var le declcfg.LoadErrors
	var de *docError
	if errors.As(err, &le) || errors.As(err, &de) {
		return false
	}
	return image.Unreachable(err)
}
