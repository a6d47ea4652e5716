package graph

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// fuzzCatalog turns bytes into a small package with the shapes the
// resolvers must survive: several channels, edges to absent names, skips
// of the entry itself, cycles, duplicate entries, odd versions, skipRanges
// in every form blang accepts or rejects, deprecations of both kinds and
// entries without a bundle.
func fuzzCatalog(data []byte) *declcfg.DeclarativeConfig {
	i := 0
	next := func(n int) int {
		if n <= 0 {
			return 0
		}
		if i >= len(data) {
			return 0
		}
		b := int(data[i])
		i++
		return b % n
	}
	versions := []string{"1.0.0", "1.1.0", "1.2.0", "2.0.0", "1.1.0-rc.1", "1.0.0+2", "1.0.0+1", "0.0.1", "1.2.0", "v1.3", "", "3.0.0-0"}
	ranges := []string{">=1.0.0 <2.0.0", "<1.2.0", "1.x", "!=1.2.x", "1.0.0 - 2.0.0", "<1.0.0 || >=2.0.0", ">=1.0.0, <2.0.0", "< 1.1.0 !1.0.0", ">v1.0.0", "<3.0.0-0"}
	cfg := &declcfg.DeclarativeConfig{}
	chans := []string{"a", "b", "c"}
	cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: "olm.package", Name: "p", DefaultChannel: chans[next(4)%3]})
	nb := 1 + next(7)
	names := make([]string, nb+1)
	for k := range nb {
		names[k] = fmt.Sprintf("p.v%d", k)
	}
	names[nb] = "p.absent"
	for k := range nb {
		if next(8) == 0 {
			continue // an entry without a bundle
		}
		props := []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: versions[next(len(versions))]})}
		switch next(6) {
		case 0:
			props = append(props, declcfg.Property{Type: "olm.deprecated", Value: []byte("{}")})
		case 1:
			props = append(props, declcfg.Property{Type: "olm.package.required", Value: []byte(`{"packageName":"q","versionRange":">=1.0.0"}`)})
		}
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: names[k], Properties: props})
	}
	for c := range 1 + next(3) {
		ch := declcfg.Channel{Schema: "olm.channel", Package: "p", Name: chans[c]}
		for range next(nb + 2) {
			e := declcfg.ChannelEntry{Name: names[next(nb)]}
			if next(2) == 0 {
				e.Replaces = names[next(nb+1)]
			}
			for range next(3) {
				e.Skips = append(e.Skips, names[next(nb+1)])
			}
			if next(3) == 0 {
				e.SkipRange = ranges[next(len(ranges))]
			}
			ch.Entries = append(ch.Entries, e)
		}
		cfg.Channels = append(cfg.Channels, ch)
	}
	if next(2) == 0 {
		d := declcfg.Deprecation{Schema: "olm.deprecations", Package: "p"}
		for range 1 + next(2) {
			d.Entries = append(d.Entries, declcfg.DeprecationEntry{Reference: declcfg.PackageScopedReference{Schema: "olm.bundle", Name: names[next(nb)]}, Message: "bad"})
		}
		cfg.Deprecations = append(cfg.Deprecations, d)
	}
	return cfg
}

// FuzzResolve runs every command's library path over random packages:
// nothing may panic or loop, v1 only moves to a listed successor unless
// SelfCertified, a survey agrees with single paths, every output format
// writes, and a catalog compared with itself is safe.
func FuzzResolve(f *testing.F) {
	f.Add([]byte{3, 2, 1, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{0, 6, 9, 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9})
	f.Add(bytes.Repeat([]byte{1}, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := fuzzCatalog(data)
		cat := New(cfg, nil)
		p := cat.Package("p")
		var selections [][]string
		selections = append(selections, nil)
		for _, ch := range p.ChannelNames() {
			selections = append(selections, []string{ch})
		}
		selections = append(selections, p.ChannelNames())
		froms := []*Installed{nil, {Name: "p.absent", Version: "1.1.0"}, {Name: "p.virtual", Version: "0.5.0"}}
		for _, b := range p.Bundles {
			froms = append(froms, &Installed{Name: b.Name, Version: b.Version})
		}
		for _, sem := range []Semantics{Classic, V1} {
			for _, chans := range selections {
				if sem == Classic && len(chans) > 1 {
					continue
				}
				for _, pol := range []Policy{"", SelfCertified} {
					if sem == Classic && pol != "" {
						continue
					}
					opts := Options{Semantics: sem, Channels: chans, Policy: pol}
					r, err := NewResolver(p, opts)
					if err != nil {
						t.Fatalf("%+v: %v", opts, err)
					}
					for _, from := range froms {
						path := r.Path(from)
						if len(path.Steps) > len(p.Bundles)+2 {
							t.Fatalf("%+v from %v: %d steps for %d bundles", opts, from, len(path.Steps), len(p.Bundles))
						}
						if len(path.Steps) == 0 {
							continue
						}
						st := path.Steps[0]
						if sem == V1 && pol != SelfCertified && from != nil && st.Next != nil &&
							!slices.Contains(path.Successors(), st.Next.Name) && st.Next.Version != from.Version {
							t.Fatalf("%+v from %v: v1 moved to %s, not a successor of %v", opts, from, st.Next.Name, path.Successors())
						}
						if slices.Contains(path.Successors(), nameOf(from)) {
							t.Fatalf("%+v from %v: the installed bundle is listed among its successors", opts, from)
						}
						var buf bytes.Buffer
						if err := path.WriteText(&buf, opts); err != nil {
							t.Fatal(err)
						}
						if err := path.WriteJSON(&buf); err != nil {
							t.Fatal(err)
						}
					}
					if len(chans) > 1 {
						continue
					}
					s, err := SurveyUpgrades(cat, UpgradeQuery{Package: "p", Options: opts})
					if err != nil {
						t.Fatalf("survey %+v: %v", opts, err)
					}
					checkSurvey(t, cat, s)
					var buf bytes.Buffer
					if err := s.WriteText(&buf); err != nil {
						t.Fatal(err)
					}
					if err := s.WriteJSON(&buf); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		d, err := DiffWith(cat, New(cfg, nil), DiffOptions{Semantics: []Semantics{Classic, V1}})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Changes) > 0 || !d.Safe() {
			var buf bytes.Buffer
			_ = d.WriteText(&buf)
			t.Fatalf("a catalog compared with itself has changes or is unsafe:\n%s", buf.String())
		}
		for _, v0 := range []bool{true, false} {
			for _, min := range append([]string{""}, bundleNames(p)...) {
				pic, err := Draw(cat, PictureOptions{MinimumEdge: min, V0Semantics: v0})
				if err != nil && strings.HasPrefix(err.Error(), "nothing to draw") {
					continue
				}
				if err != nil {
					t.Fatalf("draw (minimum edge %q): %v", min, err)
				}
				var buf bytes.Buffer
				if err := pic.WriteMermaid(&buf); err != nil {
					t.Fatal(err)
				}
				if err := pic.WriteDOT(&buf); err != nil {
					t.Fatal(err)
				}
				if err := pic.WriteJSON(&buf, cat); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func nameOf(in *Installed) string {
	if in == nil {
		return ""
	}
	return in.Name
}

func bundleNames(p *Package) []string {
	var out []string
	for _, b := range p.Bundles {
		out = append(out, b.Name)
	}
	return out
}

// checkSurvey compares each survey row with a path simulated on its own.
func checkSurvey(t *testing.T, cat *Catalog, s *Survey) {
	t.Helper()
	for _, sel := range s.Selections {
		if sel.Err != nil {
			continue
		}
		opts := s.Options
		opts.Channels = sel.Channels
		r, err := NewResolver(cat.Package(s.Package), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range sel.Rows {
			path := r.Path(&Installed{Name: row.From.Name, Version: row.From.Version})
			if (path.Err != nil) != (row.Err != nil) {
				t.Fatalf("%+v %s: path error %v, survey error %v", opts, row.From.Name, path.Err, row.Err)
			}
			if path.Err != nil {
				continue
			}
			if path.Next() != nameOf(installedOf(row.Next)) {
				t.Fatalf("%+v %s: path moves to %q, survey to %v", opts, row.From.Name, path.Next(), row.Next)
			}
			moves := path.Bundles()
			end := row.From.Name
			if len(moves) > 0 {
				end = moves[len(moves)-1]
			}
			if row.End == nil || row.End.Name != end {
				t.Fatalf("%+v %s: path ends at %s, survey at %v", opts, row.From.Name, end, row.End)
			}
			if reaches := end == sel.Head.Name; reaches != (row.Hops >= 0) || (reaches && row.Hops != len(moves)) {
				t.Fatalf("%+v %s: path of %d moves ends at %s (head %s), survey says %d hops", opts, row.From.Name, len(moves), end, sel.Head.Name, row.Hops)
			}
		}
	}
}

func installedOf(b *Bundle) *Installed {
	if b == nil {
		return nil
	}
	return &Installed{Name: b.Name, Version: b.Version}
}
