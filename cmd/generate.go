package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
)

func newGenerateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate files for building catalog images",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newGenerateDockerfileCmd())
	return cmd
}

func newGenerateDockerfileCmd() *cobra.Command {
	var (
		opts        image.DockerfileOptions
		labels      []string
		force       bool
		binaryImage string
	)
	cmd := &cobra.Command{
		Use:   "dockerfile DIR",
		Short: "Write the Dockerfile opm would write for a catalog directory",
		Long: `Write <parent>/<name>.Dockerfile for the catalog directory DIR: the same text
opm generate dockerfile writes, for a build whose context is DIR's parent.

Unlike opm, label values are quoted so that '"', '$' and '\' survive, -l is
repeatable and never split at commas (-l 'k=a,b' is one label), and an
existing Dockerfile is replaced only with --force. The path written is
printed on stderr. To build a catalog image without Docker, see fbc build.`,
		Example: `  fbc generate dockerfile catalog
  fbc generate dockerfile catalog -i scratch -l org.opencontainers.image.source=https://example.com/repo`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Labels, err = parseLabels(cmd, labels); err != nil {
				return err
			}
			if cmd.Flags().Changed("binary-image") {
				// opm's deprecated --binary-image: the base image, and the
				// builder image unless that is given.
				if cmd.Flags().Changed("base-image") {
					return usageErrorf("--binary-image and --base-image cannot both be set: --binary-image is opm's old name for --base-image")
				}
				opts.BaseImage = binaryImage
				if !cmd.Flags().Changed("builder-image") {
					opts.BuilderImage = binaryImage
				}
			}
			if opts.BaseImage == "" {
				return usageErrorf("base image is unset")
			}
			if opts.BuilderImage == image.Scratch {
				return usageErrorf("invalid builder image %q: the builder stage runs /bin/opm", image.Scratch)
			}
			path, err := image.WriteDockerfile(args[0], opts, force)
			if err != nil {
				return forceHint(err, "overwrite")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.BaseImage, "base-image", "i", image.DefaultBaseImage, `image the catalog is served from ("scratch" for a binary-less image)`)
	cmd.Flags().StringVarP(&opts.BuilderImage, "builder-image", "b", image.DefaultBaseImage, "image that pre-builds the serve cache (needs /bin/opm)")
	cmd.Flags().StringArrayVarP(&labels, "extra-labels", "l", nil, "extra image label KEY=VALUE (repeatable; commas are part of the value)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing Dockerfile")
	cmd.Flags().StringVar(&binaryImage, "binary-image", "", "opm's deprecated name for --base-image (also the builder image unless --builder-image is given)")
	_ = cmd.Flags().MarkHidden("binary-image")
	return cmd
}

// parseLabels reads repeated KEY=VALUE flags. A value may contain '=' and
// ','; a repeated key keeps its last value, with a warning.
func parseLabels(cmd *cobra.Command, flags []string) (map[string]string, error) {
	labels := map[string]string{}
	for _, l := range flags {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, usageErrorf("invalid label %q: want KEY=VALUE", l)
		}
		if err := image.CheckLabel(k, v); err != nil {
			return nil, fault.Wrap(fault.Usage, err)
		}
		if old, dup := labels[k]; dup && old != v {
			warner(cmd.ErrOrStderr()).Printf("label %s given twice; using %q", k, v)
		}
		labels[k] = v
	}
	return labels, nil
}
