package compose

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// opmChannelProblem applies opm's channel checks (model.Channel.Validate:
// exactly one head, no replaces cycle from it, nothing stranded) written out
// independently of subset.go, as the oracle for the subset tests.
func opmChannelProblem(entries []declcfg.ChannelEntry) string {
	if len(entries) == 0 {
		return "channel must contain at least one bundle"
	}
	byName := map[string]declcfg.ChannelEntry{}
	for _, e := range entries {
		if _, dup := byName[e.Name]; dup {
			return "duplicate entry " + e.Name
		}
		byName[e.Name] = e
	}
	incoming := map[string]bool{}
	skipped := map[string]bool{}
	for _, e := range entries {
		if _, ok := byName[e.Replaces]; ok {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			skipped[s] = true
			if _, ok := byName[s]; ok {
				incoming[s] = true
			}
		}
	}
	var heads []string
	for _, e := range entries {
		if !incoming[e.Name] {
			heads = append(heads, e.Name)
		}
	}
	switch {
	case len(heads) == 0:
		return "no channel head found in graph"
	case len(heads) > 1:
		sort.Strings(heads)
		return "multiple channel heads found in graph: " + strings.Join(heads, ", ")
	}
	chain := map[string]bool{heads[0]: true}
	cur, ok := byName[heads[0]]
	for ok {
		if skipped[cur.Replaces] {
			break
		}
		if chain[cur.Replaces] {
			return "detected cycle in replaces chain"
		}
		chain[cur.Replaces] = true
		cur, ok = byName[cur.Replaces]
	}
	var stranded []string
	for _, e := range entries {
		if !chain[e.Name] && !skipped[e.Name] {
			stranded = append(stranded, e.Name)
		}
	}
	if len(stranded) > 0 {
		sort.Strings(stranded)
		return "channel contains one or more stranded bundles: " + strings.Join(stranded, ", ")
	}
	return ""
}

func parseEntries(t *testing.T, spec string) []declcfg.ChannelEntry {
	t.Helper()
	// "name[>replaces][~skip,skip][@range]" separated by spaces
	var out []declcfg.ChannelEntry
	for _, f := range strings.Fields(spec) {
		var e declcfg.ChannelEntry
		if i := strings.Index(f, "@"); i >= 0 {
			e.SkipRange = f[i+1:]
			f = f[:i]
		}
		if i := strings.Index(f, "~"); i >= 0 {
			e.Skips = strings.Split(f[i+1:], ",")
			f = f[:i]
		}
		if i := strings.Index(f, ">"); i >= 0 {
			e.Replaces = f[i+1:]
			f = f[:i]
		}
		e.Name = f
		out = append(out, e)
	}
	return out
}

func formatEntries(entries []declcfg.ChannelEntry) string {
	var parts []string
	for _, e := range entries {
		s := e.Name
		if e.Replaces != "" {
			s += ">" + e.Replaces
		}
		if len(e.Skips) > 0 {
			s += "~" + strings.Join(e.Skips, ",")
		}
		if e.SkipRange != "" {
			s += "@" + e.SkipRange
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// nameVersions reads versions from names like "1.2.3".
func nameVersions(name string) (semver.Version, bool) {
	v, err := semver.Parse(name)
	return v, err == nil
}

func TestSubsetEntries(t *testing.T) {
	tests := []struct {
		name, channel, keep, want string
	}{{
		name:    "hole in a replaces chain is bridged",
		channel: "1.0.0 1.1.0>1.0.0 1.2.0>1.1.0 1.3.0>1.2.0",
		keep:    "1.0.0 1.3.0",
		want:    "1.0.0 1.3.0>1.0.0",
	}, {
		name:    "the tail keeps its dangling replaces",
		channel: "1.0.0 1.1.0>1.0.0 1.2.0>1.1.0",
		keep:    "1.2.0",
		want:    "1.2.0>1.1.0",
	}, {
		name:    "skips and skipRange stay as written",
		channel: "1.0.0 1.1.0>1.0.0~0.9.0@<1.1.0 1.2.0>1.1.0",
		keep:    "1.1.0",
		want:    "1.1.0>1.0.0~0.9.0@<1.1.0",
	}, {
		name:    "entries only a dropped entry skipped are inherited",
		channel: "1.0.0 1.0.1~1.0.0 1.1.0>1.0.1~1.0.0",
		keep:    "1.0.0 1.1.0",
		want:    "1.0.0 1.1.0>1.0.1~1.0.0",
	}, {
		name:    "skips inherited through a dropped replaced entry",
		channel: "1.0.0 1.0.1~1.0.0 1.1.0>1.0.1",
		keep:    "1.0.0 1.1.0",
		want:    "1.0.0 1.1.0>1.0.1~1.0.0",
	}, {
		name: "semver z-stream graph cut below its head: the highest top becomes head",
		// 1.1.1 replaces the 1.0 head and skips 1.1.0; 1.0.1 skips 1.0.0.
		channel: "1.0.0 1.0.1~1.0.0 1.1.0 1.1.1>1.0.1~1.1.0",
		keep:    "1.0.0 1.0.1 1.1.0",
		want:    "1.0.0 1.0.1~1.0.0 1.1.0>1.0.1",
	}, {
		name:    "the new head's dangling replaces moves to its skips",
		channel: "1.0.0 1.1.0>1.0.0 2.0.0>0.5.0 3.0.0>1.1.0~2.0.0",
		keep:    "1.0.0 1.1.0 2.0.0",
		want:    "1.0.0 1.1.0>1.0.0 2.0.0>1.1.0~0.5.0",
	}, {
		name:    "chain of skipped entries stays valid",
		channel: "1 2>1 3>2 4>1~2,3",
		keep:    "2 3 4",
		want:    "2>1 3>2 4>1~2,3",
	}, {
		name:    "nothing kept",
		channel: "1.0.0 1.1.0>1.0.0",
		keep:    "",
		want:    "",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keep := map[string]bool{}
			for _, n := range strings.Fields(tt.keep) {
				keep[n] = true
			}
			got := subsetEntries(parseEntries(t, tt.channel), func(n string) bool { return keep[n] }, nameVersions)
			assert.Equal(t, tt.want, formatEntries(got))
			if len(got) > 0 {
				assert.Empty(t, opmChannelProblem(got))
			}
		})
	}
}

func TestSubsetEntriesUnstrands(t *testing.T) {
	// b is replaced only by c, which x skips: keeping x, c and b (but not the
	// head h that replaced x) leaves b reachable only through skipped c.
	entries := parseEntries(t, "b c>b x>y~c y h>x")
	keep := map[string]bool{"b": true, "c": true, "x": true}
	got := subsetEntries(entries, func(n string) bool { return keep[n] }, func(string) (semver.Version, bool) { return semver.Version{}, false })
	assert.Empty(t, opmChannelProblem(got), formatEntries(got))
	assert.Equal(t, "b c>b~b x>y~c", formatEntries(got))
}

// TestSubsetEntriesCorpus cuts every channel of the real catalogs many ways
// and checks each cut with opm's rules: it keeps exactly the chosen entries
// and is a valid channel whenever the original was.
func TestSubsetEntriesCorpus(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	roots, err := filepath.Glob(filepath.Join(corpus, "*", "catalogs", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, roots)
	if testing.Short() {
		roots = roots[:1]
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var channels, cuts int
	for _, root := range roots {
		cfg, err := declcfg.Load(context.Background(), []string{root}, declcfg.LoadOptions{})
		require.NoError(t, err, root)
		versions := map[string]semver.Version{}
		for _, b := range cfg.Bundles {
			if vs, err := b.Version(); err == nil {
				if v, err := semver.Parse(vs); err == nil {
					versions[b.Package+"/"+b.Name] = v
				}
			}
		}
		for _, ch := range cfg.Channels {
			if opmChannelProblem(ch.Entries) != "" {
				continue
			}
			channels++
			version := func(n string) (semver.Version, bool) {
				v, ok := versions[ch.Package+"/"+n]
				return v, ok
			}
			for _, keep := range cutsOf(ch.Entries, version, rnd) {
				cuts++
				got := subsetEntries(ch.Entries, func(n string) bool { return keep[n] }, version)
				var names []string
				for _, e := range got {
					names = append(names, e.Name)
				}
				want := sortedKeys(keep)
				names = append([]string{}, names...)
				slices.Sort(names)
				where := fmt.Sprintf("%s %s/%s keeping %v", filepath.Base(root), ch.Package, ch.Name, want)
				require.Equal(t, want, names, where)
				if len(got) > 0 {
					require.Empty(t, opmChannelProblem(got), "%s\n  from %s\n  got  %s", where, formatEntries(ch.Entries), formatEntries(got))
				}
			}
		}
	}
	t.Logf("%d channels, %d cuts, all valid", channels, cuts)
	assert.Greater(t, channels, 100)
}

// cutsOf returns subsets of a channel's entries: each single entry, each
// version prefix and suffix, and random subsets.
func cutsOf(entries []declcfg.ChannelEntry, version versionOf, rnd *rand.Rand) []map[string]bool {
	var out []map[string]bool
	byVersion := make([]string, 0, len(entries))
	for _, e := range entries {
		byVersion = append(byVersion, e.Name)
	}
	slices.SortFunc(byVersion, func(a, b string) int {
		va, _ := version(a)
		vb, _ := version(b)
		if c := va.Compare(vb); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	set := func(names []string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	for i := range byVersion {
		out = append(out, set(byVersion[i:i+1]), set(byVersion[:i+1]), set(byVersion[i:]))
	}
	for range 2 * len(entries) {
		var pick []string
		p := rnd.Float64()
		for _, n := range byVersion {
			if rnd.Float64() < p {
				pick = append(pick, n)
			}
		}
		out = append(out, set(pick))
	}
	return out
}
