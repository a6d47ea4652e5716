package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/graph/page"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/resolve"
)

// loadGraph loads a catalog for the upgrade-graph commands, keeping what
// reads says; see loadCatalogFor.
func loadGraph(cmd *cobra.Command, pull image.Options, path, doing string, reads catalogReads) (*graph.Catalog, error) {
	cat, _, err := loadGraphOthers(cmd, pull, path, doing, reads)
	return cat, err
}

// loadGraphOthers is loadGraph that also returns the catalog's blobs of
// other schemas (what reads keeps of them).
func loadGraphOthers(cmd *cobra.Command, pull image.Options, path, doing string, reads catalogReads) (*graph.Catalog, []declcfg.Meta, error) {
	cfg, err := loadCatalogFor(cmd, pull, path, doing, false, reads)
	if err != nil {
		return nil, nil, err
	}
	return graph.New(cfg, warner(cmd.ErrOrStderr())), cfg.Others, nil
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
		return nil, nothingThere(fmt.Errorf("nothing to %s: %s holds %s; %s", doing, declcfg.ShowPath(path), what, checkEmpty([]string{path})))
	}
	return cfg, nil
}

func newGraphCmd() *cobra.Command {
	var (
		opts    graph.PictureOptions
		output  = newEnum("mermaid", "mermaid", "dot", "json", "html")
		outFile string
		pull    image.Options
	)
	cmd := &cobra.Command{
		Use:   "graph CATALOG",
		Short: "Draw the upgrade graph of a catalog (mermaid, Graphviz dot, JSON, or an HTML page)",
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

-o html writes one self-contained HTML page (script, style and data inline;
it fetches nothing) that draws the package's versions in order down one
axis: every channel, switched between, and all channels at once with each
bundle once; replaces, skips and skipRange edges, heads, the default
channel, deprecations and lifecycle phases; the dead ends upgrade-path --all
finds and where OLM classic and OLM v1 part ways. Clicking a bundle shows
its upgrade path under both, as fbc upgrade-path computes it. Without
--package the page has a picker over every package; --channel opens it on
that channel of --package.

CATALOG is a directory, a file, - for standard input, or a catalog image
(registry, oci:, oci-archive:, docker-archive:), pulled as fbc render pulls it.`,
		Example: `  fbc graph catalog/ --package etcd > etcd.mmd
  fbc graph catalog/ --package etcd -o dot | dot -Tsvg > etcd.svg
  fbc graph catalog/ --minimum-edge etcdoperator.v0.9.0 -o json
  fbc graph catalog/ --package etcd -o html --output-file etcd.html`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if err := checkOutputFile(outFile); err != nil {
				return err
			}
			if output.String() == "html" {
				return graphPage(cmd, pull, args[0], opts, outFile)
			}
			cat, err := loadGraph(cmd, pull, args[0], "draw", upgradeReads)
			if err != nil {
				return err
			}
			opts.Warn = warner(cmd.ErrOrStderr())
			pic, err := graph.Draw(cat, opts)
			if err != nil {
				return err
			}
			return writeOutput(cmd, outFile, func(out io.Writer) error {
				switch output.String() {
				case "dot":
					return pic.WriteDOT(out)
				case "json":
					return pic.WriteJSON(out, cat)
				}
				return pic.WriteMermaid(out)
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Package, "package", "p", "", "draw only this package")
	opmNames(f, map[string]string{"package-name": "package"}) // opm alpha render-graph
	f.StringVar(&opts.Channel, "channel", "", "draw only channels of this name (-o html: open the page on this channel)")
	f.StringVar(&opts.MinimumEdge, "minimum-edge", "", "draw only edges from this bundle's version or newer (and only its package)")
	completeNames(cmd, firstArg, packageNames, "package")
	completeNames(cmd, firstArg, channelNames, "channel")
	completeNames(cmd, firstArg, bundleNames, "minimum-edge")
	f.BoolVar(&opts.V0Semantics, "draw-v0-semantics", true, "mark entries and edges OLM classic ignores because a newer entry skips them")
	output.register(cmd, "output", "o", "output format")
	f.StringVar(&outFile, "output-file", "", "write the output to this `FILE` (whole, or not at all) instead of standard output")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}

// graphPage writes fbc graph's HTML page: the catalog loaded whole, as
// fbc upgrade-path loads it (cluster checks read bundles' properties and
// manifests, classic paths resolve dependencies), one page.Build.
func graphPage(cmd *cobra.Command, pull image.Options, path string, opts graph.PictureOptions, outFile string) error {
	switch {
	case opts.MinimumEdge != "":
		return usageErrorf("--minimum-edge trims mermaid, dot and json pictures; the page (-o html) draws every edge")
	case opts.Channel != "" && opts.Package == "":
		return usageErrorf("--channel with -o html opens the page on a channel of --package: give --package too")
	}
	cat, others, err := loadGraphOthers(cmd, pull, path, "draw", catalogReads{})
	if err != nil {
		return err
	}
	doc, err := page.Build(cmd.Context(), cat, page.Options{Package: opts.Package, Channel: opts.Channel, Catalog: path, Others: others,
		Dependencies: resolve.NewUpgradeChecker(cmd.Context(), cat.Catalog), Warn: warner(cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	return writeOutput(cmd, outFile, func(w io.Writer) error { return page.WriteHTML(w, doc) })
}
