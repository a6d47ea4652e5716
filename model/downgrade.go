package model

import (
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// downgradeEdges warns about upgrade edges that lead to a lower version:
// an entry that replaces or skips a bundle of a higher version, or whose
// skipRange holds a bundle of the channel above its own version. The two
// OLMs part ways there. OLM classic follows replaces and skips whatever
// the versions, so clusters move to the lower version and on; OLM v1 only
// upgrades to a higher version (with the default upgradeConstraintPolicy,
// CatalogProvided), so it never takes the edge: clusters on the higher
// version stay there and miss every bundle after it. The usual cause is a
// prerelease: 1.0.1-1 sorts below 1.0.1. An edge a loop's problem names
// already is not reported again.
func (r *reporter) downgradeEdges() {
	for _, ch := range r.pkg.Channels {
		for _, e := range ch.Entries {
			ev, ok := entryVersion(e)
			if !ok {
				continue
			}
			check := func(kind, target string, at declcfg.Pos) {
				t := ch.byName[target]
				tv, ok := entryVersion(t)
				if target == e.Name || !ok || !ev.LT(tv) || slices.Contains(r.explained, edgeRef{ch.Name, e.Name, target}) {
					return
				}
				r.add(RuleDowngradeEdge, or(at, e.Pos, ch.Pos), ch.Name, e.Name, fmt.Sprintf(
					"entry %q (%s) %s %q (%s), a higher version%s: OLM classic follows the edge, so clusters on %s move down to %s and on; "+
						"OLM v1 never upgrades to a lower version, so clusters on %s stay there and miss every bundle after it; give %q a version above %s",
					e.Name, ev, kind, target, tv, prereleaseNote(ev, tv), tv, ev, tv, e.Name, tv))
			}
			check("replaces", e.Replaces, e.ReplacesPos)
			for _, s := range e.Skips {
				check("skips", s, e.Pos)
			}
			if e.Range == nil {
				continue
			}
			for _, o := range ch.Entries {
				ov, ok := entryVersion(o)
				if o == e || !ok || !ev.LT(ov) || !e.Range(ov) {
					continue
				}
				r.add(RuleDowngradeEdge, or(e.SkipRangePos, e.Pos, ch.Pos), ch.Name, e.Name, fmt.Sprintf(
					"entry %q (%s) has skipRange %q, which holds %q (%s), a higher version%s: OLM classic follows the edge, so clusters on %s can move down to %s; "+
						"OLM v1 never upgrades to a lower version and does not take it; narrow the range to versions below %s",
					e.Name, ev, e.SkipRange, o.Name, ov, prereleaseNote(ev, ov), ov, ev, ev))
				break // one such bundle says it
			}
		}
	}
}

// prereleaseNote explains, when it is the cause, why v sorts below w.
func prereleaseNote(v, w semver.Version) string {
	if len(v.Pre) > 0 && v.Major == w.Major && v.Minor == w.Minor && v.Patch == w.Patch {
		return fmt.Sprintf(" (%s is a prerelease of %s, and a prerelease sorts below its release)", v, w.FinalizeVersion())
	}
	return ""
}
