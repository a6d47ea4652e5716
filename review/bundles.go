package review

import (
	"context"
	"errors"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
)

// bundleReader reads bundle directories and images for validate, one at a
// time as validate asks, through the command's one Renderer. A bundle
// whose content is not a bundle becomes a finding; one that cannot be read
// (a file, the registry) makes the run incomplete.
type bundleReader struct {
	r *render.Renderer
}

func (br bundleReader) read(ctx context.Context, ref string) (*validate.BundleSource, error) {
	// The bundle's own warnings are findings about it (the files OLM
	// ignores), not the run's.
	var mu sync.Mutex
	src := &validate.BundleSource{Source: ref}
	res := br.r.ReadBundle(ctx, ref, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		src.Ignored = append(src.Ignored, msg)
	})
	if res.Err != nil {
		if errors.Is(res.Err, context.Canceled) || errors.Is(res.Err, context.DeadlineExceeded) {
			return nil, res.Err
		}
		src.Problem = problemText(res.Err)
		src.Pos = declcfg.Pos{File: res.Err.File, Line: res.Err.Line, Col: res.Err.Col}
		src.Unreadable = !res.Err.Invalid
		return src, nil
	}
	src.Contents = bundleContents(res.Contents)
	return src, nil
}

// problemText is a render error without the file and line a diagnostic
// carries apart.
func problemText(e *render.Error) string {
	if e.File != "" {
		return e.Err.Error()
	}
	return e.Error()
}

func bundleContents(rc *render.BundleContents) *validate.BundleContents {
	b := &validate.BundleContents{
		Bundle:         &rc.Bundle,
		Pos:            declcfg.Pos{File: rc.Source},
		Source:         rc.Source,
		Channels:       rc.Channels,
		DefaultChannel: rc.DefaultChannel,
	}
	for _, m := range rc.Manifests {
		b.Objects = append(b.Objects, validate.BundleObject{Pos: declcfg.Pos{File: m.File, Line: m.Line}, JSON: m.JSON,
			APIVersion: m.APIVersion, Kind: m.Kind, Name: m.Name})
	}
	if rc.CSV >= 0 && rc.CSV < len(b.Objects) {
		b.Pos = b.Objects[rc.CSV].Pos
	}
	for _, f := range rc.Files {
		b.Files = append(b.Files, validate.BundleFile{Name: f.Name, Data: f.Data})
	}
	return b
}
