package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/pipeline"
)

func newReleaseCmd() *cobra.Command {
	var opts pipeline.Options
	var pull image.Options
	var ref string
	cmd := &cobra.Command{
		Use:   "release BUNDLE_DIR [--image REF]",
		Short: "Add a bundle to its catalog templates and catalogs, as the release bot does",
		Long: `Release does on your machine what operator-pipelines' release bot does after
a bundle's pull request merges (add_bundle_to_fbc.py, the "Add <package>
<version> to FBC" commits): BUNDLE_DIR is operators/<package>/<version>,
and REF the bundle's image.

REF's tag must be the bundle's version: BUNDLE_DIR's name or its CSV's
spec.version (with or without a leading v), as the pipelines tag a bundle's
image; an image named by digest is taken as it is, and --allow-tag-mismatch
takes a tag that is neither. Without --image, the image is named as every
bundle image of the operator's templates is, when they all follow one
<registry>/<namespace>/<package>:<version> convention (the community
pipeline's quay.io/community-operator-pipeline-prod/<package>:<version>):
that with BUNDLE_DIR's name as the version, which a note names; when they
do not, --image is required.

It reads BUNDLE_DIR/release-config.yaml and amends each template its
catalog_templates names, exactly as the bot does:
  - a basic template gets the channel entry (its name from the bundle's CSV,
    with the replaces, skips and skipRange release-config.yaml gives) at the
    end of each channel named, the channel at the end of the template when
    it has none, and the bundle {schema: olm.bundle, image: REF} at the end;
  - a semver template gets {Image: REF} at the end of each channel's Bundles,
    the channel at the end when it has none;
  - a missing template is created with the bot's defaults (a basic one with
    its package, defaultChannel from release-config.yaml or the first
    channel; a semver one generating major and minor channels);
  - a template listed twice is amended once per listing.
What is there already is not added again. The templates keep their comments
and layout: only what the release adds changes. Then every catalog the
amended templates are mapped to in ci.yaml is rendered again, as fbc
catalogs renders it (see its help for where bundle images come from; REF
itself renders from BUNDLE_DIR), and validated. Templates and catalogs land
together or not at all; --dry-run writes nothing and lists what would change.
Two releases in one repository at once run one after the other: each holds
the repository's lock file .fbc-lock from its first read to its last
write, and the second waits (--lock-wait, a minute by default) and then
adds its bundle to what the first wrote.

Exit status: 0 when the release was written, 1 when a catalog it renders
is not valid or a template cannot take the bundle (diagnostics on standard
error), 2 when it could not run: release-config.yaml or ci.yaml missing or
unusable, a template not mapped in ci.yaml, BUNDLE_DIR without a CSV, REF
the image of another bundle or tagged with another version, no REF and no
convention to name it after, another bundle image found nowhere, a file that
cannot be written.`,
		Example: `  fbc release operators/my-operator/1.2.0 --image quay.io/me/my-operator-bundle:1.2.0
  fbc release operators/my-operator/1.2.0 --image registry.example.com/op@sha256:... --offline
  fbc release operators/my-operator/1.2.0 --image quay.io/me/my-operator-bundle:1.2.0 --dry-run
  fbc release operators/my-operator/1.2.0 --offline    # the image named as the templates name theirs`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := pipelineSetup(cmd, pull, &opts)
			if err != nil {
				return err
			}
			opts.Renderer = r
			res, err := pipeline.Release(cmd.Context(), args[0], ref, opts)
			var tm *pipeline.TagMismatchError
			if errors.As(err, &tm) {
				return fmt.Errorf("%w, or --allow-tag-mismatch if its tag is right nonetheless", err)
			}
			var noImage *pipeline.NoImageError
			if errors.As(err, &noImage) {
				return fmt.Errorf("%w; give --image", err)
			}
			if err := pipelineError(cmd, res, err); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			if res.ImageNote != "" {
				fmt.Fprintf(stderr, "fbc: note: --image not given: %s\n", res.ImageNote)
			}
			if opts.Check {
				listStale(cmd, res)
				fmt.Fprintf(stderr, "dry run: %d %s would change\n", len(res.Stale), plural(len(res.Stale), "file", "files"))
				printStats(stderr, res)
				return nil
			}
			printChanges(stderr, res)
			printStats(stderr, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&ref, "image", "", "the bundle's image `REF`, as the templates will name it (default: named as the templates' bundle images are)")
	cmd.Flags().StringVar(&opts.ImageMap, "image-map", "", "YAML or JSON `FILE` mapping image references to local bundle sources")
	cmd.Flags().BoolVar(&opts.AllowTagMismatch, "allow-tag-mismatch", false, "take REF though its tag is neither the bundle directory's name nor its CSV's version")
	cmd.Flags().BoolVar(&opts.Check, "dry-run", false, "write nothing: list the files the release would change")
	cmd.Flags().BoolVar(&opts.NoValidate, "no-validate", false, "write the catalogs without validating them")
	addLockFlag(cmd, &opts)
	addPullFlags(cmd.Flags(), &pull)
	_ = cmd.MarkFlagFilename("image-map", "yaml", "yml", "json")
	return cmd
}
