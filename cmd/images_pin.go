package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/images"
	"github.com/fbc-project/fbc/internal/fault"
)

// loadMirrorSets reads the --mirror-set files.
func loadMirrorSets(files []string) (*images.MirrorSets, error) {
	ms := &images.MirrorSets{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, usageErrorf("--mirror-set %s: %v", f, unwrapPathErr(err))
		}
		if err := ms.Parse(f, data); err != nil {
			return nil, usageErrorf("--mirror-set: %v", err)
		}
	}
	return ms, nil
}

// unwrapPathErr drops the path an fs.PathError repeats.
func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func newImagesPinCmd() *cobra.Command {
	var (
		pull       image.Options
		jobs       int
		mirrorSets []string
		check      bool
	)
	cmd := &cobra.Command{
		Use:   "pin PATH...",
		Short: "Rewrite image tags to the digests registries hold now, in place",
		Long: `pin rewrites, in catalog templates, catalogs and bundle directories, every
image reference by tag to the digest its registry holds now: a template's
bundle stubs and substitutions, an olm.bundle's image and relatedImages, a
bundle CSV's relatedImages, containers and init containers (and their
RELATED_IMAGE_* variables) and containerImage annotation. The reference keeps
its repository and loses its tag (quay.io/org/op:v1 becomes
quay.io/org/op@sha256:...), as the pipelines pin. Nothing else in the file
changes: layout, comments and quoting stay. Each file is written whole
(a temporary file renamed over it) and only if every reference in it
resolved; a read-only file is left alone. Each distinct reference is asked
for once.

--mirror-set FILE (repeatable) reads ImageDigestMirrorSet, ImageTagMirrorSet
and ImageContentSourcePolicy documents (YAML or JSON, several per file, or a
List). A reference is looked for where a cluster would pull it: tag mirrors
for a tag (digest mirrors serve digests only), in order, then its source
unless a rule says NeverContactSource; the source's name is what is written.
A reference written with a mirror's name is written back with its source's
name, as Konflux's run-opm-command does before rendering.

--check changes nothing and asks no registry: it lists the references pin
would change and exits 1 if there are any (a CI step).

A reference that cannot be resolved is named with the registry's answer (or,
with mirrors, each place's), and its file is not written. Exit status: 0 when
every file is pinned, 1 when a reference does not exist (or, with --check,
when something is not pinned), 2 when a registry cannot be reached, a file
cannot be written, or the cache lacks what --offline needs.`,
		Example: `  fbc images pin catalog-templates/v4.18.yaml
  fbc images pin --mirror-set .tekton/images-mirror-set.yaml v4.18/catalog-template.json
  fbc images pin --check catalog/ bundle/`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			for _, a := range args {
				if a == "-" {
					return usageErrorf("pin rewrites files in place: standard input cannot be pinned")
				}
			}
			ms, err := loadMirrorSets(mirrorSets)
			if err != nil {
				return err
			}
			s, err := scanForImages(cmd, pull, jobs, args, images.ScanOptions{Files: true})
			if err != nil {
				return err
			}
			opts := images.PinOptions{Mirrors: ms, Check: check, Jobs: jobs, Progress: progressOf(cmd)}
			if !check {
				pull.Warn = warner(cmd.ErrOrStderr())
				if opts.Client, err = image.NewClient(pull); err != nil {
					return err
				}
			}
			res, err := images.Pin(cmd.Context(), s, opts)
			endProgress(cmd)
			if err != nil {
				return err
			}
			return reportPin(cmd.OutOrStdout(), cmd.ErrOrStderr(), res, check, len(s.Refs()))
		},
	}
	cmd.Flags().StringArrayVar(&mirrorSets, "mirror-set", nil, "look images up through the mirrors of this ImageDigestMirrorSet, ImageTagMirrorSet or ImageContentSourcePolicy `FILE` (repeatable)")
	cmd.Flags().BoolVar(&check, "check", false, "change nothing: list what is not pinned and exit 1 if anything is")
	cmd.Flags().IntVar(&jobs, "jobs", 0, "references resolved at once (default 16)")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "pinning")
}

// reportPin prints what pin changed (stdout) and what it could not do
// (stderr), and returns the error that gives the exit status.
func reportPin(stdout, stderr io.Writer, res *images.PinResult, check bool, total int) error {
	for _, c := range res.Changes {
		switch {
		case check && c.New == "":
			fmt.Fprintf(stdout, "%s: %s is not pinned\n", c.Pos, c.Old)
		case check:
			fmt.Fprintf(stdout, "%s: %s names a mirror; its source is %s\n", c.Pos, c.Old, c.New)
		case c.From != "":
			fmt.Fprintf(stdout, "%s: %s -> %s (found at %s)\n", c.Pos, c.Old, c.New, c.From)
		default:
			fmt.Fprintf(stdout, "%s: %s -> %s\n", c.Pos, c.Old, c.New)
		}
	}
	for _, f := range res.Failures {
		fmt.Fprintf(stderr, "fbc: %s: cannot pin %s: %v\n", f.Pos, f.Ref, f.Err)
	}
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "fbc: %v\n", e)
	}
	if check {
		if len(res.Changes) > 0 {
			fmt.Fprintf(stderr, "%d of %d references need pinning\n", len(res.Changes), total)
			return errFindings
		}
		fmt.Fprintf(stderr, "all %d references are pinned\n", total)
		return nil
	}
	summary := fmt.Sprintf("%d %s rewritten in %d %s", len(res.Changes), plural(len(res.Changes), "reference", "references"),
		len(res.Written), plural(len(res.Written), "file", "files"))
	if len(res.Held) > 0 {
		summary += fmt.Sprintf("; not written: %s", strings.Join(res.Held, ", "))
	}
	fmt.Fprintln(stderr, summary)
	switch {
	case len(res.Errors) > 0 || res.Unreachable():
		return fault.Wrap(fault.Run, errReported)
	case len(res.Failures) > 0:
		return errFindings
	}
	return nil
}
