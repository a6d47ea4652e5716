package cmd

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/review"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profiles"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newValidateCmd() *cobra.Command {
	output := newEnum("text", vreport.Formats...)
	pipeline := newEnum("", "community", "certified", "konflux")
	var strict bool
	var schemaDirs, profileFlags, gates []string
	var targetOCP, base string
	var all bool
	var pull image.Options
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check catalogs against the FBC schemas and OLM's channel rules",
		Long: `Validate checks file-based catalogs and reports every problem in one run, each
with a stable rule id, its file and line, and what to do about it.

PATH is a catalog directory (walked recursively, honouring .indexignore files),
a single JSON or YAML file, - for standard input, or a catalog image (registry,
oci:, oci-archive:, docker-archive:, pulled as fbc render pulls it; its files
are shown as IMAGE@DIGEST:configs/...). Several paths are checked as one
catalog, each file once however many of them reach it. A PATH that is a bundle directory (manifests/ and metadata/) or
a bundle image is checked as a bundle, on its own: the olm.bundle it renders
to, and its contents against the profiles (operatorframework by default).
An operator's folder of an operator repository (operators/NAME) is checked
as the pipelines read it: every bundle directory (its contents against the
profiles, as other bundle directories), ci.yaml and each release-config.yaml
against the pipelines' rules, the catalog templates ci.yaml maps, rendered
offline (images from the image cache and the repository itself, never a
registry) and compared with the catalogs they are mapped to, then those
catalogs (catalogs/VERSION/NAME), each with the rules of the OpenShift
release its name gives. A catalog of a repository
(<repository>/catalogs/vX.Y, a package in it, or its catalog file) is checked
with vX.Y's rules, as if --target-ocp X.Y were given; the repository
catalogs of one release are checked together, as one catalog, and one named
twice (or mapped by an operator folder given too) is checked once, for the
release asked for. Other parts of operator repositories
(ci.yaml, READMEs, templates, catalog-templates/, a version folder whose
bundle is one level down, operators/, the repository itself, package-manifest
folders) are skipped with one line saying what they are and which command
takes them; they never stop the run.

--profile checks what bundles hold, in bundle directories, images and every
bundle of the catalogs: operatorframework (operator-sdk's default validators),
operatorhub (OperatorHub metadata), good-practices, olmv1 (what OLM v1
refuses) and k8s-version=X.Y (Kubernetes APIs removed by that version).
The profiles run in fbc-profile, fbc's sibling executable, which fbc finds
next to itself or on PATH (make install installs both).
--profile konflux adds the catalog rules only Konflux applies to an FBC
fragment: one folder per package, none empty, at least one olm.package,
bundle images pinned by digest on registry.redhat.io, related images
pinned, and with --target-ocp the bundle metadata that release needs; fbc
checks those itself.

In an operator repository the rules are the pipeline's that checks it:
config.yaml's organization says which (community-operators: the
community pipeline; certified-operators: the certified one), --pipeline
chooses; a bundle a published catalog holds is released, and what the
rules applied when it was released find in it is a warning.

--base REV judges a change as the pipelines judge a pull request: from a
git revision (origin/main) or a directory holding the repository as it
was, to the working tree. The operator folders and catalogs the change
touches are checked, and what REV had already is counted in one line
(--all lists it) instead of failing; what makes a touched catalog
unservable fails wherever it is in that catalog; and the change to each
touched catalog package is checked as fbc diff checks it. Without PATH,
the repository around the working directory.

Diagnostics go to standard output; in text form a one-line summary goes to
standard error. Exit status: 0 when there are no errors (warnings allowed),
1 when there are errors, 2 when the check could not run (bad flags, a path
that does not exist, a file in the catalog that could not be read: rule
io-error, or no blobs at all to check). See docs/validate.md for the rules
and output formats.

A catalog image is also checked as a built image, as Konflux checks one:
its configs label and the directory it serves, one non-empty folder per
package, an index's platforms, and a serve cache (opm serve --cache-dir)
that no longer matches the configs, which makes catalog pods crash-loop
(rules catalog-image-*, see docs/images.md).

--target-ocp VERSION names the OpenShift release the catalog is published
for and applies what its pipelines require: from 4.17 on, bundles carry
olm.csv.metadata, and olm.bundle.object properties are errors
(metadata-format) that fbc render --migrate-level
bundle-object-to-csv-metadata fixes; a skipRange may not reach above its
bundle's version (skip-range-upper). OpenShift 5 releases (5.0) are
targets too.`,
		Example: `  fbc validate catalog/
  fbc validate -o json catalog/ > report.json
  fbc validate --strict -o github catalog/
  cat catalog.yaml | fbc validate -
  fbc validate --target-ocp 4.18 catalogs/v4.18/
  fbc validate operators/my-operator
  fbc validate --base origin/main
  fbc validate bundle/ quay.io/acme/op-bundle:v1.2.0
  fbc validate --profile operatorhub,olmv1,k8s-version=1.33 catalog/
  fbc validate --profile konflux --target-ocp 4.18 catalog/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if base != "" {
				return nil // the repository around the working directory
			}
			return minArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			defer withGCPercent(validateGCPercent)()
			if n := countStdin(args); n > 1 {
				return usageErrorf("standard input (-) can be read only once, got it %d times", n)
			}
			for _, dir := range schemaDirs {
				if st, err := os.Stat(dir); err != nil {
					return usageErrorf("--schema %s: %v", dir, err)
				} else if !st.IsDir() {
					return usageErrorf("--schema %s: not a directory", dir)
				}
			}
			set, args, err := profileSet(profileFlags, gates, args)
			if err != nil {
				return err
			}
			if len(args) == 0 && base == "" {
				return usageErrorf("validate needs at least one PATH besides the values of --profile")
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			target, err := parseTargetOCP(targetOCP)
			if err != nil {
				return err
			}
			_, fixed := os.LookupEnv("GOMAXPROCS")
			rep, err := review.Run(cmd.Context(), args, review.Options{
				Strict: strict, SchemaDirs: schemaDirs, Konflux: set.Has(profiles.Konflux), TargetOCP: target,
				Pipeline: validate.Pipeline(pipeline.String()), Base: base,
				Render: renderOptions(cmd, pull, 0), Profiles: set, FindProfiles: findProfiles,
				ShareProcessors: !fixed, Progress: progressOf(cmd), WorkDir: workDir(),
			})
			endProgress(cmd)
			printReviewNotes(cmd, rep, target)
			if err != nil {
				return validateError(err, args)
			}
			if all {
				rep.ListAlreadyThere()
			}
			return writeValidateReport(cmd, output.String(), rep, args)
		},
	}
	output.register(cmd, "output", "o", "output format")
	cmd.Flags().StringVar(&base, "base", "", "judge the change from `REV` (a git revision such as origin/main, or a directory holding the repository as it was) to the working tree, as the pipelines judge a pull request")
	cmd.Flags().BoolVar(&all, "all", false, "with --base, also list the findings the base had already")
	pipeline.register(cmd, "pipeline", "", "apply this pipeline's rules (default: the operator repository's, from config.yaml's organization, or Konflux's in a Konflux FBC repository)")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings about probable typos (unknown fields, property types, schemas) as errors")
	cmd.Flags().StringArrayVar(&schemaDirs, "schema", nil, "also apply the CUE definitions in `DIR` (repeatable)")
	cmd.Flags().StringVar(&targetOCP, "target-ocp", "", "OpenShift release the catalog is published for (`VERSION`, e.g. 4.17): apply its pipelines' rules, such as olm.csv.metadata from 4.17 on (4.1-4.22 or 5.N)")
	_ = cmd.MarkFlagDirname("schema")
	cmd.Flags().StringArrayVar(&gates, "feature-gates", nil, "operator-controller feature gates the olmv1 profile follows: `NAME=BOOL,...` (repeatable; v1.11's defaults otherwise)")
	cmd.Flags().StringArrayVar(&profileFlags, "profile", nil, "check bundle contents against profiles `NAME[,NAME...]`: operatorframework (the default), operatorhub, good-practices, olmv1, k8s-version=X.Y; konflux adds the Konflux pipeline's catalog rules (repeatable)")
	cmd.Flags().Lookup("profile").NoOptDefVal = profileDefault
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "validating")
}

// profileDefault is what --profile holds when it is given without a value.
const profileDefault = "default"

// profileSet reads --profile and --feature-gates. --profile's value is
// optional (pflag then takes no argument for it): given alone, it takes the
// first argument that reads as profile names rather than a path, as in
// --profile operatorhub catalog/, and without one it names
// operatorframework, the profile bundles get without --profile.
func profileSet(values, gates, args []string) (profiles.Set, []string, error) {
	for i, v := range values {
		if v != profileDefault {
			continue
		}
		values[i] = string(profiles.OperatorFramework)
		if j := slices.IndexFunc(args, profileLike); j >= 0 {
			values[i], args = args[j], slices.Delete(slices.Clone(args), j, j+1)
		}
	}
	set, err := profiles.Parse(values)
	if err != nil {
		return set, nil, usageErrorf("--profile: %v", err)
	}
	if len(gates) > 0 {
		if !set.Has(profiles.OLMv1) {
			return set, nil, usageErrorf("--feature-gates sets operator-controller's gates for --profile olmv1, which is not named")
		}
		if set.Gates, err = olmv1gate.Parse(gates...); err != nil {
			return set, nil, usageErrorf("--feature-gates: %v", err)
		}
	}
	return set, args, nil
}

// profileLike reports whether an argument reads as --profile's value: no
// path that exists, no "/" (which paths and image references have), and no
// "." unless in a k8s-version=X.Y (a file name such as catalog.yaml).
func profileLike(a string) bool {
	if _, err := os.Stat(a); err == nil || a == "-" || strings.Contains(a, "/") {
		return false
	}
	return !strings.Contains(a, ".") || strings.Contains(a, "=")
}

// parseTargetOCP reads --target-ocp: an OpenShift MAJOR.MINOR (whether
// the release exists, the review decides: the ones fbc knows, and those an
// operator repository publishes catalogs for).
func parseTargetOCP(s string) (*declcfg.MinorVersion, error) {
	if s == "" {
		return nil, nil
	}
	v, err := declcfg.ParseMinorVersion(s)
	switch {
	case err != nil:
		return nil, usageErrorf("--target-ocp: OpenShift version %v", err)
	case v.Major == 1:
		return nil, usageErrorf("--target-ocp: %q is a Kubernetes release; give the OpenShift release the catalog is published for, such as 4.18", s)
	}
	return &v, nil
}

// printReviewNotes says on standard error what the review skipped and how
// it read an operator repository.
func printReviewNotes(cmd *cobra.Command, rep *review.Report, target *declcfg.MinorVersion) {
	if rep == nil {
		return
	}
	w := cmd.ErrOrStderr()
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "fbc: note: %s\n", n)
	}
	for _, t := range rep.Implied {
		fmt.Fprintf(w, "fbc: note: %s is catalog %s of the operator repository %s: checked with the rules of OpenShift %s (--target-ocp %s)\n", t.Path, t.Catalog, t.Repository, t.Target, t.Target)
	}
	for _, o := range rep.OwnReleases {
		fmt.Fprintf(w, "fbc: note: --target-ocp %s does not apply to the catalogs of %s: each is checked with the rules of its own OpenShift release (%s); name a catalog (catalogs/VERSION) to check it for %s\n",
			target, o.Operator, strings.Join(o.Catalogs, ", "), target)
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(w, "fbc: note: skipping %s\n", skipNote(p))
	}
}

// validateError words a review's error for the command line: the flag
// behind a policy directory or a missing fbc-profile, what to check when
// nothing was there.
func validateError(err error, args []string) error {
	var pe *validate.PolicyError
	var ni *profiles.NotInstalledError
	var empty *review.EmptyError
	var target *review.TargetError
	switch {
	case errors.As(err, &target):
		return usageErrorf("--target-ocp: %v", err)
	case errors.As(err, &pe):
		return fmt.Errorf("--schema %s: %w", pe.Dir, pe.Err)
	case errors.As(err, &ni):
		return fault.Errorf(fault.Run, "--profile needs %s", ni.Detail())
	case errors.As(err, &empty) && !empty.AllSkipped:
		return nothingThere(fmt.Errorf("%w; %s", err, checkEmpty(args)))
	case errors.As(err, &empty):
		return nothingThere(err)
	}
	return err
}

// writeValidateReport writes the report in the format asked for, the
// summary line on standard error, and GitHub's job summary when asked.
func writeValidateReport(cmd *cobra.Command, format string, rep *review.Report, args []string) error {
	stdout := cmd.OutOrStdout()
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the working directory: %w", err)
	}
	ropts := vreport.Options{
		Color:   format == "text" && useColor(stdout),
		Tool:    vreport.Tool{Name: "fbc", Version: buildinfo.Read().Version, InformationURI: informationURI},
		Rules:   rep.Rules,
		WorkDir: wd,
		Anchor:  firstFile(args),
	}
	if err := vreport.Write(stdout, format, rep.Result, ropts); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if format == "text" || format == "github" {
		fmt.Fprintln(cmd.ErrOrStderr(), vreport.Summary(rep.Result))
		if n := rep.Unlisted(); n > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s there at %s already, which the change left as %s; `--all` lists them\n", plural(n, "1 finding was", fmt.Sprintf("%d findings were", n)), rep.Change.Base, plural(n, "it was", "they were"))
		}
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); format == "github" && path != "" {
		if err := vreport.AppendStepSummary(path, rep.Result, ropts); err != nil {
			return err
		}
	}
	return resultError(rep.Result)
}

// resultError is the error a validation result stands for once its
// findings are printed (validate.Result.Err), errFindings for findings.
func resultError(res *validate.Result) error {
	if err := res.Err(); !errors.Is(err, validate.ErrInvalid) {
		return err
	}
	return errFindings
}
