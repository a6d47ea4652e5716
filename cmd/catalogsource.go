package cmd

import (
	"context"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
)

// Commands that read a whole catalog (validate, graph, upgrade-path, diff,
// list) read paths where they are and catalog images through one Renderer,
// made on first use, so that commands given only paths never touch the
// image cache.

// catalogWalker walks a path as declcfg does, and an image as render does.
func catalogWalker(cmd *cobra.Command, renderer func() (*render.Renderer, error), opts declcfg.WalkOptions) func(context.Context, string, func(*declcfg.File) error) error {
	stdin := cmd.InOrStdin()
	opts.Progress = progressOf(cmd)
	return func(ctx context.Context, p string, fn func(*declcfg.File) error) error {
		if !render.IsImage(p) {
			return declcfg.WalkPath(ctx, p, stdin, opts, fn)
		}
		r, err := renderer()
		if err != nil {
			return err
		}
		return r.WalkCatalog(ctx, p, opts, fn)
	}
}

// lazyRenderer makes the command's Renderer once, when first asked.
func lazyRenderer(cmd *cobra.Command, pull image.Options) func() (*render.Renderer, error) {
	return sync.OnceValues(func() (*render.Renderer, error) { return newRenderer(cmd, pull, 0) })
}

// catalogLoader loads a path as declcfg.Load does and a catalog image as
// render does (its blobs as loaded, positioned IMAGE@DIGEST:configs/...).
// With bundles, a bundle directory or bundle image is rendered as fbc
// render --with-channels renders it: a one-bundle catalog.
func catalogLoader(cmd *cobra.Command, pull image.Options, bundles bool) func(ctx context.Context, path string) (*declcfg.DeclarativeConfig, error) {
	renderer := lazyRenderer(cmd, pull)
	stdin := cmd.InOrStdin()
	req := render.Request{Allowed: render.KindCatalogImage, CatalogsAsLoaded: true}
	if bundles {
		req.Allowed |= render.KindBundles
		req.WithChannels = true
	}
	return func(ctx context.Context, p string) (*declcfg.DeclarativeConfig, error) {
		kind, img, err := render.SourceKind(p)
		if !img && (!bundles || err != nil || kind != render.KindBundleDir) {
			return declcfg.Load(ctx, []string{p}, declcfg.LoadOptions{Stdin: stdin, Walk: declcfg.WalkOptions{Progress: progressOf(cmd)}})
		}
		r, err := renderer()
		if err != nil {
			return nil, err
		}
		return r.Render(ctx, []string{p}, req)
	}
}
