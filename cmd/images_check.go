package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/images"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newImagesCheckCmd() *cobra.Command {
	var (
		pull       image.Options
		jobs       int
		mirrorSets []string
		allow      []string
		bundleOnly bool
		output     = newEnum("text", vreport.Formats...)
	)
	cmd := &cobra.Command{
		Use:   "check SOURCE...",
		Short: "Check that every image sources name exists, is pinned, is allowed and runs where its CSV says",
		Long: `check asks registries about every image SOURCEs name (sources as for fbc images
list) and reports, with the file and line where each reference is written:

  image-reference       a reference that is not one
  image-unpinned        a reference by tag instead of digest
  image-registry        a registry --allow-registry does not name
  image-missing         an image the registry does not have (its answer quoted)
  image-platform        an operator image that does not run on a platform its
                        CSV's operatorframework.io/arch.* and os.* labels claim
                        (an index's platforms, or a single image's config;
                        without labels OLM assumes linux/amd64)
  image-platform-label  (warning) operator images built for a platform the
                        labels leave out

Only manifests are read, never layers: a HEAD request per image, or a GET for
operator images (and a single image's config). Each distinct reference is
asked once, --jobs at a time, with the retry policy of every fbc pull; a
registry that cannot be reached is not asked again. A digest whose manifest is
in the cache needs no request; --offline answers from the cache alone.
--mirror-set FILE looks images up through mirrors as a cluster pulls (see
fbc images pin). --bundle-images-only checks the bundle images alone.

-o text, json, sarif or github, as fbc validate writes them. Exit status: 0
when there are no errors, 1 when there are, 2 when an image could not be
checked (its registry could not be reached or refused access, or the cache
lacks it offline): the findings are still printed, and the images left
unchecked are named on standard error.`,
		Example: `  fbc images check catalog/
  fbc images check --allow-registry registry.redhat.io --allow-registry quay.io/myorg catalog/
  fbc images check --bundle-images-only -o github catalog-templates/v4.18.yaml`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if jobs < 0 {
				return usageErrorf("--jobs %d: want a positive number (0 means the default)", jobs)
			}
			for _, a := range allow {
				if a == "" {
					return usageErrorf("--allow-registry: empty registry")
				}
			}
			ms, err := loadMirrorSets(mirrorSets)
			if err != nil {
				return err
			}
			s, err := scanForImages(cmd, pull, 0, args, images.ScanOptions{BundleImagesOnly: bundleOnly, KeepUnread: true})
			if err != nil {
				return err
			}
			if len(s.Bundles) == 0 {
				return nothingThere(fmt.Errorf("nothing to check: %s %s no bundles; %s",
					declcfg.ShowPaths(args, " "), plural(len(args), "holds", "hold"), checkEmpty(args)))
			}
			pull.Warn = warner(cmd.ErrOrStderr())
			client, err := image.NewClient(pull)
			if err != nil {
				return err
			}
			cr, err := images.Check(cmd.Context(), s, images.CheckOptions{Client: client, Mirrors: ms, AllowRegistries: allow, Jobs: jobs, Progress: progressOf(cmd)})
			endProgress(cmd)
			if err != nil {
				return err
			}
			return writeImagesCheck(cmd, output.String(), s, cr, args)
		},
	}
	output.register(cmd, "output", "o", "output format")
	cmd.Flags().StringArrayVar(&mirrorSets, "mirror-set", nil, "look images up through the mirrors of this ImageDigestMirrorSet, ImageTagMirrorSet or ImageContentSourcePolicy `FILE` (repeatable)")
	cmd.Flags().StringArrayVar(&allow, "allow-registry", nil, "allow images from this `REGISTRY` (host[:port]), or namespace or repository under it (host/namespace[/repo]); others are findings (repeatable)")
	cmd.Flags().BoolVar(&bundleOnly, "bundle-images-only", false, "check bundle images only, not related images or operator containers")
	cmd.Flags().IntVar(&jobs, "jobs", 0, "images asked about at once (default 16)")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "checking")
}

// writeImagesCheck writes the check's findings as -o says, then on standard
// error a count of what was checked (text and github) and each image that
// could not be checked. Exit 2 when one could not be, 1 on errors.
func writeImagesCheck(cmd *cobra.Command, format string, s *images.Scan, cr *images.CheckResult, args []string) error {
	res := cr.Result(s)
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the working directory: %w", err)
	}
	stdout := cmd.OutOrStdout()
	ropts := vreport.Options{
		Color:   format == "text" && useColor(stdout),
		Tool:    vreport.Tool{Name: "fbc", Version: buildinfo.Read().Version, InformationURI: informationURI},
		Rules:   images.Rules(),
		WorkDir: wd,
		Anchor:  firstFile(args),
	}
	if err := vreport.Write(stdout, format, res, ropts); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	stderr := cmd.ErrOrStderr()
	errs, warns := res.Count()
	if format == "text" || format == "github" {
		checked := cr.Asked - cr.Unchecked()
		fmt.Fprintf(stderr, "%s, %s: %d %s checked in %d %s\n", plural(errs, "1 error", fmt.Sprintf("%d errors", errs)),
			plural(warns, "1 warning", fmt.Sprintf("%d warnings", warns)),
			checked, plural(checked, "image", "images"), len(s.Bundles), plural(len(s.Bundles), "bundle", "bundles"))
	}
	if len(cr.NotChecked) > 0 {
		for _, f := range cr.NotChecked {
			fmt.Fprintf(stderr, "fbc: %s: %s not checked: %v\n", f.Pos, f.Ref, f.Err)
		}
		return fault.Wrap(fault.Run, fmt.Errorf("%d %s could not be checked; the result is incomplete",
			len(cr.NotChecked), plural(len(cr.NotChecked), "image", "images")))
	}
	if !res.Valid() {
		return errFindings
	}
	return nil
}
