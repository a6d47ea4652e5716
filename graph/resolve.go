package graph

import (
	"errors"
	"fmt"
	"strings"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/internal/fault"
)

// Semantics selects whose upgrade rules a simulation follows.
type Semantics string

// The two OLM generations.
const (
	Classic Semantics = "classic"
	V1      Semantics = "v1"
)

// Options describe the subscription (classic) or ClusterExtension (v1)
// being simulated.
type Options struct {
	Semantics Semantics
	// Channels: classic takes at most one ("" or none means no channel:
	// default channel first, then the others by name); v1 takes any number
	// (none means every channel).
	Channels []string
	// VersionRange is v1's version constraint (Masterminds syntax).
	VersionRange string
	// Policy is v1's upgradeConstraintPolicy (default CatalogProvided).
	Policy Policy
	// BundleRelease is operator-controller's BundleReleaseSupport gate: v1
	// orders bundles by olm.package's release field where they have one,
	// instead of a release read from the version's build metadata.
	BundleRelease bool
	// Dependencies, when set, decides classic steps whose winner declares
	// dependencies the way OLM's resolver does (graph sees one package;
	// the resolver sees the catalog). Without it such steps say that the
	// dependencies are not simulated.
	Dependencies DependencyResolver
}

// DependencyResolver resolves one classic Subscription with its
// dependencies. The resolve package implements it.
type DependencyResolver interface {
	// Step says which bundle OLM moves a Subscription of pkg (to channel,
	// "" for none) to from the installed bundle (from empty: a fresh
	// install): "" when it stays, or OLM's error when the namespace does
	// not resolve.
	Step(pkg, channel, from, fromVersion string) (next string, err error)
	// Why is OLM's reason why bundle cannot be installed by a fresh
	// Subscription to it, "" when it can.
	Why(pkg, channel, bundle string) string
}

// OptionError reports options that cannot describe a subscription or
// ClusterExtension (as opposed to one that fails to resolve).
type OptionError struct{ msg string }

func (e *OptionError) Error() string { return e.msg }

// FaultKind is Usage: the question does not fit the catalog.
func (e *OptionError) FaultKind() fault.Kind { return fault.Usage }

func optionErrorf(format string, args ...any) error {
	return &OptionError{msg: fmt.Sprintf(format, args...)}
}

// Installed is the bundle a cluster runs: a name and a version. It need
// not exist in the catalog.
type Installed struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Release is the release OLM v1 recorded for the installed bundle
	// (status.install.bundle.release, with BundleReleaseSupport); nil when
	// it recorded none, and the version's build metadata then stands for
	// it.
	Release *string `json:"release,omitempty"`
}

// Step is one resolution: what the resolver considered and what it chose.
type Step struct {
	// From is the installed bundle; nil for a fresh install.
	From *Installed
	// Next is the bundle OLM moves to; nil when it stays.
	Next *Bundle
	// Resolved is v1's raw result, the installed bundle itself when it
	// stays; nil under classic.
	Resolved *Bundle
	// Candidates are the successors of From in preference order (classic:
	// closest to the channel head first; v1: non-deprecated first, highest
	// version first), without From itself. Empty for a fresh install.
	Candidates []Candidate
	// Reason says in one sentence why Next won or why nothing moved.
	Reason string
	// Err is the resolution failure of this step, if any.
	Err error
	// Refused says why the path's cluster (UpgradeQuery.Cluster) cannot
	// run Next; empty when it can, or when no cluster is given.
	Refused string
}

// fail records a resolution failure on a step whose candidates are known.
// OLM moves nowhere when the namespace does not resolve: the bundle it
// preferred (a classic successor whose dependencies fail with the installed
// bundle's) is not reached, and the path ends before it.
func (st *Step) fail(err error) (*Step, error) {
	st.Err = err
	st.Next = nil
	return st, err
}

// Candidate is a successor and the edges that make it one.
type Candidate struct {
	Name string
	// Bundle is nil for a classic entry that has no olm.bundle.
	Bundle *Bundle
	// Channel is where classic found the entry (v1 lists the channel in
	// each edge).
	Channel string
	Edges   []Edge
	// Excluded says why the candidate cannot be chosen, empty if it can.
	Excluded string
}

// Resolver simulates one package under fixed options.
type Resolver struct {
	pkg     *Package
	opts    Options
	classic *classicPlan
	v1      *v1Plan
	// memo, when set (Remember), keeps every step resolved, by installed
	// bundle.
	memo map[memoKey]memoStep
}

type memoKey struct {
	fresh                  bool
	name, version, release string
	hasRelease             bool
}

type memoStep struct {
	st  *Step
	err error
}

// Remember makes the resolver keep every step it resolves, keyed by the
// installed bundle, so that the paths of many installed bundles share the
// steps they have in common: a path from each bundle of a channel then
// costs one resolution per bundle, not one per step of each path. The
// steps it returns are then shared between paths, so callers must not
// change them.
func (r *Resolver) Remember() {
	if r.memo == nil {
		r.memo = map[memoKey]memoStep{}
	}
}

// NewResolver checks the options and prepares the package's graph for
// them. Invalid options are an *OptionError.
func NewResolver(p *Package, opts Options) (*Resolver, error) {
	r := &Resolver{pkg: p, opts: opts}
	switch opts.Semantics {
	case Classic:
		if len(opts.Channels) > 1 {
			return nil, optionErrorf("classic subscriptions name at most one channel, got %d (%s)", len(opts.Channels), strings.Join(opts.Channels, ", "))
		}
		if opts.VersionRange != "" {
			return nil, optionErrorf("a version range is an OLM v1 setting; classic subscriptions have none")
		}
		if opts.Policy != "" && opts.Policy != CatalogProvided {
			return nil, optionErrorf("upgrade constraint policy %s is an OLM v1 setting; classic always follows the catalog's edges", opts.Policy)
		}
		ch := ""
		if len(opts.Channels) == 1 {
			ch = opts.Channels[0]
		}
		r.classic = newClassicPlan(p, ch, opts.Dependencies)
	case V1:
		var rng *VersionRange
		if opts.VersionRange != "" {
			var err error
			if rng, err = ParseVersionRange(opts.VersionRange); err != nil {
				return nil, &OptionError{msg: err.Error()}
			}
		}
		switch opts.Policy {
		case "":
			opts.Policy = CatalogProvided
		case CatalogProvided, SelfCertified:
		default:
			return nil, optionErrorf("unknown upgrade constraint policy %q (want CatalogProvided or SelfCertified)", opts.Policy)
		}
		for _, c := range opts.Channels {
			if c == "" {
				return nil, optionErrorf("empty channel name (OLM v1 follows every channel when none is named)")
			}
		}
		r.opts = opts
		r.v1 = newV1Plan(p, opts.Channels, rng, opts.Policy, opts.BundleRelease)
	default:
		return nil, optionErrorf("unknown semantics %q (want classic or v1)", opts.Semantics)
	}
	return r, nil
}

// CheckInstalled validates a version given for an installed bundle the way
// the semantics reads it (classic tolerates "v1.2", v1 does not).
func (r *Resolver) CheckInstalled(in Installed) error {
	var err error
	if r.opts.Semantics == Classic {
		_, err = blang.ParseTolerant(in.Version)
	} else {
		_, err = blang.Parse(in.Version)
	}
	if err != nil {
		return optionErrorf("installed version %q of %s is not a semantic version: %v", in.Version, in.Name, err)
	}
	return nil
}

// Step resolves once from the installed bundle (nil: fresh install). An
// error means resolution fails, as OLM would report it; the step is then
// still returned when the candidates were known before the failure.
func (r *Resolver) Step(from *Installed) (*Step, error) {
	if r.memo == nil {
		return r.step(from)
	}
	k := memoKey{fresh: from == nil}
	if from != nil {
		k.name, k.version = from.Name, from.Version
		if from.Release != nil {
			k.release, k.hasRelease = *from.Release, true
		}
	}
	if m, ok := r.memo[k]; ok {
		return m.st, m.err
	}
	st, err := r.step(from)
	r.memo[k] = memoStep{st, err}
	return st, err
}

func (r *Resolver) step(from *Installed) (*Step, error) {
	if r.classic != nil {
		return r.classic.step(from)
	}
	return r.v1.step(from)
}

// Path is a simulated upgrade sequence: each step resolves from the
// previous result until nothing changes.
type Path struct {
	Package   string
	Semantics Semantics
	From      *Installed
	// Steps are every resolution made; the last one did not move, or
	// failed (Step.Err), or closed a loop.
	Steps []*Step
	// Err is the resolution failure that ended the path, if any.
	Err error
	// Cluster is the cluster the steps were checked against, if any.
	Cluster *ClusterVersion
}

// ErrLoop marks a path that revisits a bundle.
var ErrLoop = errors.New("upgrade loop")

// Path repeats Step until the result stops changing. A path that comes
// back to a bundle it already visited ends with an error wrapping ErrLoop.
func (r *Resolver) Path(from *Installed) *Path {
	path := &Path{Package: r.pkg.Name, Semantics: r.opts.Semantics, From: from}
	visited := map[string]bool{}
	var names []string
	if from != nil {
		visited[from.Name] = true
		names = append(names, from.Name)
	}
	cur := from
	// Each step moves to a bundle not visited before, so a catalog of n
	// bundles bounds the path at n+1 resolutions.
	for range len(r.pkg.Bundles) + 2 {
		st, err := r.Step(cur)
		if err != nil {
			if st != nil {
				path.Steps = append(path.Steps, st)
			}
			path.Err = err
			return path
		}
		path.Steps = append(path.Steps, st)
		if st.Next == nil {
			return path
		}
		names = append(names, st.Next.Name)
		if visited[st.Next.Name] {
			path.Err = fmt.Errorf("%w: %s", ErrLoop, strings.Join(names, " -> "))
			return path
		}
		visited[st.Next.Name] = true
		cur = &Installed{Name: st.Next.Name, Version: st.Next.Version}
	}
	path.Err = fmt.Errorf("%w: %s", ErrLoop, strings.Join(names, " -> "))
	return path
}

// Next is the first move of the path, "" when it stays.
func (p *Path) Next() string {
	if len(p.Steps) == 0 || p.Steps[0].Next == nil {
		return ""
	}
	return p.Steps[0].Next.Name
}

// Successors names the first step's candidates.
func (p *Path) Successors() []string {
	out := []string{}
	if len(p.Steps) > 0 {
		for _, c := range p.Steps[0].Candidates {
			out = append(out, c.Name)
		}
	}
	return out
}

// Bundles names the bundles the path moves through, in order, without the
// starting bundle.
func (p *Path) Bundles() []string {
	out := []string{}
	for _, st := range p.Steps {
		if st.Next != nil {
			out = append(out, st.Next.Name)
		}
	}
	return out
}
