package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/build"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newBuildCmd() *cobra.Command {
	var (
		opts        image.BuildOptions
		targets     image.BuildTargets
		labels      []string
		noValidate  bool
		server      = newEnum("opm", "opm", "fbc")
		fbcBinaries []string
	)
	cmd := &cobra.Command{
		Use:   "build DIR --tag REF (--push | --output oci:DIR | --output docker-archive:FILE)",
		Short: "Build a catalog image without a container runtime",
		Long: `Build a catalog image from the catalog directory DIR without Docker: the base
image (pulled like any image fbc reads) plus one reproducible layer holding DIR
at /configs, the label operators.operatorframework.io.index.configs.v1=/configs,
your -l labels, and on an opm base ENTRYPOINT ["/bin/opm"] with
CMD ["serve", "/configs"]. --base-image scratch builds a binary-less image:
no base layers, no entrypoint. --server fbc builds an image served by fbc
itself: no base image (unless --base-image names one), this fbc (or
--fbc-binary) at /bin/fbc, ENTRYPOINT ["/bin/fbc"] CMD ["serve", "/configs"]
(see docs/serve.md). --platform linux/amd64,linux/arm64 builds an
image index, each image on the base's image for its platform.

The catalog is validated first; an invalid catalog is reported and nothing is
built (exit 1). Building the same directory on the same base twice gives the
same digest: files are stored sorted, owned by root, 0644/0755, with every
time set to SOURCE_DATE_EPOCH (default 0).

Unlike the generated Dockerfile, no serve cache is pre-built (that needs
running opm): opm builds it at startup. See docs/build.md.

The image is pushed to --tag with --push, and/or written to local outputs:
oci:DIR[:TAG] (an OCI image layout) or docker-archive:FILE[:REF] (docker load /
podman load). stdout gets the pushed reference by digest (REPO@sha256:...), or
the digest when nothing was pushed.`,
		Example: `  fbc build catalog --tag quay.io/me/catalog:v1 --push
  fbc build catalog --tag quay.io/me/catalog:v1 --output oci:out/catalog
  fbc build catalog --tag localhost:5000/catalog:dev --base-image scratch --push --use-http
  fbc build catalog --tag quay.io/me/catalog:v1 --server fbc --push`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Labels, err = parseLabels(cmd, labels); err != nil {
				return err
			}
			if targets.Tag == "" {
				return usageErrorf("--tag is required: it names the image")
			}
			if !targets.Push && len(targets.Outputs) == 0 {
				return usageErrorf("nothing to do: give --push, --output oci:DIR or --output docker-archive:FILE")
			}
			if err := buildPlatforms(&opts); err != nil {
				return err
			}
			if err := checkPullFlags(opts.Pull); err != nil {
				return err
			}
			if opts.Pull.Offline && targets.Push {
				return usageErrorf("--offline and --push cannot both be set: pushing connects to the registry")
			}
			if err := buildServer(cmd, server.String(), fbcBinaries, &opts); err != nil {
				return err
			}
			if opts.Created, err = sourceDateEpoch(); err != nil {
				return usageErrorf("%v", err)
			}
			stderr := cmd.ErrOrStderr()
			opts.Pull.Warn = warner(stderr)
			res, err := build.Run(cmd.Context(), args[0], build.Options{
				Image: opts, Targets: targets, NoValidate: noValidate, Progress: progressOf(cmd),
				Validated: func(res *validate.Result) error { return printBuildValidation(cmd, res) },
			})
			if res != nil {
				// Also when a later output or the push failed: these are there.
				for _, w := range res.Written {
					fmt.Fprintf(stderr, "wrote %s\n", w)
				}
			}
			if err != nil {
				return buildHint(cmd, err, args[0], opts)
			}
			if res.Pushed != "" {
				fmt.Fprintf(stderr, "pushed %s\n", targets.Tag)
				_, err = fmt.Fprintln(cmd.OutOrStdout(), res.Pushed)
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), res.Digest)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&targets.Tag, "tag", "t", "", "name of the image: push destination and name in local outputs (required)")
	f.StringVarP(&opts.BaseImage, "base-image", "i", image.DefaultBaseImage, `base image ("scratch" for a binary-less image)`)
	opmNames(f, map[string]string{"binary-image": "base-image"}) // opm generate dockerfile's deprecated name
	f.BoolVar(&targets.Push, "push", false, "push the image to --tag")
	f.StringArrayVarP(&targets.Outputs, "output", "o", nil, "write the image to oci:DIR[:TAG] or docker-archive:FILE[:REF] (repeatable)")
	f.BoolVar(&targets.Force, "force", false, "replace existing output files and directories")
	f.StringArrayVarP(&labels, "extra-labels", "l", nil, "extra image label KEY=VALUE (repeatable; commas are part of the value)")
	addPullFlags(f, &opts.Pull)
	f.Lookup("platform").Usage = "platform(s) to build, os/arch[/variant], comma-separated; several build an image index (default " + image.DefaultPlatform + ")"
	f.BoolVar(&noValidate, "no-validate", false, "build without validating the catalog first")
	server.register(cmd, "server", "", "what serves the catalog in the image: opm (from the base image) or fbc (fbc itself, no base image needed)")
	f.StringArrayVar(&fbcBinaries, "fbc-binary", nil, "with --server fbc: a Linux fbc executable to ship, one per platform built (repeatable; default: this fbc)")
	return withProgress(cmd, "validating")
}

// sourceDateEpoch reads SOURCE_DATE_EPOCH (reproducible-builds.org): the
// time stamped on the image and its files. Unset means the Unix epoch.
func sourceDateEpoch() (time.Time, error) {
	v, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || v == "" {
		return time.Unix(0, 0), nil
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil || secs < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want a non-negative number of seconds", v)
	}
	return time.Unix(secs, 0), nil
}

// buildPlatforms reads --platform, which for build is a list, not the one
// platform other commands pick from an index.
func buildPlatforms(opts *image.BuildOptions) error {
	if opts.Pull.Platform == "" {
		return nil
	}
	opts.Platforms = strings.Split(opts.Pull.Platform, ",")
	opts.Pull.Platform = ""
	if err := image.CheckBuildPlatforms(opts.Platforms); err != nil {
		return usageErrorf("--platform: %v", err)
	}
	return nil
}

// buildServer reads --server and --fbc-binary: --server fbc ships this fbc
// (or the --fbc-binary executables) and builds on no base image unless
// --base-image names one.
func buildServer(cmd *cobra.Command, server string, binaries []string, opts *image.BuildOptions) error {
	if server != "fbc" {
		if len(binaries) > 0 {
			return usageErrorf("--fbc-binary is for --server fbc")
		}
		return nil
	}
	if len(binaries) == 0 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this fbc binary: %w", err)
		}
		binaries = []string{self}
	}
	opts.ServerBinaries = binaries
	if !cmd.Flags().Changed("base-image") {
		opts.BaseImage = image.Scratch
	}
	return nil
}

// printBuildValidation shows the findings of the catalog's validation on
// standard error, before the build goes on (warnings) or stops (errors).
func printBuildValidation(cmd *cobra.Command, res *validate.Result) error {
	endProgress(cmd)
	if len(res.Diagnostics) == 0 {
		return nil
	}
	stderr := cmd.ErrOrStderr()
	return vreport.WriteText(stderr, res, vreport.Options{Color: useColor(stderr)})
}

// buildHint adds to build's errors what gets past them: --force for an
// existing output, a base-less build offline, the path to check for a
// directory without blobs.
func buildHint(cmd *cobra.Command, err error, dir string, opts image.BuildOptions) error {
	var empty *build.EmptyError
	switch {
	case errors.As(err, &empty):
		return nothingThere(fmt.Errorf("%w; %s", err, checkEmpty([]string{dir})))
	case errors.Is(err, image.ErrOffline) && opts.BaseImage == image.DefaultBaseImage && !cmd.Flags().Changed("base-image"):
		// The default base image is opm's, pulled from quay.io:
		// offline, a build needs none at all.
		return fmt.Errorf("%w\nthe default base image is opm's; offline, build without one: --base-image scratch (a binary-less image, which OLM serves with its own opm) or --server fbc (fbc serves the catalog itself)", err)
	case errors.As(err, new(*image.OutputError)) && !errors.As(err, new(*atomicfile.ExistsError)):
		// An output in the way: the message says what is there and
		// what to do instead.
		return remedied{err}
	}
	return forceHint(err, "replace")
}
