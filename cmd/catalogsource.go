package cmd

import (
	"context"
	"errors"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
)

// Commands that read a whole catalog (validate, graph, upgrade-path, diff,
// list) read paths where they are and catalog images through one Renderer,
// made on first use, so that commands given only paths never touch the
// image cache.

// lazyRenderer makes the command's Renderer once, when first asked.
func lazyRenderer(cmd *cobra.Command, pull image.Options) func() (*render.Renderer, error) {
	return sync.OnceValues(func() (*render.Renderer, error) { return newRenderer(cmd, pull, 0) })
}

// catalogReads says what of a catalog a command reads, so that its loader
// keeps no more: values, the property types whose values are encoded (nil:
// all), and part, what is dropped from each part (a file's blobs, an
// image's) as it is read (nil: nothing). The zero value keeps everything.
type catalogReads struct {
	values func(propertyType string) bool
	part   func(*declcfg.DeclarativeConfig)
}

// upgradeReads keeps what the upgrade simulations read (graph.Slim): a
// catalog's names, edges, versions and deprecations, not its manifests.
var upgradeReads = catalogReads{values: graph.ReadsValue, part: graph.Slim}

// catalogLoader loads a path as declcfg.Load does and a catalog image as
// render does (its blobs as loaded, positioned IMAGE@DIGEST:configs/...),
// keeping what reads says. With bundles, a bundle directory or bundle image
// is rendered as fbc render --with-channels renders it: a one-bundle
// catalog.
func catalogLoader(cmd *cobra.Command, pull image.Options, bundles bool, reads catalogReads) func(ctx context.Context, path string) (*declcfg.DeclarativeConfig, error) {
	renderer := lazyRenderer(cmd, pull)
	stdin := cmd.InOrStdin()
	req := render.Request{Allowed: render.KindCatalogImage, CatalogsAsLoaded: true}
	if bundles {
		req.Allowed |= render.KindBundles
		req.WithChannels = true
	}
	if reads.part != nil {
		req.Part = func(_ int, part *declcfg.DeclarativeConfig) error {
			reads.part(part)
			return nil
		}
	}
	return func(ctx context.Context, p string) (*declcfg.DeclarativeConfig, error) {
		kind, img, err := render.SourceKind(p)
		if !img && (!bundles || err != nil || kind != render.KindBundleDir) {
			opts := declcfg.LoadOptions{Stdin: stdin, Decode: declcfg.DecodeOptions{Values: reads.values}, Walk: declcfg.WalkOptions{Borrow: reads.part != nil, Progress: progressOf(cmd)}}
			if reads.part == nil {
				return declcfg.Load(ctx, []string{p}, opts)
			}
			// As Load, a file at a time, each dropping what is not read
			// before the next is merged.
			cfg := &declcfg.DeclarativeConfig{}
			err := declcfg.LoadEach(ctx, []string{p}, opts, func(part *declcfg.DeclarativeConfig) error {
				reads.part(part)
				cfg.Merge(part)
				return nil
			})
			var les declcfg.LoadErrors
			if err != nil && !errors.As(err, &les) {
				return nil, err
			}
			return cfg, err
		}
		r, err := renderer()
		if err != nil {
			return nil, err
		}
		return r.Render(ctx, []string{p}, req)
	}
}
