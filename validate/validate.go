// Package validate checks file-based catalogs: shape checks from embedded CUE
// schemas, the package/channel/bundle invariants opm enforces, the checks opm
// misses, and deprecation rules. It reports every problem as a declcfg.Finding.
package validate

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/repo"
)

// Rule describes a check. ID is stable and appears in every diagnostic.
type Rule struct {
	ID       string
	Severity declcfg.Severity
	// Summary is one line, for rule lists and SARIF short descriptions.
	Summary string
	// Help says how to fix what the rule reports.
	Help string
}

// Provenance is where a rule comes from (Rule.Provenance).
type Provenance struct {
	// Pipelines are the pipelines that run the rule; none for the rules
	// every catalog gets (opm's, OLM's and fbc's own).
	Pipelines []Pipeline
	// Source says where a pipeline's rule comes from: the file and
	// function of the pipeline's code, or the proposal it stands for.
	Source string
	// Proposal is set for a rule no released tool applies yet (an
	// unmerged pull request): it is a warning that says so until it ships.
	Proposal bool
	// Test is the operator-pipelines static test the rule is, which an
	// operator repository's config.yaml may skip for some operators
	// (tests: ignore_operators).
	Test string
}

// Provenance says which pipelines run the rule and where it comes from.
func (r Rule) Provenance() Provenance { return provenance[r.ID] }

// Pipeline is a pipeline that checks catalog pull requests.
type Pipeline string

// The pipelines fbc knows the rules of.
const (
	// PipelineCommunity is operator-pipelines for community-operators-prod
	// (static test suites community and common).
	PipelineCommunity Pipeline = "community"
	// PipelineCertified is operator-pipelines for certified-operators and
	// redhat-marketplace (static test suites isv and common).
	PipelineCertified Pipeline = "certified"
	// PipelineKonflux is Konflux's FBC build pipeline and Conforma's
	// release policy.
	PipelineKonflux Pipeline = "konflux"
)

// Pipelines lists the pipelines, as --pipeline takes them.
var Pipelines = []Pipeline{PipelineCommunity, PipelineCertified, PipelineKonflux}

// RunBy reports whether pipeline p runs the rule: every pipeline runs the
// rules of no pipeline in particular, and an unknown pipeline ("") runs
// every rule.
func (r Rule) RunBy(p Pipeline) bool {
	ps := r.Provenance().Pipelines
	return p == "" || len(ps) == 0 || slices.Contains(ps, p)
}

// Options tunes a validation run.
type Options struct {
	// Strict makes the warnings about probable typos errors: unknown-field,
	// unknown-property and unknown-schema.
	Strict bool
	// SchemaDirs hold user CUE definitions applied as extra policy.
	SchemaDirs []string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// TargetOCP, when set, is the OpenShift release the catalog is
	// published for: rules that depend on it (metadata-format) apply.
	TargetOCP *declcfg.MinorVersion
	// Walk, when set, reads each path instead of declcfg.WalkPath: it may
	// open paths that are not files, such as catalog images, and must
	// deliver the files of one path in order.
	Walk func(ctx context.Context, path string, fn func(*declcfg.File) error) error
	// Concurrency bounds how many files are parsed, and how many checked,
	// at once (default: the number of CPUs).
	Concurrency int
	// Bundles are bundle directories and images to check, each on its own,
	// besides the catalogs of the paths. ReadBundle reads one (render
	// does); bundles are read as they are checked, so that only a few are
	// in memory at once. An error from ReadBundle stops the run.
	Bundles    []string
	ReadBundle func(ctx context.Context, ref string) (*BundleSource, error)
	// Profiles, when set, checks the contents of every bundle (of the
	// catalogs and of Bundles) against the profiles it was made for.
	Profiles ProfileChecker
	// Progress, when set, counts the files read (by the default walk; a
	// Walk of the caller's counts its own) and the Bundles checked.
	Progress *progress.Counter
	// Konflux applies the rules only Konflux applies to an FBC fragment
	// (konflux.go): the layout of each directory path, at least one
	// package, bundle metadata for TargetOCP, images pinned by digest.
	Konflux bool
	// Operators are operator folders of an operator repository
	// (operators/NAME), read by repo.ReadFolder: their bundle directories
	// are checked as Bundles are (each once, should Bundles name one too),
	// and ci.yaml, each release-config.yaml, the bundle folders the
	// pipelines lint and, for an operator not on FBC, its update graph
	// against the community and certified pipelines' rules
	// (repository.go). Their templates and catalogs are not validate's:
	// pipeline.Inspect renders and compares them.
	Operators []*repo.Folder
	// Changed, when set, says which bundle folders of Operators a change
	// touched (a review of a change): only those are checked as bundles
	// (their contents, profiles, YAML lint); the others are as they were,
	// and only the update-graph rules read them.
	Changed func(dir string) bool
	// RepoCatalogs says which paths (as given) are a catalog of an
	// operator repository (catalogs/NAME), one package's folder of it or
	// that folder's catalog file, which the community and certified
	// pipelines' rules for catalog folders apply to (repocatalog.go).
	RepoCatalogs map[string]*RepoCatalog
}

// RepoCatalog is a catalog of an operator repository, as the pipelines'
// rules for catalog folders read it.
type RepoCatalog struct {
	// Name is the catalog's (v4.18); Package is set when the paths are
	// that package's folder of it rather than the whole catalog.
	Name, Package string
	// AllowedRegistries are the registry prefixes bundle images may come
	// from (config.yaml's allowed_bundle_registries); none: any.
	AllowedRegistries []string
}

// Stats counts what a run looked at.
type Stats struct {
	Files    int `json:"files"`
	Packages int `json:"packages"`
	Channels int `json:"channels"`
	Bundles  int `json:"bundles"`
	// Blobs counts the blobs of every schema, custom ones included.
	Blobs int `json:"-"`
}

// Add counts what o counted too.
func (s *Stats) Add(o Stats) {
	s.Files += o.Files
	s.Packages += o.Packages
	s.Channels += o.Channels
	s.Bundles += o.Bundles
	s.Blobs += o.Blobs
}

// Result is the outcome of a validation run.
type Result struct {
	Diagnostics []declcfg.Finding
	Stats       Stats
}

// Valid reports whether no diagnostic is an error.
func (r *Result) Valid() bool {
	for _, d := range r.Diagnostics {
		if d.Severity == declcfg.SeverityError {
			return false
		}
	}
	return true
}

// ErrInvalid is the error of a result that holds errors (an Input error:
// the content is at fault).
var ErrInvalid = fault.Wrap(fault.Input, errors.New("the catalog has errors"))

// Err is the error a result stands for once its findings are shown: none
// for a valid catalog, ErrInvalid for an invalid one, and a Run error when
// a file could not be read, since that leaves the verdict unknown.
func (r *Result) Err() error {
	unread := 0
	for _, d := range r.Diagnostics {
		if d.Rule == declcfg.RuleIO {
			unread++
		}
	}
	switch {
	case unread == 1:
		return fault.Errorf(fault.Run, "1 catalog file could not be read; the result is incomplete")
	case unread > 0:
		return fault.Errorf(fault.Run, "%d catalog files could not be read; the result is incomplete", unread)
	case !r.Valid():
		return ErrInvalid
	}
	return nil
}

// Count returns the number of errors and warnings.
func (r *Result) Count() (errors, warnings int) {
	for _, d := range r.Diagnostics {
		if d.Severity == declcfg.SeverityError {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// Validate checks the catalogs at paths (directories, files or "-") as one
// catalog. The error is for runs that could not happen (a path that does not
// exist, a policy directory that does not compile); all problems with
// catalog content are diagnostics.
//
// Files are parsed and checked in parallel, a document at a time: each
// document's tree is dropped once it is checked, so memory depends on the
// largest documents and the number of blobs, not on the size of the catalog.
func Validate(ctx context.Context, paths []string, opts Options) (*Result, error) {
	c, err := newChecker(opts)
	if err != nil {
		return nil, err
	}
	c.paths = paths
	if len(opts.RepoCatalogs) > 0 {
		c.repoCatalogs(paths)
	}
	if opts.Konflux {
		for _, p := range paths {
			c.konfluxLayout(p)
		}
	}
	workers := workerCount(opts.Concurrency)
	// Files arrive read, in path order. Each is parsed and checked on its
	// own goroutine (at most workers at once); their results queue up in the
	// same order and are merged one by one, so the outcome does not depend
	// on scheduling.
	pending := make(chan chan *fileCheck, workers)
	merged := make(chan struct{})
	go func() {
		for res := range pending {
			c.merge(<-res)
		}
		close(merged)
	}()
	slots := make(chan struct{}, workers)
	seen := newSeenFiles(len(paths))
	var walkErr error
	for _, p := range paths {
		walk := func(ctx context.Context, p string, fn func(*declcfg.File) error) error {
			wo := WalkOptions(opts.Concurrency)
			wo.Progress = opts.Progress
			return declcfg.WalkPath(ctx, p, opts.Stdin, wo, fn)
		}
		if opts.Walk != nil {
			walk = opts.Walk
		}
		walkErr = walk(ctx, p, func(f *declcfg.File) error {
			if seen.again(f.Path) {
				return nil // one file reached through two of the paths
			}
			res := make(chan *fileCheck, 1)
			slots <- struct{}{}
			pending <- res
			go func() {
				fc := c.newFileCheck()
				fc.file(f)
				res <- fc
				<-slots
			}()
			return nil
		})
		if walkErr != nil {
			break
		}
	}
	close(pending)
	<-merged
	if walkErr != nil {
		return nil, walkErr
	}
	ops, err := c.checkOperatorSettings(ctx)
	if err != nil {
		return nil, err
	}
	refs, plans := c.bundleSources(ops)
	if err := c.checkBundleSources(ctx, refs, plans); err != nil {
		return nil, err
	}
	for _, oc := range ops {
		if oc.graph {
			c.operatorGraph(oc, plans)
		}
	}
	return c.result()
}

// seenFiles are the files of a run over several paths, by the real path
// each has on disk: paths that overlap (a directory twice, a file inside a
// directory also given) are one catalog, each file checked once. A run over
// one path, or a file that is not on disk (an image's, standard input),
// is never looked up.
type seenFiles struct {
	mu    sync.Mutex
	paths map[string]bool
}

func newSeenFiles(paths int) *seenFiles {
	if paths < 2 {
		return nil
	}
	return &seenFiles{paths: map[string]bool{}}
}

// again says whether the file at p was seen before, and notes it.
func (s *seenFiles) again(p string) bool {
	if s == nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	if real, err = filepath.Abs(real); err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paths[real] {
		return true
	}
	s.paths[real] = true
	return false
}

// WalkOptions is how Validate reads catalog files, for an Options.Walk of
// another source: files are streamed (read ahead, then parsed a document at
// a time by the worker that checks them), so a file's documents are never
// all alive at once, and one file is read ahead of the workers: reading a
// file from disk takes a fraction of the time checking it does, so one
// waiting file keeps every worker busy, and each more file read ahead is
// its whole text held in memory.
func WalkOptions(concurrency int) declcfg.WalkOptions {
	concurrency = workerCount(concurrency)
	return declcfg.WalkOptions{Concurrency: concurrency, Ahead: 1, Stream: true, ReadInEach: true, Borrow: true}
}

// ValidateConfig checks an in-memory catalog, such as one a template
// produced, with the same rules as Validate. Diagnostics of a loaded
// catalog carry the positions its blobs kept (the property, channel entry,
// deprecation reference or value at fault, else the blob); blobs made in
// memory have none.
func ValidateConfig(ctx context.Context, cfg *declcfg.DeclarativeConfig, opts Options) (*Result, error) {
	k, err := NewConfigCheck(opts)
	if err != nil {
		return nil, err
	}
	if err := k.Add(ctx, cfg); err != nil {
		return nil, err
	}
	return k.Result()
}

// ConfigCheck checks an in-memory catalog handed over in parts (compose's
// result, a package at a time), with the same rules and the same result as
// ValidateConfig on the whole: each part's blobs are checked as it comes,
// and the rules that span the catalog run in Result.
type ConfigCheck struct {
	c *checker
}

// NewConfigCheck starts a check.
func NewConfigCheck(opts Options) (*ConfigCheck, error) {
	c, err := newChecker(opts)
	if err != nil {
		return nil, err
	}
	return &ConfigCheck{c: c}, nil
}

// Result runs the catalog-wide rules and returns every diagnostic. It fails
// only when the bundle-content profiles could not run (Options.Profiles).
func (k *ConfigCheck) Result() (*Result, error) { return k.c.result() }

// Add checks the blobs of cfg (nil adds nothing). Of cfg, the check keeps
// what the catalog-wide rules read (names, edges, versions), not property
// values.
func (k *ConfigCheck) Add(ctx context.Context, cfg *declcfg.DeclarativeConfig) error {
	c, opts := k.c, k.c.opts
	if cfg == nil {
		return nil
	}
	var blobs []declcfg.Blob
	for i := range cfg.Packages {
		blobs = append(blobs, declcfg.Blob{Schema: declcfg.SchemaPackage, Package: &cfg.Packages[i]})
	}
	for i := range cfg.Channels {
		blobs = append(blobs, declcfg.Blob{Schema: declcfg.SchemaChannel, Channel: &cfg.Channels[i]})
	}
	for i := range cfg.Bundles {
		blobs = append(blobs, declcfg.Blob{Schema: declcfg.SchemaBundle, Bundle: &cfg.Bundles[i]})
	}
	for i := range cfg.Deprecations {
		blobs = append(blobs, declcfg.Blob{Schema: declcfg.SchemaDeprecations, Deprecation: &cfg.Deprecations[i]})
	}
	for i := range cfg.Others {
		blobs = append(blobs, declcfg.Blob{Schema: cfg.Others[i].Schema, Meta: &cfg.Others[i]})
	}
	// The blobs are checked in parts of configPart, on as many workers as
	// Validate has; the parts are merged in order, so the result does not
	// depend on scheduling.
	parts := make([]*fileCheck, (len(blobs)+configPart-1)/configPart)
	errs := make([]error, len(parts))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(workerCount(opts.Concurrency), len(parts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				fc := c.newFileCheck()
				for _, b := range blobs[i*configPart : min((i+1)*configPart, len(blobs))] {
					if err := ctx.Err(); err != nil {
						errs[i] = err
						return
					}
					doc, err := declcfg.BlobDocument(b)
					if err != nil {
						errs[i] = err
						return
					}
					fc.document(doc, &b, nil)
				}
				parts[i] = fc
			}
		})
	}
	wg.Wait()
	for i, fc := range parts {
		if errs[i] != nil {
			return errs[i]
		}
		c.merge(fc)
	}
	return nil
}

// configPart is how many blobs of an in-memory catalog one worker checks
// at a time.
const configPart = 32

// workerCount is Options.Concurrency, or the number of CPUs.
func workerCount(concurrency int) int {
	if concurrency <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return concurrency
}

func (c *checker) result() (*Result, error) {
	c.finish()
	c.konfluxFragment()
	if err := c.checkCatalogProfiles(); err != nil {
		return nil, err
	}
	declcfg.SortFindings(c.diags)
	return &Result{Diagnostics: c.diags, Stats: c.stats}, nil
}
