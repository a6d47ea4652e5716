package graph

import (
	"fmt"
	"slices"
	"strings"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
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
	// bundleRelease is operator-controller's BundleReleaseSupport gate:
	// olm.package's release field counts instead of build metadata.
	bundleRelease bool
	// byVersion finds the bundles an installed version+release "stays" on.
	byVersion map[string][]*Bundle
	// built caches the version and release of bundles whose version has
	// build metadata (the others need no work).
	built map[*Bundle]versionRelease
}

func newV1Plan(p *Package, channels []string, rng *VersionRange, policy Policy, bundleRelease bool) *v1Plan {
	vp := &v1Plan{pkg: p, channels: channels, rng: rng, policy: policy, bundleRelease: bundleRelease,
		byVersion: make(map[string][]*Bundle, len(p.Bundles)), built: map[*Bundle]versionRelease{}}
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
		if vp.valid(b) {
			k := stayKey(vp.vrOf(b))
			vp.byVersion[k] = append(vp.byVersion[k], b)
		}
	}
	return vp
}

// valid reports whether operator-controller reads a version (and, behind
// its gate, a release) from the bundle: bundles it cannot read sort below
// all others and match no range and no installed version.
func (vp *v1Plan) valid(b *Bundle) bool {
	return b.HasVersion() && !(vp.bundleRelease && b.Release != "" && b.ReleaseErr != nil)
}

// vrOf is a bundle's version and release the way v1 orders them: with
// BundleReleaseSupport, olm.package's release field when it has one (the
// version then keeps its build metadata); otherwise a release read from
// the version's build metadata (registry+v1's legacy form).
func (vp *v1Plan) vrOf(b *Bundle) versionRelease {
	if vp.bundleRelease && b.Release != "" {
		rel, _ := declcfg.ParseRelease(b.Release)
		return versionRelease{version: b.SemVer, release: rel}
	}
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

// InstalledVersionError is an installed version (and release) that
// operator-controller cannot read: its resolver fails while walking the
// first catalog that has the package.
type InstalledVersionError struct{ Err error }

func (e *InstalledVersionError) Error() string { return e.Err.Error() }
func (e *InstalledVersionError) Unwrap() error { return e.Err }

// installedVR reads the installed bundle's version and release the way
// operator-controller does: a release it records (status.install.bundle.release)
// as is, else one read from the version's build metadata.
func installedVR(from *Installed) (versionRelease, error) {
	if from.Release == nil {
		v, err := blang.Parse(from.Version)
		if err != nil {
			return versionRelease{}, &InstalledVersionError{fmt.Errorf("failed to get version and release of installed bundle: %v", err)}
		}
		return legacyVersionRelease(v), nil
	}
	v, err := blang.Parse(from.Version)
	if err != nil {
		return versionRelease{}, &InstalledVersionError{fmt.Errorf("failed to parse installed bundle version and release: error parsing version %q: %v", from.Version, err)}
	}
	rel, err := parseOLMRelease(*from.Release)
	if err != nil {
		return versionRelease{}, &InstalledVersionError{fmt.Errorf("failed to parse installed bundle version and release: error parsing release %q: %v", *from.Release, err)}
	}
	return versionRelease{version: v, release: rel}, nil
}

// parseOLMRelease parses a release with operator-registry's wording of
// its errors (every bad segment, then the length).
func parseOLMRelease(s string) ([]blang.PRVersion, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > declcfg.MaxReleaseLength {
		return nil, fmt.Errorf("invalid release %q: exceeds maximum length of %d characters", s, declcfg.MaxReleaseLength)
	}
	var (
		rel  []blang.PRVersion
		errs []string
	)
	for i, seg := range strings.Split(s, ".") {
		pr, err := blang.NewPRVersion(seg)
		if err != nil {
			errs = append(errs, fmt.Sprintf("segment %d: %v", i, err))
			continue
		}
		rel = append(rel, pr)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid release %q: %s", s, strings.Join(errs, "\n"))
	}
	return rel, nil
}

// selection is what operator-controller's filters keep of the package in
// one catalog, best first, and the successors they found.
type selection struct {
	kept []*Bundle
	// succ are the successors of the installed bundle in catalog order,
	// with the edges that make them successors; nil for a fresh install.
	succ      []*Bundle
	succEdges map[string][]Edge
	from      *Installed
	instVR    versionRelease
}

// selectBundles applies operator-controller's predicates to the package's
// bundles (the selected channels, the version range, and under
// CatalogProvided the successors of the installed bundle or its own
// version and release) and sorts what remains: bundles deprecated by an
// olm.deprecations entry last, then by version and release, highest first.
func (vp *v1Plan) selectBundles(from *Installed) (*selection, error) {
	sel := &selection{from: from}
	var pool []*Bundle
	if from != nil {
		// Under SelfCertified operator-controller applies no successor
		// filter and never reads the installed version: one it cannot
		// parse is no error, and only the edges by name are shown.
		var v *blang.Version
		switch vr, err := installedVR(from); {
		case err == nil:
			sel.instVR = vr
			pv, _ := blang.Parse(from.Version) // installedVR parsed it
			v = &pv
		case vp.policy != SelfCertified:
			return nil, err
		}
		sel.succEdges = map[string][]Edge{}
		for _, c := range vp.index.Cover(from.Name, v) {
			e := c.Entry
			if e.Bundle == nil {
				continue // v1 walks bundles; an entry without one is nothing
			}
			if _, seen := sel.succEdges[e.Name]; !seen {
				sel.succ = append(sel.succ, e.Bundle)
			}
			sel.succEdges[e.Name] = appendEdges(sel.succEdges[e.Name], c)
		}
		if vp.policy != SelfCertified {
			// Only successors and the installed version+release itself
			// pass the successor filter: no need to look further.
			pool = slices.Clone(sel.succ)
			for _, b := range vp.byVersion[stayKey(sel.instVR)] {
				if _, dup := sel.succEdges[b.Name]; !dup {
					pool = append(pool, b)
				}
			}
			slices.SortFunc(pool, func(a, b *Bundle) int { return a.Index - b.Index })
		}
	}
	if from == nil || vp.policy == SelfCertified {
		pool = vp.pkg.Bundles
	}
	for _, b := range pool {
		if vp.exclusion(b) != "" || vp.notSuccessor(sel, b) {
			continue
		}
		sel.kept = append(sel.kept, b)
	}
	slices.SortStableFunc(sel.kept, vp.preference)
	return sel, nil
}

// notSuccessor reports whether the successor filter drops b: under
// CatalogProvided with a bundle installed, b is neither a successor nor
// of the installed version and release.
func (vp *v1Plan) notSuccessor(sel *selection, b *Bundle) bool {
	if sel.from == nil || vp.policy == SelfCertified {
		return false
	}
	if _, ok := sel.succEdges[b.Name]; ok {
		return false
	}
	return !(vp.valid(b) && vp.vrOf(b).compare(sel.instVR) == 0)
}

func (vp *v1Plan) step(from *Installed) (*Step, error) {
	st := &Step{From: from}
	sel, err := vp.selectBundles(from)
	if err != nil {
		return nil, fmt.Errorf("error walking catalogs: error finding upgrade edges: %w", err)
	}
	for _, b := range sel.succ {
		if b.Name == from.Name {
			continue
		}
		st.Candidates = append(st.Candidates, Candidate{Name: b.Name, Bundle: b, Edges: sel.succEdges[b.Name], Excluded: vp.exclusion(b)})
	}
	vp.sortCandidates(st.Candidates)
	kept := sel.kept
	if len(kept) == 0 {
		return st.fail(vp.noBundles(from))
	}
	best := kept[0]
	if dep := Dependency(best); dep != "" {
		return st.fail(fmt.Errorf("validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported", best.Name, best.Name, dep))
	}
	if !vp.valid(best) {
		return st.fail(fmt.Errorf("error getting resolved bundle version for bundle %q: %v", best.Name, vp.versionErr(best)))
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
		withInstalled := slices.ContainsFunc(kept, func(b *Bundle) bool { _, succ := sel.succEdges[b.Name]; return !succ })
		st.Reason = vp.winReason(best, kept, from, withInstalled)
	}
	return st, nil
}

// versionErr is operator-controller's error reading b's version and
// release (bundleutil's wording), nil when it reads them.
func (vp *v1Plan) versionErr(b *Bundle) error {
	if vp.valid(b) {
		return nil
	}
	var first *declcfg.Property
	for i := range b.Blob.Properties {
		if b.Blob.Properties[i].Type == declcfg.PropertyPackage {
			first = &b.Blob.Properties[i]
			break
		}
	}
	if first == nil {
		return fmt.Errorf("no package property found in bundle %q", b.Name)
	}
	var pkg declcfg.PackageProperty
	if err := first.Decode(&pkg); err != nil {
		return fmt.Errorf("error unmarshalling package property: %v", err)
	}
	if vp.bundleRelease && pkg.Release != "" {
		if _, err := blang.Parse(pkg.Version); err != nil {
			return fmt.Errorf("error parsing version %q: %v", pkg.Version, err)
		}
		if _, err := parseOLMRelease(pkg.Release); err != nil {
			return fmt.Errorf("error parsing release %q: %v", pkg.Release, err)
		}
		return b.VersionErr
	}
	if _, err := blang.Parse(pkg.Version); err != nil {
		return err
	}
	// The first olm.package property reads; the model refuses the bundle
	// for having several.
	return b.VersionErr
}

// exclusion says why a bundle cannot be chosen regardless of edges: not in
// a selected channel, or outside the version range.
func (vp *v1Plan) exclusion(b *Bundle) string {
	if vp.inSelected != nil && !vp.inSelected[b.Name] {
		return "not in the selected channels"
	}
	if vp.rng != nil && (!vp.valid(b) || !vp.rng.Contains(vp.vrOf(b).version)) {
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
	switch va, vb := vp.valid(a), vp.valid(b); {
	case !va && !vb:
		return 0
	case !va:
		return 1
	case !vb:
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

// V1Selection is what operator-controller's resolver keeps of a package in
// one catalog for a ClusterExtension: its filters' survivors, best first.
// OLM v1 resolution across catalogs (resolve/olmv1) compares the best
// bundle of each catalog.
type V1Selection struct {
	// Kept are the bundles the filters keep, in operator-controller's
	// order: not deprecated before deprecated, then highest version and
	// release first, bundles whose version cannot be read last.
	Kept []*Bundle
	vp   *v1Plan
	sel  *selection
}

// SelectV1 applies operator-controller's filters to the package for a
// ClusterExtension installed at from (nil: a fresh install). An error is
// an *InstalledVersionError: the installed version cannot be read.
func (r *Resolver) SelectV1(from *Installed) (*V1Selection, error) {
	if r.v1 == nil {
		return nil, optionErrorf("SelectV1 needs OLM v1 semantics")
	}
	sel, err := r.v1.selectBundles(from)
	if err != nil {
		return nil, err
	}
	return &V1Selection{Kept: sel.kept, vp: r.v1, sel: sel}, nil
}

// Excluded says why the filters drop b: not in the selected channels,
// outside the version range, or not a successor of the installed bundle
// (under CatalogProvided); "" when they keep it.
func (s *V1Selection) Excluded(b *Bundle) string {
	if why := s.vp.exclusion(b); why != "" {
		return why
	}
	if s.vp.notSuccessor(s.sel, b) {
		where := "no entry"
		if len(s.vp.channels) > 0 {
			where = "no entry of the selected channels"
		}
		return fmt.Sprintf("not a successor of %s (%s replaces it, skips it or has a skipRange over %s)", s.sel.from.Name, where, s.sel.from.Version)
	}
	return ""
}

// Edges are the upgrade edges that make b a successor of the installed
// bundle, nil when there are none.
func (s *V1Selection) Edges(b *Bundle) []Edge { return s.sel.succEdges[b.Name] }

// Compare orders two bundles the way operator-controller sorts them:
// negative when a comes first.
func (s *V1Selection) Compare(a, b *Bundle) int { return s.vp.preference(a, b) }

// VersionErr is operator-controller's error reading b's version and
// release, nil when it reads them.
func (s *V1Selection) VersionErr(b *Bundle) error { return s.vp.versionErr(b) }

// Recorded is b's version as operator-controller records it in the
// ClusterExtension's status.install.bundle, and its release: without
// BundleReleaseSupport the release rides in the version's build metadata
// and release is nil; with it, the release is separate (nil when b has
// none). ok is false when the version cannot be read.
func (s *V1Selection) Recorded(b *Bundle) (version string, release *string, ok bool) {
	if !s.vp.valid(b) {
		return "", nil, false
	}
	vr := s.vp.vrOf(b)
	v := vr.version
	if s.vp.bundleRelease {
		if len(vr.release) > 0 {
			parts := make([]string, len(vr.release))
			for i, p := range vr.release {
				parts[i] = p.String()
			}
			r := strings.Join(parts, ".")
			release = &r
		}
		return v.String(), release, true
	}
	if len(vr.release) > 0 {
		v.Build = make([]string, len(vr.release))
		for i, r := range vr.release {
			v.Build[i] = r.String()
		}
	}
	return v.String(), nil, true
}

// CompareVersions orders two bundles by version and release alone,
// highest first (negative when a ranks above b); bundles whose version
// cannot be read come last.
func (s *V1Selection) CompareVersions(a, b *Bundle) int {
	switch va, vb := s.vp.valid(a), s.vp.valid(b); {
	case !va && !vb:
		return 0
	case !va:
		return 1
	case !vb:
		return -1
	}
	return s.vp.vrOf(b).compare(s.vp.vrOf(a))
}
