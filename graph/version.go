package graph

import (
	"fmt"
	"regexp"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"
	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// Two semver libraries on purpose: OLM (classic and v1) evaluates skipRange
// with blang/semver v4, quirks included, while OLM v1 evaluates the
// ClusterExtension version constraint with Masterminds/semver v3. Using the
// libraries themselves is the only way to agree with OLM on every input.

type blangVersion = blang.Version

// parsedVersion is a bundle version in the forms the resolvers use.
type parsedVersion struct {
	// strict is blang Parse, what FBC requires and v1 uses.
	strict blang.Version
	// vr is v1's version and release: registry+v1 bundles carry the release
	// in build metadata ("1.0.0+2" is version 1.0.0, release 2).
	vr versionRelease
}

func parseBundleVersion(s string) (parsedVersion, error) {
	v, err := blang.Parse(s)
	if err != nil {
		return parsedVersion{}, err
	}
	return parsedVersion{strict: v, vr: legacyVersionRelease(v)}, nil
}

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

// parseSkipRange parses an olm.skipRange as OLM does. A range with an empty
// alternative ("a || || b") is an error here: OLM would crash evaluating it,
// which a simulation cannot reproduce, so it is reported and ignored.
func parseSkipRange(s string) (func(blang.Version) bool, error) {
	r, err := declcfg.ParseRange(s)
	if err != nil {
		return nil, err
	}
	return r, nil
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
// rejects never reach the resolver on a real cluster.
var clusterExtensionVersion = regexp.MustCompile(`^(\s*(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|[x|X|\*])(\.(0|[1-9]\d*|x|X|\*]))?(\.(0|[1-9]\d*|x|X|\*))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)((?:\s+|,\s*|\s*\|\|\s*)(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|x|X|\*])(\.(0|[1-9]\d*|x|X|\*))?(\.(0|[1-9]\d*|x|X|\*]))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)*$`)

// ClusterExtensionAccepts reports whether the ClusterExtension CRD would
// admit s as spec.source.catalog.version, and why not.
func ClusterExtensionAccepts(s string) (bool, string) {
	if len(s) > 64 {
		return false, "longer than 64 characters"
	}
	if !clusterExtensionVersion.MatchString(s) {
		return false, "invalid version expression"
	}
	return true, ""
}

// rangeBounds returns, for each OR-group of a blang range that parsed,
// an interval that contains every version the group matches. nil bounds
// are open. The intervals only narrow down which skipRanges to evaluate;
// blang's own function decides. Any token this reading does not fully
// understand (wildcards, a lone operator) leaves its group unbounded, so
// the intervals are always a superset.
func rangeBounds(s string) []interval {
	var groups [][]string
	cur := []string{}
	for _, tok := range blangTokens(s) {
		if tok == "||" {
			groups = append(groups, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, tok)
	}
	groups = append(groups, cur)
	out := make([]interval, 0, len(groups))
	for _, g := range groups {
		out = append(out, groupBounds(g))
	}
	return out
}

// blangTokens splits a range like blang's tokenizer: on spaces, except a
// space right after '<', '>' or '=' (so "< 1.0.0" is one token), dropping
// tokens shorter than two bytes, then removing the spaces inside tokens.
func blangTokens(s string) []string {
	var toks []string
	start := 0
	var last byte
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && last != '<' && last != '>' && last != '=' {
			if i-start >= 2 {
				toks = append(toks, s[start:i])
			}
			start = i + 1
		} else if s[i] != ' ' {
			last = s[i]
		}
	}
	if len(s)-start >= 2 {
		toks = append(toks, s[start:])
	}
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(t, " ", "")
	}
	return toks
}

type interval struct {
	lo, hi *blang.Version // inclusive bounds; nil = open
}

func (iv interval) contains(v blang.Version) bool {
	return (iv.lo == nil || v.Compare(*iv.lo) >= 0) && (iv.hi == nil || v.Compare(*iv.hi) <= 0)
}

func groupBounds(toks []string) interval {
	var iv interval
	for _, t := range toks {
		if strings.Contains(t, "x") {
			return interval{}
		}
		i := strings.IndexAny(t, "0123456789")
		if i < 0 {
			return interval{}
		}
		op, vs := t[:i], t[i:]
		v, err := blang.Parse(vs)
		if err != nil {
			return interval{}
		}
		switch op {
		case "", "=", "==":
			iv = iv.withLo(v).withHi(v)
		case ">", ">=":
			iv = iv.withLo(v)
		case "<", "<=":
			iv = iv.withHi(v)
		case "!", "!=":
			// excludes one version: no bound
		default:
			return interval{}
		}
	}
	return iv
}

func (iv interval) withLo(v blang.Version) interval {
	if iv.lo == nil || v.Compare(*iv.lo) > 0 {
		iv.lo = &v
	}
	return iv
}

func (iv interval) withHi(v blang.Version) interval {
	if iv.hi == nil || v.Compare(*iv.hi) < 0 {
		iv.hi = &v
	}
	return iv
}
