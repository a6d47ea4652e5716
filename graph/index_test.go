package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// bruteCover is the definition the edge index must agree with: every
// entry, in order, whose replaces, skips or skipRange covers the bundle.
func bruteCover(entries []*Entry, name string, v blang.Version) []int {
	var out []int
	for i, e := range entries {
		if e.Replaces == name || slices.Contains(e.Skips, name) || (e.skipRange != nil && e.skipRange(v)) {
			out = append(out, i)
		}
	}
	return out
}

// TestEdgeIndexMatchesScan compares the index with a plain scan over
// random channels whose skipRanges mix every form blang accepts.
func TestEdgeIndexMatchesScan(t *testing.T) {
	ranges := []string{">=1.0.0 <2.0.0", "<1.2.0", ">1.1.0", "1.x", ">=1.2.x", "<=1.3.x", "!=1.2.x", "1.2.3", "==1.1.0",
		">=0.9.0 <1.1.0 || >=1.4.0 <1.5.0", "< 1.3.0 !1.0.0", "! 1.2.0", "1.0.0 - 2.0.0", ">=1.1.0-rc.1 <1.1.0",
		"<2.0.0-alpha", ">=1.0.0+build <=1.0.0", "<1.0.0||>=2.0.0", ">=1.0.0, <2.0.0", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	version := func() string {
		v := fmt.Sprintf("%d.%d.%d", rng.IntN(3), rng.IntN(6), rng.IntN(4))
		switch rng.IntN(6) {
		case 0:
			v += "-rc.1"
		case 1:
			v += "+2"
		}
		return v
	}
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(40)
		ch := declcfg.Channel{Schema: "olm.channel", Package: "p", Name: "c"}
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p.v%d", i)
		}
		for i := 0; i < n; i++ {
			e := declcfg.ChannelEntry{Name: names[i]}
			if rng.IntN(2) == 0 {
				e.Replaces = names[rng.IntN(n)]
			}
			for range rng.IntN(3) {
				e.Skips = append(e.Skips, names[rng.IntN(n)])
			}
			if rng.IntN(2) == 0 {
				e.SkipRange = ranges[rng.IntN(len(ranges))]
			}
			ch.Entries = append(ch.Entries, e)
		}
		cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{ch}})
		entries := cat.Package("p").Channel("c").Entries
		ix := newEdgeIndex(entries)
		for q := 0; q < 20; q++ {
			name := names[rng.IntN(n)]
			v := blang.MustParse(version())
			var got []int
			for _, c := range ix.cover(name, v, true) {
				got = append(got, c.pos)
				for _, e := range c.edges {
					if e.Kind == EdgeSkipRange && !entries[c.pos].skipRange(v) {
						t.Fatalf("skipRange edge %q does not contain %s", e.SkipRange, v)
					}
				}
			}
			if want := bruteCover(entries, name, v); !slices.Equal(got, want) {
				var desc []string
				for _, e := range entries {
					desc = append(desc, fmt.Sprintf("%s{r=%s s=%v sr=%q}", e.Name, e.Replaces, e.Skips, e.SkipRange))
				}
				t.Fatalf("cover(%s, %s) = %v, scan says %v\n%s", name, v, got, want, strings.Join(desc, "\n"))
			}
		}
	}
}

func TestChannelOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []declcfg.ChannelEntry
		want    string // names in order, or the error
	}{
		{"linear", []declcfg.ChannelEntry{{Name: "a"}, {Name: "b", Replaces: "a"}, {Name: "c", Replaces: "b"}}, "c b a"},
		{"entry order does not matter", []declcfg.ChannelEntry{{Name: "c", Replaces: "b"}, {Name: "a"}, {Name: "b", Replaces: "a"}}, "c b a"},
		{"skipped entries are dropped", []declcfg.ChannelEntry{{Name: "a"}, {Name: "b", Replaces: "a"}, {Name: "c", Replaces: "a", Skips: []string{"b"}}}, "c a"},
		{"replaces and skips the same entry", []declcfg.ChannelEntry{{Name: "a"}, {Name: "b", Replaces: "a", Skips: []string{"a"}}, {Name: "c", Replaces: "b", Skips: []string{"b"}}}, "c"},
		{"replaces a name outside the channel", []declcfg.ChannelEntry{{Name: "b", Replaces: "a"}, {Name: "c", Replaces: "b"}}, "c b"},
		{"skipRange only: several heads", []declcfg.ChannelEntry{{Name: "a"}, {Name: "b", SkipRange: "<2.0.0"}},
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": a, b`},
		{"two chains", []declcfg.ChannelEntry{{Name: "a"}, {Name: "b", Replaces: "a"}, {Name: "x"}, {Name: "y", Replaces: "x"}},
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": b...a, y...x`},
		{"no head", []declcfg.ChannelEntry{{Name: "a", Replaces: "b"}, {Name: "b", Replaces: "a"}},
			`no channel heads (entries not replaced by another entry) found in channel "c" of package "p"`},
		{"cycle below the head", []declcfg.ChannelEntry{{Name: "a", Replaces: "b"}, {Name: "b", Replaces: "a"}, {Name: "c", Replaces: "a"}},
			`a cycle exists in the chain of replacement beginning with "c" in channel "c" of package "p"`},
		{"self replacement", []declcfg.ChannelEntry{{Name: "a", Replaces: "a"}, {Name: "b", Replaces: "a"}},
			`a cycle exists in the chain of replacement beginning with "b" in channel "c" of package "p"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "c", Entries: tc.entries}}})
			order, err := ChannelOrder(cat.Package("p").Channel("c"))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				var names []string
				for _, e := range order {
					names = append(names, e.Name)
				}
				got = strings.Join(names, " ")
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
