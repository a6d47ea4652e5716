package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
)

// InImage names a file of an image the way diagnostics show it:
// REF@DIGEST:path (REF as given, tag and all, pinned to the digest that was
// read; a REF that has a digest already is not pinned twice).
func InImage(ref, digest, p string) string {
	if digest != "" && !strings.Contains(ref, "@") {
		ref += "@" + digest
	}
	return ref + ":" + strings.TrimPrefix(p, "/")
}

// IsImage reports whether ref names an image rather than a path: an
// oci:, oci-archive: or docker-archive: reference, or a reference with a
// registry host that is not an existing path (opm's rule).
func IsImage(ref string) bool {
	_, image, err := SourceKind(ref)
	return err == nil && image
}

// IsCatalogImage opens an image and reports whether its labels make it a
// catalog image (the configs label), as render decides.
func (r *Renderer) IsCatalogImage(ctx context.Context, ref string) (bool, error) {
	img, err := r.openImage(ctx, ref)
	if err != nil {
		return false, err
	}
	return img.Labels()[image.LabelCatalogConfigs] != "", nil
}

// ImageClient is the Renderer's image client (made on first use), for
// callers that ask registries about images besides rendering them.
func (r *Renderer) ImageClient() (*image.Client, error) { return r.images() }

// openImage opens the image ref names; its errors are render Errors.
func (r *Renderer) openImage(ctx context.Context, ref string) (*image.Image, error) {
	c, err := r.images()
	if err != nil {
		return nil, &Error{Source: ref, Err: err}
	}
	img, err := c.Open(ctx, ref)
	if err != nil {
		return nil, &Error{Source: ref, Err: err, Invalid: imageContentProblem(err)}
	}
	return img, nil
}

// WalkCatalogImage walks the configs directory of the catalog image ref
// names as WalkCatalog does: each file parsed, in catalog order, named
// REF@DIGEST:path (InImage). When the image is not a catalog image (no
// configs label), it walks nothing and returns false, without an error.
func (r *Renderer) WalkCatalogImage(ctx context.Context, ref string, opts declcfg.WalkOptions, fn func(*declcfg.File) error) (bool, error) {
	if opts.Progress == nil {
		opts.Progress = r.opts.Progress
	}
	img, err := r.openImage(ctx, ref)
	if err != nil {
		return false, err
	}
	configs := img.Labels()[image.LabelCatalogConfigs]
	if configs == "" {
		return false, nil
	}
	dir := labelDir(configs, "configs")
	fsys, err := img.ReadFiles(ctx, []string{dir}, image.Limits{})
	if err != nil {
		return true, &Error{Source: ref, Err: err, Invalid: imageContentProblem(err)}
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return true, &Error{Source: ref, Err: err}
	}
	return true, declcfg.WalkFS(ctx, sub, InImage(ref, img.Digest(), dir), opts, fn)
}

// WalkCatalog calls fn with each file of the catalog ref names, parsed, in
// catalog order, without gathering the catalog in memory: a catalog
// directory, a catalog file or "-" is read where it is, a catalog image's
// configs directory from the image. A bundle (directory or image) is
// rendered first and handed over as one file holding its olm.bundle blob.
// Migrations and WithChannels do not apply. Servers use it to read a
// catalog once. opts tune how files are read (declcfg.WalkOptions).
func (r *Renderer) WalkCatalog(ctx context.Context, ref string, opts declcfg.WalkOptions, fn func(*declcfg.File) error) error {
	kind, err := classify(ref)
	if err != nil {
		return &Error{Source: ref, Err: err}
	}
	if opts.Progress == nil {
		opts.Progress = r.opts.Progress
	}
	switch kind {
	case KindCatalogDir, KindCatalogFile, KindStdin:
		return declcfg.WalkPath(ctx, ref, r.opts.Stdin, opts, fn)
	case kindImage:
		if ok, err := r.WalkCatalogImage(ctx, ref, opts, fn); ok || err != nil {
			return err
		}
	}
	// A bundle: render it as render would and hand the blob over as JSON.
	c, err := r.start(Request{})
	if err != nil {
		return err
	}
	res := c.renderTo(ctx, source{ref: ref}, 0, nil)
	if res.err != nil {
		return res.err
	}
	var buf bytes.Buffer
	if err := declcfg.WriteJSON(res.cfg, &buf); err != nil {
		return &Error{Source: ref, Err: fmt.Errorf("encoding the rendered bundle: %w", err)}
	}
	f := declcfg.ParseFile(ref, buf.Bytes())
	if len(f.Errors) > 0 {
		return &Error{Source: ref, Err: errors.Join(declcfg.LoadErrors(f.Errors))}
	}
	return fn(f)
}
