package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
)

func init() { register(newRenderCmd) }

func newRenderCmd() *cobra.Command {
	output := newEnum("json", "json", "yaml")
	level := newEnum(render.MigrateNone, render.MigrationLevels...)
	var (
		migrateAll   bool
		opts         render.Options
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
			if opts.Jobs < 0 {
				return usageErrorf("--jobs %d: want a positive number of sources at once (0 means the default, 4 per CPU)", opts.Jobs)
			}
			if migrateAll && cmd.Flags().Changed("migrate-level") {
				return usageErrorf("--migrate and --migrate-level cannot be used together")
			}
			opts.MigrateLevel = level.String()
			if migrateAll {
				opts.MigrateLevel = render.MigrateAll
			}
			if err := checkPullFlags(opts.Image); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			opts.ImageRefTemplate = imageRefTmpl
			opts.Stdin = cmd.InOrStdin()
			opts.Warn = warner(stderr)
			opts.Image.Warn = opts.Warn
			var endProgress func()
			opts.Progress, endProgress = progressLine(stderr, "rendering")
			cfg, err := render.Render(cmd.Context(), args, opts)
			endProgress()
			if err != nil {
				return renderError(err)
			}
			return writeAll(cmd.OutOrStdout(), cfg, declcfg.Format(output.String()))
		},
	}
	output.register(cmd, "output", "o", "output format")
	level.register(cmd, "migrate-level", "", "run the catalog migrations up to this one")
	f := cmd.Flags()
	f.BoolVar(&migrateAll, "migrate", false, "run every catalog migration (same as --migrate-level with the last level)")
	f.StringVar(&imageRefTmpl, "image-ref-template", "", "Go template for the image of bundles rendered from directories, over {{.Package}} {{.Name}} {{.Version}}")
	f.StringVar(&imageRefTmpl, "alpha-image-ref-template", "", "opm's name for --image-ref-template")
	_ = f.MarkHidden("alpha-image-ref-template")
	f.BoolVar(&opts.WithChannels, "with-channels", false, "also write olm.package and olm.channel blobs derived from the bundles")
	f.IntVar(&opts.Jobs, "jobs", 0, "sources rendered (images pulled) at once (default: 4 per CPU)")
	addPullFlags(f, &opts.Image)
	return cmd
}

// renderError maps a render failure to the exit status: 1 when the inputs
// are at fault, 2 when the run is.
func renderError(err error) error {
	if render.IsInvalidInput(err) {
		return findingsError(err)
	}
	var es render.Errors
	if errors.As(err, &es) {
		return &exitError{code: ExitTrouble, err: err}
	}
	return usageErrorf("%v", err)
}

// writeAll encodes cfg in memory first, so that a failure leaves standard
// output empty rather than holding half a catalog.
func writeAll(w io.Writer, cfg *declcfg.DeclarativeConfig, f declcfg.Format) error {
	var buf bytes.Buffer
	if err := declcfg.Write(cfg, f, &buf); err != nil {
		return fmt.Errorf("encoding the catalog: %w", err)
	}
	_, err := buf.WriteTo(w)
	return err
}
