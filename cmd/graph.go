package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/image"
)

// loadGraph loads a catalog for the upgrade-graph commands, keeping what
// reads says; see loadCatalogFor.
func loadGraph(cmd *cobra.Command, pull image.Options, path, doing string, reads catalogReads) (*graph.Catalog, error) {
	cfg, err := loadCatalogFor(cmd, pull, path, doing, false, reads)
	if err != nil {
		return nil, err
	}
	cat := graph.New(cfg)
	for _, w := range cat.Warnings {
		warner(cmd.ErrOrStderr())(w)
	}
	return cat, nil
}

// loadCatalogFor loads a catalog (a path, or a catalog image pulled as
// pull says) for a command that examines it. Unreadable files are trouble
// (exit 2); malformed content is a finding (exit 1), as half a catalog
// would mislead. A catalog without packages is trouble too: an empty
// directory or pipe is a wrong path or a failed checkout, not a catalog to
// examine (doing says what the command does). Catalogs that load but break
// OLM's rules are fine: these commands exist to examine them. What is not a
// catalog (a bundle directory unless bundles is set, an operator folder,
// ci.yaml, templates) is refused in one line first (screenCatalog); with
// bundles, a bundle directory or image is read as a one-bundle catalog.
func loadCatalogFor(cmd *cobra.Command, pull image.Options, path, doing string, bundles bool, reads catalogReads) (*declcfg.DeclarativeConfig, error) {
	if err := screenCatalog(path, bundles); err != nil {
		return nil, err
	}
	cfg, err := catalogLoader(cmd, pull, bundles, reads)(cmd.Context(), path)
	var le declcfg.LoadErrors
	if errors.As(err, &le) {
		// One line each, under the catalog they belong to.
		return nil, fmt.Errorf("loading %s:\n%w", path, err)
	} else if err != nil {
		return nil, err
	}
	if len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations) == 0 {
		what := "no catalog blobs"
		if !cfg.IsEmpty() {
			what = "no packages, only blobs of other schemas"
		}
		return nil, nothingThere(fmt.Errorf("nothing to %s: %s holds %s; %s", doing, shownPaths([]string{path})[0], what, checkEmpty([]string{path})))
	}
	return cfg, nil
}

func init() { register(newGraphCmd) }

func newGraphCmd() *cobra.Command {
	var (
		opts   graph.PictureOptions
		output = newEnum("mermaid", "mermaid", "dot", "json")
		pull   image.Options
	)
	cmd := &cobra.Command{
		Use:   "graph CATALOG",
		Short: "Draw the upgrade graph of a catalog (mermaid, Graphviz dot or JSON)",
		Long: `graph draws every channel's upgrade edges: replaces, skips and the skipRange
edges to each entry whose version the range contains, from the older bundle to
the newer one.

The mermaid output has the shape of 'opm alpha render-graph': packages and
channels as subgraphs, entries newest first, the same node ids and edge
labels, deprecated bundles and channels styled. With --draw-v0-semantics (on
by default) entries that OLM classic never offers because a newer entry skips
them are outlined, and the edges classic ignores are drawn dashed.

--minimum-edge NAME draws only NAME's package and only the edges from NAME's
version or newer, as opm does; it is the way to shrink a long history.

CATALOG is a directory, a file, - for standard input, or a catalog image
(registry, oci:, oci-archive:, docker-archive:), pulled as fbc render pulls it.`,
		Example: `  fbc graph catalog/ --package etcd > etcd.mmd
  fbc graph catalog/ --package etcd -o dot | dot -Tsvg > etcd.svg
  fbc graph catalog/ --minimum-edge etcdoperator.v0.9.0 -o json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			cat, err := loadGraph(cmd, pull, args[0], "draw", upgradeReads)
			if err != nil {
				return err
			}
			pic, err := graph.Draw(cat, opts)
			if err != nil {
				return err
			}
			for _, w := range pic.Warnings {
				warner(cmd.ErrOrStderr())(w)
			}
			out := cmd.OutOrStdout()
			switch output.String() {
			case "dot":
				return pic.WriteDOT(out)
			case "json":
				return pic.WriteJSON(out, cat)
			}
			return pic.WriteMermaid(out)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Package, "package", "p", "", "draw only this package")
	opmNames(f, map[string]string{"package-name": "package"}) // opm alpha render-graph
	f.StringVar(&opts.Channel, "channel", "", "draw only channels of this name")
	f.StringVar(&opts.MinimumEdge, "minimum-edge", "", "draw only edges from this bundle's version or newer (and only its package)")
	completeNames(cmd, firstArg, packageNames, "package")
	completeNames(cmd, firstArg, channelNames, "channel")
	completeNames(cmd, firstArg, bundleNames, "minimum-edge")
	f.BoolVar(&opts.V0Semantics, "draw-v0-semantics", true, "mark entries and edges OLM classic ignores because a newer entry skips them")
	output.register(cmd, "output", "o", "output format")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}
