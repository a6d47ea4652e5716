package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// entries reads a compact channel: "b<a" is b replacing a, "c<b!a" is c
// replacing b and skipping a, "d!a!b" skips a and b.
func entries(spec string) []declcfg.ChannelEntry {
	var out []declcfg.ChannelEntry
	for _, f := range strings.Fields(spec) {
		var e declcfg.ChannelEntry
		parts := strings.Split(f, "!")
		name, replaces, _ := strings.Cut(parts[0], "<")
		e.Name, e.Replaces = name, replaces
		e.Skips = parts[1:]
		out = append(out, e)
	}
	return out
}

func TestShape(t *testing.T) {
	for _, tc := range []struct {
		name, spec                    string
		heads, chain, stranded, cycle string
	}{
		{"linear", "a b<a c<b", "c", "c b a", "", ""},
		{"entry order does not matter", "c<b a b<a", "c", "c b a", "", ""},
		{"skip ends the chain", "a b<a c<b!b", "c", "c", "a", ""},
		{"skipped entries are not stranded", "a b<a!x c<b", "c", "c b a", "", ""},
		{"replaces a name outside the channel", "b<a c<b", "c", "c b", "", ""},
		{"two heads", "a b", "a b", "", "", ""},
		{"no head", "a<b b<a", "", "", "", ""},
		{"cycle below the head", "a<b b<a c<a", "c", "c a b", "", "a b a"},
		{"self replacement below the head", "a<a b<a", "b", "b a", "", "a a"},
		{"replaced only by a skipped entry: stranded", "a b<a x<y y c<b!x", "c", "c b a", "y", ""},
		{"duplicates count once, the first wins", "a b<a b c<b", "c", "c b a", "", ""},
		{"a self-skip ends the chain at the entry", "a b<a!b c<b", "c", "c", "a", ""},
		{"entries without a name are not entries", "a b<a <b", "b", "b a", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ShapeOf(entries(tc.spec))
			check := func(what string, got []string, want string) {
				t.Helper()
				if strings.Join(got, " ") != want {
					t.Errorf("%s = %q, want %q", what, strings.Join(got, " "), want)
				}
			}
			check("heads", s.Heads(), tc.heads)
			check("chain", s.Chain(), tc.chain)
			check("stranded", s.Stranded(), tc.stranded)
			check("cycle", s.Cycle(), tc.cycle)
			head, ok := s.Head()
			if ok != (len(strings.Fields(tc.heads)) == 1) || (ok && head != tc.heads) {
				t.Errorf("Head() = %q, %v", head, ok)
			}
			for _, n := range strings.Fields(tc.chain) {
				if !s.OnChain(n) {
					t.Errorf("OnChain(%s) = false", n)
				}
			}
		})
	}
}

func TestChannelOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		want string // names in order, or the error
	}{
		{"linear", "a b<a c<b", "c b a"},
		{"entry order does not matter", "c<b a b<a", "c b a"},
		{"skipped entries are dropped", "a b<a c<a!b", "c a"},
		{"replaces and skips the same entry", "a b<a!a c<b!b", "c"},
		{"replaces a name outside the channel", "b<a c<b", "c b"},
		{"skipRange only: several heads", "a b",
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": a, b`},
		{"two chains", "a b<a x y<x",
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": b...a, y...x`},
		{"no head", "a<b b<a", `no channel heads (entries not replaced by another entry) found in channel "c" of package "p"`},
		{"cycle below the head", "a<b b<a c<a", `a cycle exists in the chain of replacement beginning with "c" in channel "c" of package "p"`},
		{"self replacement", "a<a b<a", `a cycle exists in the chain of replacement beginning with "b" in channel "c" of package "p"`},
		{"the order follows replaces through skipped entries", "a b<a c<b d<c!b", "d c a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "c", Entries: entries(tc.spec)}}})
			order, err := cat.Package("p").Channel("c").Order()
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

// TestChannelMatchesShape checks that a channel's head, chain and stranded
// entries are its shape's.
func TestChannelMatchesShape(t *testing.T) {
	spec := "a b<a c<b x<a d<c!x"
	cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "c", Entries: entries(spec)}}})
	ch := cat.Package("p").Channel("c")
	s := ShapeOf(entries(spec))
	names := func(es []*Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	if h := ch.Head(); h == nil || h.Name != "d" {
		t.Fatalf("head %v", h)
	}
	if got := names(ch.ReplacesChain()); !slices.Equal(got, s.Chain()) || strings.Join(got, " ") != "d c b a" {
		t.Errorf("chain %v, shape says %v", got, s.Chain())
	}
	if got := names(ch.Heads()); !slices.Equal(got, s.Heads()) {
		t.Errorf("heads %v, shape says %v", got, s.Heads())
	}
	if ch.Stranded() != nil || s.Stranded() != nil {
		t.Errorf("stranded %v %v", names(ch.Stranded()), s.Stranded())
	}
}
