package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
)

func newRenderCmd() *cobra.Command {
	output := newEnum("json", "json", "yaml")
	level := newEnum(render.MigrateNone, render.MigrationLevels...)
	var (
		migrateAll   bool
		pull         image.Options
		jobs         int
		req          render.Request
		imageRefTmpl string
	)
	cmd := &cobra.Command{
		Use:   "render SOURCE...",
		Short: "Render bundles, catalogs and images into file-based catalog blobs",
		Long: `Render turns each SOURCE into FBC blobs and writes them all, in opm's order, to
standard output:

  a bundle directory (manifests/ and metadata/)  -> one olm.bundle, as opm renders it
  a bundle image                                 -> one olm.bundle, image set to SOURCE
  a catalog directory, a catalog file, or -      -> its blobs, loaded as they are
  a catalog image                                -> the blobs of its configs directory

Files of operator repositories that are neither catalogs nor bundles (ci.yaml,
release-config.yaml, READMEs, catalog templates), which a glob such as
operators/NAME/* sweeps in, are skipped with a note; an operator repository
or one of its folders is refused with one line saying what to run instead.

A SOURCE that is not an existing path is an image reference: REGISTRY/REPO:TAG,
REGISTRY/REPO@sha256:..., or a local image: oci:DIR[:TAG|@DIGEST] (an OCI
layout), oci-archive:FILE, docker-archive:FILE[:REF] (docker save). Images are
told apart by their labels; a multi-platform image resolves to linux/amd64
unless --platform says otherwise. No Docker daemon or policy.json is needed;
credentials come from the Docker config (docker login) and its credential
helpers. Pulled blobs are cached by digest (--cache-dir), so a digest-pinned
image renders again without the network; --offline refuses to connect.

A bundle's olm.bundle carries its manifests as olm.bundle.object properties;
--migrate-level bundle-object-to-csv-metadata (or --migrate) replaces them with
one olm.csv.metadata property for bundles that have an image. A bundle
directory has no image unless --image-ref-template computes one from
{{.Package}}, {{.Name}} and {{.Version}}.

--with-channels also writes an olm.package and olm.channel blobs for the
rendered bundles' packages, built from their channel annotations and the
CSVs' replaces, skips and olm.skipRange: a directory of bundles becomes a
complete package (see docs/render.md for the default-channel rule).

Everything is rendered before anything is written: on any error nothing goes
to standard output. Exit status: 1 when an input is at fault (not a bundle, a
manifest that does not parse, an invalid catalog), 2 when fbc could not run
(a missing path, an unreadable file, an unreachable registry, bad flags).`,
		Example: `  fbc render bundle/ > bundle.json
  fbc render operators/skupper-operator/* --with-channels -o yaml
  fbc render bundle/ --image-ref-template 'quay.io/acme/{{.Package}}-bundle:v{{.Version}}' --migrate
  fbc render catalog/ -o yaml
  fbc render quay.io/acme/foo-bundle@sha256:... oci:layout:v1 --with-channels
  fbc render localhost:5000/catalog:latest --use-http --migrate`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := countStdin(args); n > 1 {
				return usageErrorf("standard input (-) can be read only once, got it %d times", n)
			}
			if jobs < 0 {
				return usageErrorf("--jobs %d: want a positive number of sources at once (0 means the default, 4 per CPU)", jobs)
			}
			if migrateAll && cmd.Flags().Changed("migrate-level") {
				return usageErrorf("--migrate and --migrate-level cannot be used together")
			}
			req.MigrateLevel = level.String()
			if migrateAll {
				req.MigrateLevel = render.MigrateAll
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			sources, err := screenSources(cmd, args, false)
			if err != nil {
				return err
			}
			if len(sources) == 0 {
				return nothingThere(fmt.Errorf("nothing to render: every source was skipped"))
			}
			r, err := newRenderer(cmd, pull, jobs)
			if err != nil {
				return err
			}
			req.ImageRefTemplate = imageRefTmpl
			// The output is spooled blob by blob and written once every
			// source has rendered: nothing reaches standard output on an
			// error, and the catalog is never held whole.
			spool, err := declcfg.NewSpool(declcfg.Format(output.String()))
			if err != nil {
				return err
			}
			defer spool.Close()
			err = r.RenderTo(cmd.Context(), sources, req, spool.Add)
			endProgress(cmd)
			if err != nil {
				return err
			}
			_, err = spool.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	output.register(cmd, "output", "o", "output format")
	level.register(cmd, "migrate-level", "", "run the catalog migrations up to this one")
	f := cmd.Flags()
	f.BoolVar(&migrateAll, "migrate", false, "run every catalog migration (same as --migrate-level with the last level)")
	f.StringVar(&imageRefTmpl, "image-ref-template", "", "Go template for the image of bundles rendered from directories, over {{.Package}} {{.Name}} {{.Version}}")
	opmNames(f, map[string]string{"alpha-image-ref-template": "image-ref-template"})
	f.BoolVar(&req.WithChannels, "with-channels", false, "also write olm.package and olm.channel blobs derived from the bundles")
	f.IntVar(&jobs, "jobs", 0, "sources rendered (images pulled) at once (default: 4 per CPU)")
	addPullFlags(f, &pull)
	return withProgress(cmd, "rendering")
}
