package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
)

// WalkCatalog calls fn with each file of the catalog ref names, parsed, in
// catalog order, without gathering the catalog in memory: a catalog
// directory, a catalog file or "-" is read where it is, a catalog image's
// configs directory from the image. A bundle (directory or image) is
// rendered first and handed over as one file holding its olm.bundle blob.
// Migrations and WithChannels do not apply. Servers use it to read a
// catalog once.
func (r *Renderer) WalkCatalog(ctx context.Context, ref string, fn func(*declcfg.File) error) error {
	kind, err := classify(ref)
	if err != nil {
		return &Error{Source: ref, Err: err}
	}
	switch kind {
	case KindCatalogDir, KindCatalogFile, KindStdin:
		return declcfg.WalkPath(ctx, ref, r.opts.Stdin, declcfg.WalkOptions{Concurrency: 1}, fn)
	case kindImage:
		c, err := r.images()
		if err != nil {
			return &Error{Source: ref, Err: err}
		}
		img, err := c.Open(ctx, ref)
		if err != nil {
			return &Error{Source: ref, Err: err, Invalid: imageContentProblem(err)}
		}
		if configs := img.Labels()[image.LabelCatalogConfigs]; configs != "" {
			dir := labelDir(configs, "configs")
			fsys, err := img.ReadFiles(ctx, []string{dir}, image.Limits{})
			if err != nil {
				return &Error{Source: ref, Err: err, Invalid: imageContentProblem(err)}
			}
			sub, err := fs.Sub(fsys, dir)
			if err != nil {
				return &Error{Source: ref, Err: err}
			}
			return declcfg.WalkFS(ctx, sub, ref+":/"+dir, declcfg.WalkOptions{}, fn)
		}
	}
	// A bundle: render it as render would and hand the blob over as JSON.
	c, err := r.start(Request{})
	if err != nil {
		return err
	}
	res := c.render(ctx, source{ref: ref})
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
