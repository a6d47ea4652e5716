package cmd

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/images"
)

func newImagesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "images",
		Short: "List, pin and check the images catalogs name",
		Long: `images works on the container images that catalogs, catalog templates and
bundles name: every bundle image, every related image and the images the
operators' deployments run.

  list   prints them (a table, JSON rows, or one reference a line for skopeo,
         oc-mirror or xargs)
  pin    rewrites tags to the digests registries hold now, in place, through
         mirror sets as a cluster pulls
  check  asks registries that every image exists, and checks that each is
         pinned, from an allowed registry, and runs on the platforms its CSV
         claims

See docs/images.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newImagesListCmd(), newImagesPinCmd(), newImagesCheckCmd())
	return cmd
}

// scanOptions are the scan options of an images subcommand: images pulled
// as the pull flags say.
func scanForImages(cmd *cobra.Command, pull image.Options, jobs int, sources []string, opts images.ScanOptions) (*images.Scan, error) {
	if n := countStdin(sources); n > 1 {
		return nil, usageErrorf("standard input (-) can be read only once, got it %d times", n)
	}
	if opts.Renderer == nil && !opts.Files {
		r, err := newRenderer(cmd, pull, jobs)
		if err != nil {
			return nil, err
		}
		opts.Renderer = r
	}
	opts.Stdin = cmd.InOrStdin()
	s, err := images.ScanSources(cmd.Context(), sources, opts)
	var le declcfg.LoadErrors
	if errors.As(err, &le) {
		return nil, fmt.Errorf("reading %s:\n%w", declcfg.ShowPaths(sources, ", "), err)
	}
	return s, err
}

func newImagesListCmd() *cobra.Command {
	var (
		pull       image.Options
		jobs       int
		onlyNew    []string
		bundleOnly bool
		output     = newEnum("text", "text", "json", "plain")
	)
	cmd := &cobra.Command{
		Use:   "list SOURCE...",
		Short: "List every bundle image, related image and operator container that sources name",
		Long: `list prints the images that SOURCEs name: each bundle's image, its related
images and the images its operator's deployments run, with the package and
bundle they belong to.

SOURCE is a catalog directory or file, - for a catalog on standard input, a
catalog template (basic, semver or substitutes, or a directory of them), a
bundle directory, or a bundle or catalog image (registry, oci:, oci-archive:,
docker-archive:). Catalogs are scanned, not rendered. A template's bundle
stubs name only bundle images: their related images are read from those
images' manifests (nothing else of the template is rendered), unless
--bundle-images-only says the bundle images are all that is wanted.

KIND is bundle (the bundle image), operator (a container or init container of
the CSV's deployments, or its containerImage annotation; in a catalog without
CSVs, the related images opm added without a name) or related (any other
related image, RELATED_IMAGE_* variables included). An image a bundle names
several times is one row, of its most specific kind.

-o text prints a table, -o json one JSON object per row, -o plain each image
once, one a line, for skopeo, oc-mirror or xargs.

--only-new OLD lists only the images that OLD (a source of any kind, repeatable)
does not name: the images a pull request brings, or the unreleased bundles a
scan must cover.`,
		Example: `  fbc images list catalog/
  fbc images list -o plain catalog/ | xargs -n1 skopeo inspect --raw
  fbc images list --only-new main-catalog/ catalog/
  fbc images list --bundle-images-only catalog-templates/v4.18.yaml`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if jobs < 0 {
				return usageErrorf("--jobs %d: want a positive number (0 means the default, 4 per CPU)", jobs)
			}
			opts := images.ScanOptions{BundleImagesOnly: bundleOnly}
			s, err := scanForImages(cmd, pull, jobs, args, opts)
			if err != nil {
				return err
			}
			if len(s.Bundles) == 0 {
				return nothingThere(fmt.Errorf("no bundles: %s %s no olm.bundle blobs, bundle stubs or bundles; %s",
					declcfg.ShowPaths(args, " "), plural(len(args), "holds", "hold"), checkEmpty(args)))
			}
			rows := s.Rows()
			if len(onlyNew) > 0 {
				old, err := scanForImages(cmd, pull, jobs, onlyNew, opts)
				if err != nil {
					return fmt.Errorf("--only-new: %w", err)
				}
				rows = images.OnlyNew(rows, old)
			}
			endProgress(cmd)
			var buf bytes.Buffer
			switch output.String() {
			case "plain":
				seen := map[string]bool{}
				for _, r := range rows {
					if !seen[r.Image] {
						seen[r.Image] = true
						fmt.Fprintln(&buf, r.Image)
					}
				}
			case "json":
				err = writeJSONRows(&buf, rowsOf(rows, func(images.Row) []string { return nil }))
			default:
				err = writeTable(&buf, "PACKAGE\tBUNDLE\tKIND\tIMAGE", rowsOf(rows, func(r images.Row) []string {
					return []string{dash(r.Package), dash(r.Bundle), string(r.Kind), r.Image}
				}))
			}
			if err != nil {
				return err
			}
			_, err = buf.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	output.register(cmd, "output", "o", "output format")
	cmd.Flags().StringArrayVar(&onlyNew, "only-new", nil, "list only images that `OLD` (a catalog, template, bundle or image) does not name (repeatable)")
	cmd.Flags().BoolVar(&bundleOnly, "bundle-images-only", false, "list bundle images only (template stubs are not read)")
	cmd.Flags().IntVar(&jobs, "jobs", 0, "images read at once (default: 4 per CPU)")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "reading")
}

// dash stands for an unknown value in a table.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
