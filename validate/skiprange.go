package validate

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// skipRangeVersion finds the versions a skipRange text names: the bounds of
// its comparators (wildcards such as 1.2.x count as 1.2.0).
var skipRangeVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+(\.[0-9xX*]+){0,2}(-[0-9A-Za-z.-]+)?`) })

// skipRangesUpper reports the entries whose skipRange reaches above their
// own bundle's version (operator-registry pull request #2090): the bundle
// then offers itself as an upgrade from newer versions, which OLM follows
// downwards. A range reaches above version V when it holds a release
// version greater than V; the least such version in each of its intervals
// is V's next patch, one of the versions the range names, or the patch
// after one, so those are the versions tried. It returns where it
// reported.
func (c *checker) skipRangesUpper() map[declcfg.Pos]bool {
	at := map[declcfg.Pos]bool{}
	for _, p := range c.catalog.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				if e.Range == nil || e.Bundle == nil || e.Bundle.VersionErr != nil {
					continue
				}
				v := e.Bundle.SemVer
				if above, ok := rangeAbove(e.SkipRange, e.Range, v); ok {
					pos := e.SkipRangePos
					if pos.Line == 0 {
						pos = e.Pos
					}
					at[pos] = true
					c.add(RuleSkipRangeUpper, pos, blobRef{pkg: p.Name, channel: ch.Name, bundle: e.Name},
						fmt.Sprintf("skipRange upper bound is greater than bundle version: entry %q has skipRange %q, which holds %s, above its bundle's version %s; end the range at %s (e.g. <%s). Only a warning: the rule is operator-registry pull request #2090, which is not merged, and no released opm or pipeline applies it yet",
							e.Name, e.SkipRange, above, v, v, v.FinalizeVersion()))
				}
			}
		}
	}
	return at
}

// rangeAbove returns the least release version above v that r (the range
// text parsed) holds among the candidates, and whether there is one.
func rangeAbove(text string, r semver.Range, v semver.Version) (semver.Version, bool) {
	next := func(x semver.Version) semver.Version {
		return semver.Version{Major: x.Major, Minor: x.Minor, Patch: x.Patch + 1}
	}
	candidates := []semver.Version{next(v)}
	for _, m := range skipRangeVersion().FindAllString(text, -1) {
		x, err := semver.ParseTolerant(wildcardZero(m))
		if err != nil {
			continue
		}
		release := semver.Version{Major: x.Major, Minor: x.Minor, Patch: x.Patch}
		candidates = append(candidates, release, next(release))
	}
	var best *semver.Version
	for _, x := range candidates {
		if x.GT(v) && r(x) && (best == nil || x.LT(*best)) {
			best = &x
		}
	}
	if best == nil {
		return semver.Version{}, false
	}
	return *best, true
}

// wildcardZero reads a wildcard version part (1.2.x) as 0; a prerelease
// is left as it is.
func wildcardZero(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch == '-' {
			break
		}
		if ch == 'x' || ch == 'X' || ch == '*' {
			b[i] = '0'
		}
	}
	return string(b)
}
