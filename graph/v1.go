package graph

import (
	"fmt"
	"slices"
	"strings"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/model"
)

// Policy is OLM v1's upgradeConstraintPolicy.
type Policy string

// The two upgrade constraint policies of a ClusterExtension.
const (
	CatalogProvided Policy = "CatalogProvided"
	SelfCertified   Policy = "SelfCertified"
)

// v1Plan is a ClusterExtension's view of one package: the selected
// channels (all when none are named), their edges, the version range and
// the policy.
type v1Plan struct {
	pkg      *Package
	channels []string // as given, for messages
	selected map[string]bool
	// inSelected holds the bundle names that are entries of a selected
	// channel; nil when no channel is selected (every bundle qualifies).
	inSelected map[string]bool
	index      *model.EdgeIndex
	rng        *VersionRange
	policy     Policy
	// byVersion finds the bundles an installed version+release "stays" on.
	byVersion map[string][]*Bundle
	// built caches the version and release of bundles whose version has
	// build metadata (the others need no work).
	built map[*Bundle]versionRelease
}

func newV1Plan(p *Package, channels []string, rng *VersionRange, policy Policy) *v1Plan {
	vp := &v1Plan{pkg: p, channels: channels, rng: rng, policy: policy, byVersion: make(map[string][]*Bundle, len(p.Bundles)),
		built: map[*Bundle]versionRelease{}}
	var entries []*Entry
	if len(channels) > 0 {
		vp.selected = map[string]bool{}
		for _, c := range channels {
			vp.selected[c] = true
		}
		vp.inSelected = make(map[string]bool, len(p.Bundles))
	}
	for _, ch := range p.Channels {
		if vp.selected != nil && !vp.selected[ch.Name] {
			continue
		}
		entries = append(entries, ch.AllEntries()...)
		if vp.inSelected != nil {
			for _, e := range ch.Entries {
				vp.inSelected[e.Name] = true
			}
		}
	}
	vp.index = model.NewEdgeIndex(entries)
	for _, b := range p.Bundles {
		if b.HasVersion() {
			k := stayKey(vp.vrOf(b))
			vp.byVersion[k] = append(vp.byVersion[k], b)
		}
	}
	return vp
}

// vrOf is a bundle's version and release the way v1 orders them.
func (vp *v1Plan) vrOf(b *Bundle) versionRelease {
	if len(b.SemVer.Build) == 0 {
		return versionRelease{version: b.SemVer}
	}
	vr, ok := vp.built[b]
	if !ok {
		vr = vrOf(b)
		vp.built[b] = vr
	}
	return vr
}

// stayKey identifies a version+release the way v1 compares them: build
// metadata that is not a release does not count.
func stayKey(vr versionRelease) string {
	v := vr.version
	v.Build = nil
	rel := make([]string, len(vr.release))
	for i, r := range vr.release {
		rel[i] = r.String()
	}
	return v.String() + "#" + strings.Join(rel, ".")
}

func (vp *v1Plan) step(from *Installed) (*Step, error) {
	st := &Step{From: from}
	var (
		pool      []*Bundle
		succEdges map[string][]Edge
		instVR    versionRelease
	)
	if from != nil {
		v, err := blang.Parse(from.Version)
		if err != nil {
			return nil, fmt.Errorf("error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: %v", err)
		}
		instVR = legacyVersionRelease(v)
		succEdges = map[string][]Edge{}
		var succ []*Bundle
		for _, c := range vp.index.Cover(from.Name, &v) {
			e := c.Entry
			if e.Bundle == nil {
				continue // v1 walks bundles; an entry without one is nothing
			}
			if _, seen := succEdges[e.Name]; !seen {
				succ = append(succ, e.Bundle)
			}
			succEdges[e.Name] = appendEdges(succEdges[e.Name], c)
		}
		for _, b := range succ {
			if b.Name == from.Name {
				continue
			}
			st.Candidates = append(st.Candidates, Candidate{Name: b.Name, Bundle: b, Edges: succEdges[b.Name], Excluded: vp.exclusion(b)})
		}
		vp.sortCandidates(st.Candidates)
		if vp.policy != SelfCertified {
			// Only successors and the installed version+release itself
			// pass the successor filter: no need to look further.
			pool = succ
			for _, b := range vp.byVersion[stayKey(instVR)] {
				if _, dup := succEdges[b.Name]; !dup {
					pool = append(pool, b)
				}
			}
			slices.SortFunc(pool, func(a, b *Bundle) int { return a.Index - b.Index })
		}
	}
	if pool == nil && (from == nil || vp.policy == SelfCertified) {
		pool = vp.pkg.Bundles
	}
	var kept []*Bundle
	for _, b := range pool {
		if vp.exclusion(b) != "" {
			continue
		}
		if from != nil && vp.policy != SelfCertified {
			_, isSucc := succEdges[b.Name]
			if !isSucc && !(b.HasVersion() && vp.vrOf(b).compare(instVR) == 0) {
				continue
			}
		}
		kept = append(kept, b)
	}
	if len(kept) == 0 {
		return st.fail(vp.noBundles(from))
	}
	slices.SortStableFunc(kept, vp.preference)
	best := kept[0]
	if dep := dependency(best); dep != "" {
		return st.fail(fmt.Errorf("validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported", best.Name, best.Name, dep))
	}
	if !best.HasVersion() {
		return st.fail(fmt.Errorf("error getting resolved bundle version for bundle %q: %v", best.Name, best.VersionErr))
	}
	st.Resolved = best
	switch {
	case from == nil:
		st.Next = best
		st.Reason = vp.freshReason(best, kept)
	case best.Name == from.Name:
		st.Reason = vp.stayReason(st.Candidates)
	default:
		st.Next = best
		withInstalled := slices.ContainsFunc(kept, func(b *Bundle) bool { _, succ := succEdges[b.Name]; return !succ })
		st.Reason = vp.winReason(best, kept, from, withInstalled)
	}
	return st, nil
}

// exclusion says why a bundle cannot be chosen regardless of edges: not in
// a selected channel, or outside the version range.
func (vp *v1Plan) exclusion(b *Bundle) string {
	if vp.inSelected != nil && !vp.inSelected[b.Name] {
		return "not in the selected channels"
	}
	if vp.rng != nil && (!b.HasVersion() || !vp.rng.Contains(vp.vrOf(b).version)) {
		return fmt.Sprintf("outside version range %q", vp.rng)
	}
	return ""
}

// preference sorts like operator-controller: bundles deprecated by an
// olm.deprecations entry last, then by version and release, highest first;
// bundles without a valid version sort below all others.
func (vp *v1Plan) preference(a, b *Bundle) int {
	if da, db := a.Deprecation != nil, b.Deprecation != nil; da != db {
		if da {
			return 1
		}
		return -1
	}
	switch {
	case !a.HasVersion() && !b.HasVersion():
		return 0
	case !a.HasVersion():
		return 1
	case !b.HasVersion():
		return -1
	}
	return vp.vrOf(b).compare(vp.vrOf(a))
}

func (vp *v1Plan) sortCandidates(cs []Candidate) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if ea, eb := a.Excluded != "", b.Excluded != ""; ea != eb {
			if ea {
				return 1
			}
			return -1
		}
		return vp.preference(a.Bundle, b.Bundle)
	})
}

func (vp *v1Plan) noBundles(from *Installed) error {
	var sb strings.Builder
	if from != nil {
		fmt.Fprintf(&sb, "error upgrading from currently installed version %q: ", from.Version)
	}
	fmt.Fprintf(&sb, "no bundles found for package %q ", vp.pkg.Name)
	if vp.rng != nil {
		fmt.Fprintf(&sb, "matching version %q ", vp.rng)
	}
	if len(vp.channels) > 0 {
		fmt.Fprintf(&sb, "in channels %v ", vp.channels)
	}
	return fmt.Errorf("%s", strings.TrimSpace(sb.String()))
}

func (vp *v1Plan) scope() string {
	var parts []string
	if len(vp.channels) > 0 {
		parts = append(parts, fmt.Sprintf("in channels %s", strings.Join(vp.channels, ", ")))
	}
	if vp.rng != nil {
		parts = append(parts, fmt.Sprintf("in range %q", vp.rng))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

func (vp *v1Plan) freshReason(best *Bundle, kept []*Bundle) string {
	r := fmt.Sprintf("a fresh install takes the highest version%s", vp.scope())
	if best.Deprecation != nil {
		r += " (every candidate is deprecated)"
	} else if slices.ContainsFunc(kept, func(b *Bundle) bool { return b.Deprecation != nil }) {
		r += "; deprecated bundles sort last"
	}
	return r
}

func (vp *v1Plan) winReason(best *Bundle, kept []*Bundle, from *Installed, withInstalled bool) string {
	if vp.policy == SelfCertified {
		return fmt.Sprintf("SelfCertified ignores upgrade edges: %s is the highest version%s", best.Name, vp.scope())
	}
	among := fmt.Sprintf("%d successors", len(kept))
	if withInstalled {
		among = fmt.Sprintf("%d candidates (the successors and %s itself)", len(kept), from.Name)
	}
	switch {
	case len(kept) == 1:
		return fmt.Sprintf("%s is the only successor%s", best.Name, vp.scope())
	case best.Deprecation != nil:
		return fmt.Sprintf("%s has the highest version among %s, all of them deprecated", best.Name, among)
	case slices.ContainsFunc(kept, func(b *Bundle) bool { return b.Deprecation != nil }):
		return fmt.Sprintf("%s has the highest version among %s; deprecated ones sort last", best.Name, among)
	}
	return fmt.Sprintf("%s has the highest version among %s", best.Name, among)
}

func (vp *v1Plan) stayReason(cands []Candidate) string {
	eligible := 0
	for _, c := range cands {
		if c.Excluded == "" {
			eligible++
		}
	}
	switch {
	case len(cands) == 0:
		return "no successor: the installed bundle stays"
	case eligible == 0:
		return "every successor is excluded: the installed bundle stays"
	}
	return "no successor ranks above the installed bundle (lower version, or deprecated while the installed one is not): it stays"
}
