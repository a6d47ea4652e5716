package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/images"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profiles"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func init() { register(newValidateCmd) }

func newValidateCmd() *cobra.Command {
	output := newEnum("text", vreport.Formats...)
	var strict bool
	var schemaDirs, profileFlags, gates []string
	var targetOCP string
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
  fbc validate bundle/ quay.io/acme/op-bundle:v1.2.0
  fbc validate --profile operatorhub,olmv1,k8s-version=1.33 catalog/
  fbc validate --profile konflux --target-ocp 4.18 catalog/`,
		Args: minArgs(1),
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
			set, err := profiles.Parse(profileFlags)
			if err != nil {
				return usageErrorf("--profile: %v", err)
			}
			if len(gates) > 0 {
				if !set.Has(profiles.OLMv1) {
					return usageErrorf("--feature-gates sets operator-controller's gates for --profile olmv1, which is not named")
				}
				if set.Gates, err = olmv1gate.Parse(gates...); err != nil {
					return usageErrorf("--feature-gates: %v", err)
				}
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if set.Has(profiles.K8sVersion) && profiles.RemovalsKnownUntil.Less(set.Kube) {
				fmt.Fprintf(cmd.ErrOrStderr(), "fbc: warning: k8s-version=%s: fbc knows the API removals of Kubernetes releases up to %s only\n", set.Kube, profiles.RemovalsKnownUntil)
			}
			r, err := newRenderer(cmd, pull, 0)
			if err != nil {
				return err
			}
			var target *validate.OCPVersion
			if targetOCP != "" {
				v, err := validate.ParseOCPVersion(targetOCP)
				if err != nil {
					return usageErrorf("--target-ocp: %v", err)
				}
				// The release picks the rules: a typo (14.18, 4.81) must
				// not quietly pick another set. The releases fbc knows are
				// upgrade-path --cluster-version's OpenShift ones.
				switch _, err := graph.ParseClusterVersion(targetOCP); {
				case v.Major == 1:
					return usageErrorf("--target-ocp: %q is a Kubernetes release; give the OpenShift release the catalog is published for, such as 4.18", targetOCP)
				case v.Major != 4 && v.Major != 5:
					return usageErrorf("--target-ocp: %q: fbc knows the releases of OpenShift 4 and 5 only (4.N, 5.N)", targetOCP)
				case err != nil:
					return usageErrorf("--target-ocp: %s", strings.Replace(err.Error(), "cluster version", "OpenShift release", 1))
				}
				target = &v
			}
			rp, args, err := expandRepoArgs(cmd, r, args, target)
			if err != nil {
				return err
			}
			catalogs, bundles := splitValidateArgs(cmd.Context(), r, args)
			if catalogs, err = screenSources(cmd, catalogs, true); err != nil {
				return err
			}
			if len(catalogs) == 0 && len(bundles) == 0 && rp.empty() {
				return nothingThere(fmt.Errorf("nothing to validate: every path was skipped"))
			}
			reader := bundleReader{r: r}
			opts := validate.Options{
				Strict:     strict,
				SchemaDirs: schemaDirs,
				Stdin:      cmd.InOrStdin(),
				Bundles:    bundles,
				ReadBundle: reader.read,
				Progress:   progressOf(cmd),
				Walk:       catalogWalker(cmd, func() (*render.Renderer, error) { return r, nil }, validate.WalkOptions(0)),
				Konflux:    set.Has(profiles.Konflux),
				Operators:  rp.operators,
			}
			opts.TargetOCP = target
			// The command line's own run, when it has something to check
			// (the repository's catalogs get runs of their own below).
			ownRun := len(catalogs) > 0 || len(bundles) > 0 || len(opts.Operators) > 0
			switch {
			case set.BundleContent() && ownRun:
				// fbc-profile only for a run that takes place.
				pc, err := startProfiles(cmd, set, false)
				if err != nil {
					return err
				}
				defer pc.Close()
				opts.Profiles = pc
			case len(bundles) > 0 || rp.bundles() > 0:
				// Bundle directories and images get operator-sdk's default
				// checks unless profiles are named; without fbc-profile
				// they get the catalog rules only, and a warning says so.
				pc, err := startProfiles(cmd, profiles.Of(profiles.OperatorFramework), true)
				var missing *missingProfilesError
				switch {
				case errors.As(err, &missing):
					warner(cmd.ErrOrStderr()).Printf("bundle contents are not checked (operatorframework): %s", missing.Detail())
				case err != nil:
					return err
				default:
					defer pc.Close()
					opts.Profiles = pc
				}
			}
			res := &validate.Result{}
			if ownRun {
				if res, err = validate.Validate(cmd.Context(), catalogs, opts); err != nil {
					return validateError(err)
				}
			}
			// A repository's catalogs are each checked on their own, with
			// the rules of the OpenShift release each is for.
			newProfiles := func() (validate.ProfileChecker, func(), error) { return nil, func() {}, nil }
			if set.BundleContent() {
				// A profile run serves one validation: each catalog gets
				// its own.
				newProfiles = func() (validate.ProfileChecker, func(), error) {
					pc, err := startProfiles(cmd, set, false)
					if err != nil {
						return nil, nil, err
					}
					return pc, pc.Close, nil
				}
			}
			res, err = rp.validate(cmd.Context(), res, opts, newProfiles)
			endProgress(cmd)
			if err != nil {
				return validateError(err)
			}
			if err := lintCatalogImages(cmd, pull, catalogs, res); err != nil {
				return err
			}
			if res.Stats.Blobs == 0 && len(res.Diagnostics) == 0 && len(rp.operators) == 0 {
				// A wrong path, an ignored tree or an empty pipe must not
				// pass as a valid catalog.
				return nothingThere(fmt.Errorf(
					"nothing to validate: %s %s no catalog blobs (%d %s read); %s",
					strings.Join(shownPaths(args), " "), plural(len(args), "holds", "hold"), res.Stats.Files, plural(res.Stats.Files, "file", "files"), checkEmpty(args)))
			}
			stdout := cmd.OutOrStdout()
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("finding the working directory: %w", err)
			}
			ropts := vreport.Options{
				Color:   output.String() == "text" && useColor(stdout),
				Tool:    vreport.Tool{Name: "fbc", Version: buildinfo.Read().Version, InformationURI: informationURI},
				Rules:   append(rp.rules(), images.CatalogImageRules()...),
				WorkDir: wd,
				Anchor:  firstFile(args),
			}
			if err := vreport.Write(stdout, output.String(), res, ropts); err != nil {
				return fmt.Errorf("writing report: %w", err)
			}
			switch output.String() {
			case "text":
				fmt.Fprintln(cmd.ErrOrStderr(), vreport.Summary(res))
			case "github":
				fmt.Fprintln(cmd.ErrOrStderr(), vreport.Summary(res))
				if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
					if err := appendStepSummary(path, res, ropts); err != nil {
						return err
					}
				}
			}
			return resultError(res)
		},
	}
	output.register(cmd, "output", "o", "output format")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings about probable typos (unknown fields, property types, schemas) as errors")
	cmd.Flags().StringArrayVar(&schemaDirs, "schema", nil, "also apply the CUE definitions in `DIR` (repeatable)")
	cmd.Flags().StringVar(&targetOCP, "target-ocp", "", "OpenShift release the catalog is published for (`VERSION`, e.g. 4.17): apply its pipelines' rules, such as olm.csv.metadata from 4.17 on (4.1-4.22 or 5.N)")
	_ = cmd.MarkFlagDirname("schema")
	cmd.Flags().StringArrayVar(&gates, "feature-gates", nil, "operator-controller feature gates the olmv1 profile follows: `NAME=BOOL,...` (repeatable; v1.11's defaults otherwise)")
	cmd.Flags().StringArrayVar(&profileFlags, "profile", nil, "check bundle contents against profiles `NAME[,NAME...]`: operatorframework, operatorhub, good-practices, olmv1, k8s-version=X.Y; konflux adds the Konflux pipeline's catalog rules (repeatable)")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "validating")
}

// validateError adds the flag to a policy directory's error.
func validateError(err error) error {
	var pe *validate.PolicyError
	if errors.As(err, &pe) {
		return fmt.Errorf("--schema %s: %w", pe.Dir, pe.Err)
	}
	return err
}

// lintCatalogImages adds to res what Konflux checks on a built catalog
// image, for each catalog that is an image: its configs label, one folder
// per package, an index's platforms, a stale serve cache.
func lintCatalogImages(cmd *cobra.Command, pull image.Options, catalogs []string, res *validate.Result) error {
	var client *image.Client
	for _, c := range catalogs {
		if c == "-" || !render.IsImage(c) {
			continue
		}
		if client == nil {
			pull.Warn = warner(cmd.ErrOrStderr())
			var err error
			if client, err = image.NewClient(pull); err != nil {
				return err
			}
		}
		ds, err := images.LintCatalogImage(cmd.Context(), client, c)
		if err != nil {
			return err
		}
		res.Diagnostics = append(res.Diagnostics, ds...)
	}
	return nil
}

// resultError is the error a validation result stands for, once its
// diagnostics are printed: none for a valid catalog, errFindings for an
// invalid one, and a Run error when a file could not be read, since that
// leaves the verdict unknown.
func resultError(res *validate.Result) error {
	unread := 0
	for _, d := range res.Diagnostics {
		if d.Rule == declcfg.RuleIO {
			unread++
		}
	}
	switch {
	case unread > 0:
		what := fmt.Sprintf("%d catalog files", unread)
		if unread == 1 {
			what = "1 catalog file"
		}
		return fmt.Errorf("%s could not be read; the result is incomplete", what)
	case !res.Valid():
		return errFindings
	}
	return nil
}

// informationURI is where fbc lives, for SARIF's tool.driver and rule help
// links.
const informationURI = "https://github.com/fbc-project/fbc"

// firstFile is the first path argument that is not standard input: SARIF
// anchors diagnostics without a position there.
func firstFile(args []string) string {
	for _, a := range args {
		if a != "-" {
			return a
		}
	}
	return ""
}

// appendStepSummary adds the Markdown summary to the job summary file the
// GitHub runner names in $GITHUB_STEP_SUMMARY. Earlier steps' summaries in
// the same file are kept: the section is appended in one write.
func appendStepSummary(path string, res *validate.Result, opts vreport.Options) error {
	var buf bytes.Buffer
	if err := vreport.WriteStepSummary(&buf, res, opts); err != nil {
		return fmt.Errorf("writing step summary: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("writing step summary: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing step summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing step summary %s: %w", path, err)
	}
	return nil
}

// shownPaths names the path arguments for a message.
func shownPaths(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "-" {
			out[i] = "standard input"
		}
	}
	return out
}

func countStdin(args []string) int {
	return len(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a != "-" }))
}

// validateGCPercent is the collector's target while fbc validate runs. What
// it allocates is nearly all garbage within a document (parse trees, the
// values read from them); its live heap is a few megabytes, so at the
// default of 100 the collector ran 17 times over certified v4.18. At 125,
// measured against 100 in alternating runs: 5% less wall time and 4% more
// peak memory there, 8% and none on community v4.22, 2% and 5% on
// certified v4.16.
const validateGCPercent = 125

// withGCPercent sets the collector's target to p unless the user set GOGC,
// and returns what sets it back. Runs in one process (the tests run
// commands side by side) share the change: the first sets it, the last
// to end puts back what was there before.
func withGCPercent(p int) func() {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	gcTarget.Lock()
	defer gcTarget.Unlock()
	if gcTarget.runs == 0 {
		gcTarget.prev = debug.SetGCPercent(p)
	}
	gcTarget.runs++
	return sync.OnceFunc(func() {
		gcTarget.Lock()
		defer gcTarget.Unlock()
		if gcTarget.runs--; gcTarget.runs == 0 {
			debug.SetGCPercent(gcTarget.prev)
		}
	})
}

var gcTarget struct {
	sync.Mutex
	runs int
	prev int
}

// startProfiles runs fbc-profile for the profiles of set. While it checks
// a catalog's bundles, fbc keeps a share of the processors (profileShare)
// and leaves the rest to fbc-profile; Close gives them back.
func startProfiles(cmd *cobra.Command, set profiles.Set, sourcesOnly bool) (*profileRun, error) {
	path, err := findProfiles()
	if err != nil {
		return nil, err
	}
	c, err := profiles.Start(cmd.Context(), profiles.StartOptions{
		Path: path, Set: set, SourcesOnly: sourcesOnly, Warn: warner(cmd.ErrOrStderr()),
	})
	if err != nil {
		return nil, err
	}
	run := &profileRun{Client: c, procs: -1}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set && !sourcesOnly {
		n := runtime.GOMAXPROCS(0)
		run.procs = runtime.GOMAXPROCS(profileShare(n))
	}
	return run, nil
}

// profileShare is how many processors fbc keeps out of n while fbc-profile
// checks a catalog's bundles with all n: reading the catalog is about a
// third of the CPU time of a profile run (0.45 of 1.3 s over certified
// v4.16), and both programs at full width made twice as many threads as
// processors, which the kernel then switched between. On the 2-core
// machine this is measured on, fbc with one processor cut the run's CPU
// time by 8% and its wall time by 4% (medians of 21 alternating runs).
func profileShare(n int) int {
	return max(1, int(math.Round(0.35*float64(n))))
}

// profileRun is an fbc-profile run and the processors fbc gave up for it.
type profileRun struct {
	*profiles.Client
	procs int // fbc's own before the run, -1 when unchanged
}

// Close ends the run and gives fbc its processors back.
func (r *profileRun) Close() {
	if r.Client != nil {
		r.Client.Close()
	}
	if r.procs > 0 {
		runtime.GOMAXPROCS(r.procs)
		r.procs = -1
	}
}

// findProfiles finds fbc-profile as git finds its git-* commands: next to
// the running fbc first, then on PATH.
func findProfiles() (string, error) {
	var here string
	if exe, err := os.Executable(); err == nil {
		here = filepath.Dir(exe)
		p := filepath.Join(here, profiles.Executable)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(profiles.Executable); err == nil {
		return p, nil
	}
	return "", &missingProfilesError{dir: here}
}

// missingProfilesError is an fbc without its fbc-profile.
type missingProfilesError struct{ dir string }

func (e *missingProfilesError) Error() string {
	return "--profile needs " + e.Detail()
}

// Detail says where fbc looked and how to install fbc-profile.
func (e *missingProfilesError) Detail() string {
	where := "on PATH"
	if e.dir != "" {
		where = "next to fbc (" + e.dir + ") or on PATH"
	}
	v := buildinfo.Read()
	install := "go install " + profilesPackage + "@" + v.Version
	if v.Devel() {
		install = "make install (or go install ./cmd/fbc-profile) in the fbc checkout this fbc was built from"
	}
	return profiles.Executable + ", which is not " + where + "; install it: " + install
}

// FaultKind is Run: the installation is incomplete, the input is not at
// fault.
func (e *missingProfilesError) FaultKind() fault.Kind { return fault.Run }

// profilesPackage is fbc-profile's import path, for go install.
const profilesPackage = "github.com/fbc-project/fbc/cmd/fbc-profile"
