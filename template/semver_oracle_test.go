package template

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// The semver template's channels checked against a second, deliberately
// plain implementation of opm-reference.md §4.1, written from the reference
// text as a single walk over all entry tuples (opm's shape), where
// generate.go works per group and Y-stream. Random templates exercise
// prereleases, several majors, both channel kinds and every preference.

// oracleTuple is one bundle's entry in one channel.
type oracleTuple struct {
	arch    int // 0 candidate, 1 fast, 2 stable
	kind    int // 1 major, 2 minor (opm's sort priorities)
	channel string
	name    string
	v       semver.Version
	index   int
}

type oracleEntry struct {
	name, replaces string
	skips          []string
}

// oracleChannels returns "channel: entries" text as channelText writes it
// and the default channel, per §4.1 steps 3 and 4.
func oracleChannels(byArch [3][]string, major, minor bool, pref string) (string, string) {
	archNames := []string{"candidate", "fast", "stable"}
	channels := map[string][]oracleEntry{}
	var tuples []oracleTuple
	// §4.1 step 3: the high-water mark starts at the least stable
	// archetype, version 0.0.0, no kind.
	type hw struct {
		arch, kind int
		v          semver.Version
		name       string
	}
	kindName := map[int]string{1: "major", 2: "minor"}
	greater := func(a, b hw) bool {
		if a.arch != b.arch {
			return a.arch > b.arch
		}
		if !a.v.EQ(b.v) {
			return a.v.GT(b.v)
		}
		if a.kind != b.kind {
			if kindName[a.kind] == pref {
				return true
			}
			if kindName[b.kind] == pref {
				return false
			}
			return a.kind > b.kind
		}
		return false
	}
	best := hw{arch: 0, v: semver.Version{}}
	for arch, versions := range byArch {
		vs := make([]semver.Version, len(versions))
		for i, s := range versions {
			vs[i] = semver.MustParse(s)
		}
		sort.Slice(vs, func(i, j int) bool { return vs[i].LT(vs[j]) })
		for _, v := range vs {
			name := "op.v" + v.String()
			var kinds []int
			if major {
				kinds = append(kinds, 1)
			}
			if minor {
				kinds = append(kinds, 2)
			}
			for _, k := range kinds {
				ch := fmt.Sprintf("%s-v%d", archNames[arch], v.Major)
				if k == 2 {
					ch = fmt.Sprintf("%s-v%d.%d", archNames[arch], v.Major, v.Minor)
				}
				if _, ok := channels[ch]; !ok {
					channels[ch] = nil
					if c := (hw{arch, k, v, ch}); greater(c, best) {
						best = c
					}
				}
				channels[ch] = append(channels[ch], oracleEntry{name: name})
				tuples = append(tuples, oracleTuple{arch, k, ch, name, v, len(channels[ch]) - 1})
			}
		}
	}
	// §4.1 step 4: one walk over consecutive pairs.
	sort.SliceStable(tuples, func(i, j int) bool {
		a, b := tuples[i], tuples[j]
		if a.arch != b.arch {
			return a.arch < b.arch
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.v.LT(b.v)
	})
	setEdges := func(t oracleTuple, replaces string, skipSet map[string]bool) {
		e := &channels[t.channel][t.index]
		e.replaces = replaces
		for n := range skipSet {
			if n != replaces {
				e.skips = append(e.skips, n)
			}
		}
		sort.Strings(e.skips)
	}
	prevZMax := ""
	skips := map[string]bool{}
	for i := 1; i < len(tuples); i++ {
		prev, cur := tuples[i-1], tuples[i]
		bigChange := prev.arch != cur.arch || prev.kind != cur.kind || prev.v.Major != cur.v.Major
		yChange := prev.v.Minor != cur.v.Minor
		if bigChange || yChange {
			setEdges(prev, prevZMax, skips)
		}
		if bigChange {
			prevZMax, skips = "", map[string]bool{}
			continue
		}
		if yChange {
			prevZMax = prev.name
		}
		skips[prev.name] = true
	}
	if n := len(tuples); n > 1 {
		last, pen := tuples[n-1], tuples[n-2]
		if last.arch == pen.arch && last.kind == pen.kind && last.v.Major == pen.v.Major {
			setEdges(last, prevZMax, skips)
		}
	}
	names := make([]string, 0, len(channels))
	for ch := range channels {
		names = append(names, ch)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, ch := range names {
		fmt.Fprintf(&b, "%s:", ch)
		for _, e := range channels[ch] {
			fmt.Fprintf(&b, " %s", strings.TrimPrefix(e.name, "op.v"))
			if e.replaces != "" {
				fmt.Fprintf(&b, "<%s", strings.TrimPrefix(e.replaces, "op.v"))
			}
			if len(e.skips) > 0 {
				s := make([]string, len(e.skips))
				for i, n := range e.skips {
					s[i] = strings.TrimPrefix(n, "op.v")
				}
				fmt.Fprintf(&b, "!%s", strings.Join(s, ","))
			}
		}
		b.WriteString("\n")
	}
	return b.String(), best.name
}

func randomVersions(r *rand.Rand, n int) []string {
	pres := []string{"", "", "", "-rc.1", "-rc.2", "-alpha", "-0"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		v := fmt.Sprintf("%d.%d.%d%s", r.Intn(3), r.Intn(4), r.Intn(4), pres[r.Intn(len(pres))])
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func TestSemverMatchesReferenceWalk(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := range 2000 {
		var byArch [3][]string
		var src strings.Builder
		major, minor := r.Intn(2) == 0, r.Intn(2) == 0
		pref := []string{"", "major", "minor"}[r.Intn(3)]
		if !major && !minor {
			minor = true
		}
		if pref == "major" && !major || pref == "minor" && !minor {
			pref = ""
		}
		fmt.Fprintf(&src, "schema: olm.semver\ngenerateMajorChannels: %v\ngenerateMinorChannels: %v\n", major, minor)
		if pref != "" {
			fmt.Fprintf(&src, "defaultChannelTypePreference: %s\n", pref)
		}
		for a, arch := range []string{"candidate", "fast", "stable"} {
			if r.Intn(4) == 0 {
				continue
			}
			byArch[a] = randomVersions(r, 1+r.Intn(9))
			fmt.Fprintf(&src, "%s:\n  bundles:\n", arch)
			for _, v := range byArch[a] {
				fmt.Fprintf(&src, "  - image: r/op:op.v%s\n", v)
			}
		}
		if byArch[0] == nil && byArch[1] == nil && byArch[2] == nil {
			continue
		}
		effPref := pref
		if effPref == "" {
			effPref = "major"
			if minor {
				effPref = "minor"
			}
		}
		wantChannels, wantDefault := oracleChannels(byArch, major, minor, effPref)
		res, err := renderString(t, nil, src.String(), Options{})
		if err != nil {
			t.Fatalf("template %d:\n%s\n%v", i, src.String(), err)
		}
		if got := channelText(res.Config); got != wantChannels {
			t.Fatalf("template %d:\n%s\nchannels:\n%s\nreference walk:\n%s", i, src.String(), got, wantChannels)
		}
		got := res.Config.Packages[0].DefaultChannel
		switch {
		case wantDefault == "":
			// opm's high-water mark starts at candidate 0.0.0, so a template
			// whose only bundles are candidate prereleases of 0.0.0 gets no
			// default channel from opm (an invalid package); fbc picks the
			// channel those bundles created.
			if got == "" || !slices.ContainsFunc(res.Config.Channels, func(c declcfg.Channel) bool { return c.Name == got }) {
				t.Fatalf("template %d:\n%s\ndefault channel %q", i, src.String(), got)
			}
		case got != wantDefault:
			t.Fatalf("template %d:\n%s\ndefault channel %q, reference walk %q", i, src.String(), got, wantDefault)
		}
	}
}
