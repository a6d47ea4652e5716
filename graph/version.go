package graph

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	mmsemver "github.com/Masterminds/semver/v3"
	blang "github.com/blang/semver/v4"
)

// Two semver libraries on purpose: OLM (classic and v1) evaluates skipRange
// with blang/semver v4, quirks included (the model parses them), while OLM
// v1 evaluates the ClusterExtension version constraint with
// Masterminds/semver v3. Using the libraries themselves is the only way to
// agree with OLM on every input.

// parseClassicVersion parses a version the way classic OLM reads bundle
// versions (blang ParseTolerant: "v1.2" is 1.2.0).
func parseClassicVersion(s string) (blang.Version, error) { return blang.ParseTolerant(s) }

// versionRelease orders v1 candidates: version first, then release, where
// no release sorts below any release.
type versionRelease struct {
	version blang.Version
	release []blang.PRVersion
}

// legacyVersionRelease splits build metadata off as a release when it is a
// valid release (dot-separated identifiers without leading zeros, at most
// 20 characters); otherwise the version keeps its build metadata and has
// no release.
func legacyVersionRelease(v blang.Version) versionRelease {
	vr := versionRelease{version: v}
	build := strings.Join(v.Build, ".")
	if build == "" || len(build) > 20 {
		return vr
	}
	var rel []blang.PRVersion
	for _, seg := range strings.Split(build, ".") {
		pr, err := blang.NewPRVersion(seg)
		if err != nil {
			return vr
		}
		rel = append(rel, pr)
	}
	vr.release = rel
	vr.version.Build = nil
	return vr
}

// vrOf is a bundle's v1 version and release (zero without a version).
func vrOf(b *Bundle) versionRelease { return legacyVersionRelease(b.SemVer) }

func (a versionRelease) compare(b versionRelease) int {
	if c := a.version.Compare(b.version); c != 0 {
		return c
	}
	switch {
	case len(a.release) == 0 && len(b.release) == 0:
		return 0
	case len(a.release) == 0:
		return -1
	case len(b.release) == 0:
		return 1
	}
	return blang.Version{Pre: a.release}.Compare(blang.Version{Pre: b.release})
}

// VersionRange is OLM v1's ClusterExtension version constraint.
type VersionRange struct {
	text string
	c    *mmsemver.Constraints
}

// ParseVersionRange parses a v1 version constraint with Masterminds
// NewConstraint, as operator-controller does; the error text is
// operator-controller's.
func ParseVersionRange(s string) (*VersionRange, error) {
	c, err := mmsemver.NewConstraint(s)
	if err != nil {
		return nil, fmt.Errorf("desired version range %q is invalid: %w", s, err)
	}
	return &VersionRange{text: s, c: c}, nil
}

func (r *VersionRange) String() string { return r.text }

// Contains reports whether the constraint admits v, converting the blang
// version field by field like operator-controller.
func (r *VersionRange) Contains(v blang.Version) bool {
	pre := make([]string, len(v.Pre))
	for i, p := range v.Pre {
		pre[i] = p.String()
	}
	return r.c.Check(mmsemver.New(v.Major, v.Minor, v.Patch, strings.Join(pre, "."), strings.Join(v.Build, ".")))
}

// clusterExtensionVersion is the admission rule of the ClusterExtension CRD
// for spec.source.catalog.version (a CEL regex plus maxLength 64). Values it
// rejects never reach the resolver on a real cluster. Compiled on first use:
// the program is about 80 KB, and every fbc command links this package.
var clusterExtensionVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(VersionExpressionPattern) })

// VersionExpressionPattern is the regular expression the ClusterExtension
// CRD's CEL rule matches spec.source.catalog.version against, quirks
// included: its minor part reads `\*]`, so it refuses "1.*.*", which
// Masterminds reads.
const VersionExpressionPattern = `^(\s*(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|[x|X|\*])(\.(0|[1-9]\d*|x|X|\*]))?(\.(0|[1-9]\d*|x|X|\*))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)((?:\s+|,\s*|\s*\|\|\s*)(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|x|X|\*])(\.(0|[1-9]\d*|x|X|\*))?(\.(0|[1-9]\d*|x|X|\*]))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)*$`

// ClusterExtensionAccepts reports whether the ClusterExtension CRD would
// admit s as spec.source.catalog.version, and why not.
func ClusterExtensionAccepts(s string) (bool, string) {
	if len(s) > 64 {
		return false, "longer than 64 characters"
	}
	if !clusterExtensionVersion().MatchString(s) {
		return false, "invalid version expression"
	}
	return true, ""
}
