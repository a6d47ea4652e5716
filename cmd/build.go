package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
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
			dir := args[0]
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
			// build's --platform is a list, not the one platform that
			// other commands pick from an index.
			if opts.Pull.Platform != "" {
				opts.Platforms = strings.Split(opts.Pull.Platform, ",")
				opts.Pull.Platform = ""
				if err := image.CheckBuildPlatforms(opts.Platforms); err != nil {
					return usageErrorf("--platform: %v", err)
				}
			}
			if err := checkPullFlags(opts.Pull); err != nil {
				return err
			}
			if opts.Pull.Offline && targets.Push {
				return usageErrorf("--offline and --push cannot both be set: pushing connects to the registry")
			}
			switch {
			case server.String() == "fbc":
				if len(fbcBinaries) == 0 {
					self, err := os.Executable()
					if err != nil {
						return fmt.Errorf("finding this fbc binary: %w", err)
					}
					fbcBinaries = []string{self}
				}
				opts.ServerBinaries = fbcBinaries
				if !cmd.Flags().Changed("base-image") {
					opts.BaseImage = image.Scratch
				}
			case len(fbcBinaries) > 0:
				return usageErrorf("--fbc-binary is for --server fbc")
			}
			if opts.Created, err = sourceDateEpoch(); err != nil {
				return usageErrorf("%v", err)
			}
			if st, err := os.Stat(dir); err != nil {
				return fmt.Errorf("catalog directory: %w", err)
			} else if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			if err := checkHoldsBlobs(cmd, dir); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			if !noValidate {
				err := validateBeforeBuild(cmd, dir)
				endProgress(cmd)
				if err != nil {
					return err
				}
			}
			opts.Pull.Warn = warner(stderr)
			res, err := image.Build(cmd.Context(), dir, opts, targets)
			if res != nil {
				// Also when the push then failed: the outputs are there.
				for _, w := range res.Written {
					fmt.Fprintf(stderr, "wrote %s\n", w)
				}
			}
			if err != nil {
				if errors.Is(err, image.ErrOffline) && opts.BaseImage == image.DefaultBaseImage && !cmd.Flags().Changed("base-image") {
					// The default base image is opm's, pulled from quay.io:
					// offline, a build needs none at all.
					return fmt.Errorf("%w\nthe default base image is opm's; offline, build without one: --base-image scratch (a binary-less image, which OLM serves with its own opm) or --server fbc (fbc serves the catalog itself)", err)
				}
				return forceHint(err, "replace")
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

// checkHoldsBlobs refuses to build an image of a directory with no catalog
// blobs (a wrong path, a tree its .indexignore files hide), also under
// --no-validate. It stops reading at the first document.
func checkHoldsBlobs(cmd *cobra.Command, dir string) error {
	errFound := errors.New("found a document")
	err := declcfg.WalkPath(cmd.Context(), dir, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
		if len(f.Docs) > 0 {
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return nil
	case err != nil:
		return fault.Wrap(fault.Run, err)
	}
	return nothingThere(fmt.Errorf("nothing to build: %s holds no catalog blobs; %s", dir, checkEmpty([]string{dir})))
}

// validateBeforeBuild reports the catalog's problems on stderr and fails
// with exit 1 when there are errors (warnings are shown and the build goes
// on).
func validateBeforeBuild(cmd *cobra.Command, dir string) error {
	res, err := validate.Validate(cmd.Context(), []string{dir}, validate.Options{Progress: progressOf(cmd)})
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if len(res.Diagnostics) > 0 {
		if err := vreport.WriteText(stderr, res, vreport.Options{Color: useColor(stderr)}); err != nil {
			return err
		}
	}
	if err := resultError(res); err != nil {
		if errors.Is(err, errReported) {
			return fault.Errorf(fault.Input, "%s: not building an invalid catalog (%s)", dir, vreport.Summary(res))
		}
		return err
	}
	return nil
}
