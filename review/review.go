// Package review is fbc validate's work: it takes the paths a user names,
// says what each is (repo.Classify, and for an image its labels), and checks
// each as what it is, in one report: catalogs (validate), bundle
// directories and images (their olm.bundle and, through fbc-profile, their
// contents), operator folders of an operator repository (their bundles and
// settings files, their templates rendered and compared by
// pipeline.Inspect, and the catalogs ci.yaml maps them to), a repository's
// catalogs (each with the rules of the OpenShift release it is published
// for), and catalog images as built images (images.LintCatalogImage).
// Every warning of the run is a finding of the report.
package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/images"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profiles"
)

// Options is what a review checks and how.
type Options struct {
	// Strict, SchemaDirs and Konflux are validate's (validate.Options).
	Strict     bool
	SchemaDirs []string
	// Konflux applies the rules only Konflux applies to an FBC fragment.
	Konflux bool
	// Pipeline is the pipeline whose rules apply; "": the repository's
	// (review.pipelineOf), or every pipeline's.
	Pipeline validate.Pipeline
	// Base, when set, is a git revision (origin/main) or a directory
	// holding the repository as it was: the review judges the change from
	// it to the working tree, as the pipelines judge a pull request (see
	// base.go). The paths are then parts of one operator repository (none:
	// the one around the working directory).
	Base string
	// TargetOCP is the OpenShift release the catalogs are published for;
	// nil: none, except for a repository's catalogs, whose names give it.
	TargetOCP *declcfg.MinorVersion
	// Render is how sources are read: images pulled, standard input. Its
	// Warn is replaced by the review's: every warning is a finding.
	Render render.Options
	// Profiles are the bundle-content profiles to run (fbc-profile); with
	// none named, bundle directories and images get operatorframework's,
	// or a warning when fbc-profile is not installed.
	Profiles profiles.Set
	// FindProfiles locates the fbc-profile executable; it is called only
	// when profiles are to run. An error of type *profiles.NotInstalledError
	// means it is not installed.
	FindProfiles func() (string, error)
	// ShareProcessors gives about two thirds of the processors to
	// fbc-profile while it checks a catalog's bundles (the user has not
	// fixed the number of processors).
	ShareProcessors bool
	// Progress counts the files read and the bundles checked.
	Progress *progress.Counter
	// WorkDir is the working directory, for showing paths from it ("": as
	// they are).
	WorkDir string
}

// Report is the outcome of a review.
type Report struct {
	*validate.Result
	// Rules is the rule catalogue of the report: validate's, the
	// repository's when an operator folder or a repository catalog was
	// read, and the catalog image rules.
	Rules []validate.Rule
	// Skipped are the paths that are neither catalogs nor bundles (a
	// template, ci.yaml, a folder of templates...), left out of the run.
	Skipped []repo.Path
	// Notes are one-line hints of the repository's reading (folders that
	// are neither bundles nor templates, templates a release will create).
	Notes []string
	// Implied are the repository catalogs named on the command line whose
	// name chose the release they are checked for (no TargetOCP).
	Implied []ImpliedTarget
	// OwnReleases are, per operator folder named, its catalogs checked with
	// their own release's rules rather than TargetOCP's.
	OwnReleases []OwnReleases
	// Pipeline is the pipeline whose rules were applied ("": every
	// pipeline's).
	Pipeline validate.Pipeline
	// Change is what a review with a base judged (Options.Base).
	Change *Change
	// AlreadyThere are the findings the base had already, which the change
	// left as they were (Options.Base): counted, not failed on.
	AlreadyThere []declcfg.Finding
	// Diffs are fbc diff's reports of the catalog packages the change
	// touched (Options.Base).
	Diffs  []*graph.DiffReport
	listed bool
}

// Change is what a change between a base and the working tree touched.
type Change struct {
	// Base is the base as given: a git revision or a directory.
	Base string
	// Files are the files that differ, from the repository's root.
	Files []string
	// Operators are the packages whose operator folder or catalogs changed.
	Operators []string
}

// ImpliedTarget is a repository catalog checked with the rules of the
// release its name gives.
type ImpliedTarget struct {
	Path, Catalog string
	// Repository is the repository's root, shown from the working
	// directory.
	Repository string
	Target     declcfg.MinorVersion
}

// OwnReleases are the catalogs of an operator folder checked with the rules
// of their own release.
type OwnReleases struct {
	Operator string
	Catalogs []string
}

// EmptyError is a review that found nothing to check: paths that hold no
// catalog blobs, or that were all skipped. It is a Run error: a wrong path
// or an empty pipe must not pass as a valid catalog.
type EmptyError struct {
	Paths []string
	// Files counts the files read.
	Files int
	// AllSkipped is set when every path was skipped.
	AllSkipped bool
}

func (e *EmptyError) Error() string {
	if e.AllSkipped {
		return "nothing to validate: every path was skipped"
	}
	holds := "hold"
	if len(e.Paths) == 1 {
		holds = "holds"
	}
	files := "files"
	if e.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("nothing to validate: %s %s no catalog blobs (%d %s read)", declcfg.ShowPaths(e.Paths, " "), holds, e.Files, files)
}

// FaultKind is Run.
func (e *EmptyError) FaultKind() fault.Kind { return fault.Run }

// Run reviews paths. The error is for a review that could not happen (a
// policy directory that does not compile, fbc-profile failing, a registry
// out of reach); every problem of the content is a finding of the report.
// With an *EmptyError, the report still says what was skipped and noted.
func Run(ctx context.Context, paths []string, opts Options) (*Report, error) {
	warnings := &sink{}
	ropts := opts.Render
	ropts.Warn, ropts.Image.Warn = warnings.add, warnings.add
	r, err := render.New(ropts)
	if err != nil {
		return nil, err
	}
	rv := &reviewer{opts: opts, r: r, warn: warnings.add, stdin: ropts.Stdin}
	if opts.Profiles.Has(profiles.K8sVersion) && profiles.RemovalsKnownUntil.Less(opts.Profiles.Kube) {
		warnings.add(fmt.Sprintf("k8s-version=%s: fbc knows the API removals of Kubernetes releases up to %s only", opts.Profiles.Kube, profiles.RemovalsKnownUntil))
	}
	if err := checkTarget(opts.TargetOCP, paths); err != nil {
		return nil, err
	}
	run := rv.run
	if opts.Base != "" {
		run = func(ctx context.Context, paths []string) (*Report, error) { return rv.runBase(ctx, paths, warnings) }
	}
	rep, err := run(ctx, paths)
	var empty *EmptyError
	switch {
	case ctx.Err() != nil:
		// An interrupted review is no verdict, whatever part of it ended
		// early without saying so.
		return nil, ctx.Err()
	case errors.As(err, &empty):
		return rep, err
	case err != nil:
		return nil, err
	}
	rep.Diagnostics = append(rep.Diagnostics, warnings.findings()...)
	return rep, nil
}

// reviewer is one review.
type reviewer struct {
	opts  Options
	r     *render.Renderer
	warn  fault.Warn
	stdin io.Reader
	// publishedRoot maps a repository's root to where its published
	// catalogs are read from, for what counts as released: the base's,
	// in a review with a base.
	publishedRoot map[string]string
	// changed says which bundle folders a change touched, in a review with
	// a base (validate.Options.Changed).
	changed func(dir string) bool
}

func (rv *reviewer) run(ctx context.Context, paths []string) (*Report, error) {
	rep := &Report{}
	rp, rest, err := rv.expand(ctx, paths, rep)
	if err != nil {
		return nil, err
	}
	catalogs, bundles := rv.split(ctx, rest)
	var kept []string
	for _, a := range catalogs {
		if p := repo.Classify(a); p.Recognised() {
			rep.Skipped = append(rep.Skipped, p)
			continue
		}
		kept = append(kept, a)
	}
	catalogs = kept
	if len(catalogs) == 0 && len(bundles) == 0 && rp.empty() {
		return rep, &EmptyError{Paths: paths, AllSkipped: true}
	}
	pl := rv.pipelineOf(paths, rp)
	rep.Pipeline = pl
	vopts := validate.Options{
		Strict:     rv.opts.Strict,
		SchemaDirs: rv.opts.SchemaDirs,
		Stdin:      rv.stdin,
		Bundles:    bundles,
		ReadBundle: bundleReader{r: rv.r}.read,
		Progress:   rv.opts.Progress,
		Walk: func(ctx context.Context, p string, fn func(*declcfg.File) error) error {
			return rv.r.WalkCatalog(ctx, p, validate.WalkOptions(0), fn)
		},
		Konflux:   rv.opts.Konflux || pl == validate.PipelineKonflux,
		Operators: rp.operators,
		TargetOCP: rv.opts.TargetOCP,
		Changed:   rv.changed,
	}
	// The command line's own run, when it has something to check (the
	// repository's catalogs get runs of their own).
	res := &validate.Result{}
	if len(catalogs) > 0 || len(bundles) > 0 || len(vopts.Operators) > 0 {
		pc, err := rv.ownProfiles(ctx, len(bundles)+rp.bundles() > 0)
		if err != nil {
			return nil, err
		}
		if pc != nil {
			defer pc.Close()
			vopts.Profiles = pc
		}
		if res, err = validate.Validate(ctx, catalogs, vopts); err != nil {
			return nil, err
		}
	}
	newProfiles := func() (validate.ProfileChecker, func(), error) { return rv.catalogProfiles(ctx) }
	if res, err = rp.validate(ctx, res, vopts, newProfiles); err != nil {
		return nil, err
	}
	if err := rv.lintCatalogImages(ctx, catalogs, res); err != nil {
		return nil, err
	}
	if res.Stats.Blobs == 0 && len(res.Diagnostics) == 0 && len(rp.operators) == 0 {
		return rep, &EmptyError{Paths: paths, Files: res.Stats.Files}
	}
	rep.Result = res
	rep.Rules = append(rp.rules(), images.CatalogImageRules()...)
	if err := rv.judge(ctx, res, rep.Rules, pl, rp); err != nil {
		return nil, err
	}
	return rep, nil
}

// split separates the bundle sources (bundle directories and bundle
// images) from the catalog sources (paths and catalog images; an image's
// labels say which it is). A path that does not exist and is no image
// reference stays a catalog path, which validate reports; an image that
// cannot be opened is left to the bundle reader, which reports it.
func (rv *reviewer) split(ctx context.Context, args []string) (catalogs, bundles []string) {
	for _, a := range args {
		if a == "-" {
			catalogs = append(catalogs, a)
			continue
		}
		kind, isImage, err := render.SourceKind(a)
		if err == nil && isImage {
			if catalog, cerr := rv.r.IsCatalogImage(ctx, a); cerr == nil && catalog {
				catalogs = append(catalogs, a)
				continue
			}
		}
		switch {
		case err == nil && (isImage || kind == render.KindBundleDir):
			bundles = append(bundles, a)
		default:
			catalogs = append(catalogs, a)
		}
	}
	return catalogs, bundles
}

// ownProfiles starts fbc-profile for the command line's own run: the
// profiles named, or, for bundle directories and images when none are,
// operatorframework's (without fbc-profile, a warning says their contents
// are not checked). nil when no profile is to run.
func (rv *reviewer) ownProfiles(ctx context.Context, bundles bool) (*profileRun, error) {
	switch {
	case rv.opts.Profiles.BundleContent():
		return rv.startProfiles(ctx, rv.opts.Profiles, false)
	case bundles:
		pc, err := rv.startProfiles(ctx, profiles.Of(profiles.OperatorFramework), true)
		var missing *profiles.NotInstalledError
		if errors.As(err, &missing) {
			rv.warn.Printf("bundle contents are not checked (operatorframework): %s", missing.Detail())
			return nil, nil
		}
		return pc, err
	}
	return nil, nil
}

// catalogProfiles starts fbc-profile for one of a repository's catalogs:
// a profile run serves one validation, so each catalog gets its own.
func (rv *reviewer) catalogProfiles(ctx context.Context) (validate.ProfileChecker, func(), error) {
	if !rv.opts.Profiles.BundleContent() {
		return nil, func() {}, nil
	}
	pc, err := rv.startProfiles(ctx, rv.opts.Profiles, false)
	if err != nil {
		return nil, nil, err
	}
	return pc, pc.Close, nil
}

// startProfiles runs fbc-profile for the profiles of set. While it checks a
// catalog's bundles, fbc keeps a share of the processors (profileShare)
// and leaves the rest to fbc-profile; Close gives them back.
func (rv *reviewer) startProfiles(ctx context.Context, set profiles.Set, sourcesOnly bool) (*profileRun, error) {
	if rv.opts.FindProfiles == nil {
		return nil, &profiles.NotInstalledError{}
	}
	path, err := rv.opts.FindProfiles()
	if err != nil {
		return nil, err
	}
	c, err := profiles.Start(ctx, profiles.StartOptions{
		Path: path, Set: set, SourcesOnly: sourcesOnly, Warn: rv.warn,
	})
	if err != nil {
		return nil, err
	}
	run := &profileRun{Client: c, procs: -1}
	if rv.opts.ShareProcessors && !sourcesOnly {
		n := runtime.GOMAXPROCS(0)
		run.procs = runtime.GOMAXPROCS(profileShare(n))
	}
	return run, nil
}

// lintCatalogImages adds to res what Konflux checks on a built catalog
// image, for each catalog that is an image: its configs label, one folder
// per package, an index's platforms, a stale serve cache.
func (rv *reviewer) lintCatalogImages(ctx context.Context, catalogs []string, res *validate.Result) error {
	for _, c := range catalogs {
		if c == "-" || !render.IsImage(c) {
			continue
		}
		client, err := rv.r.ImageClient()
		if err != nil {
			return err
		}
		ds, err := images.LintCatalogImage(ctx, client, c)
		if err != nil {
			return err
		}
		res.Diagnostics = append(res.Diagnostics, ds...)
	}
	return nil
}

// ListAlreadyThere adds to the findings those the base had already, as
// warnings that say so (they never fail a review).
func (rep *Report) ListAlreadyThere() {
	if rep.Change == nil {
		return
	}
	for _, d := range rep.AlreadyThere {
		d.Severity = declcfg.SeverityWarning
		d.Message += " (there at " + rep.Change.Base + " already)"
		rep.Diagnostics = append(rep.Diagnostics, d)
	}
	rep.listed = true
}

// Unlisted counts the findings the base had already that the report does
// not list.
func (rep *Report) Unlisted() int {
	if rep.listed {
		return 0
	}
	return len(rep.AlreadyThere)
}
