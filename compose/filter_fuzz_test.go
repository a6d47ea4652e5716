package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// FuzzFilter selects from arbitrary catalogs with arbitrary selections:
// Filter may refuse a selection (a SelectionError) but must not panic, loop
// or return anything else. What it keeps of a valid catalog stays valid:
// that is checked on the real corpus (validate's tests and compose's).
func FuzzFilter(f *testing.F) {
	acme, err := os.ReadFile(filepath.Join("..", "testdata", "compose", "acme", "catalog.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []struct {
		src     string
		rng     string
		pkg, ch string
		flags   uint8
	}{
		{string(acme), "", "", "", 1},
		{string(acme), "<1.2.0", "acme-operator", "", 0},
		{string(acme), "<1.1.1", "acme-operator", "stable", 0},
		{string(acme), ">=1.0.0 <2.0.0 || 3.x", "", "", 2 | 4},
		{string(acme), "", "acme-operator", "fast", 8},
		{"schema: olm.channel\npackage: p\nname: c\nentries: [{name: a, replaces: b}, {name: b, replaces: a}]\n", "", "", "", 1},
		{"schema: olm.channel\npackage: p\nname: c\nentries: [{name: a, skips: [a]}, {name: a}]\n", ">0.0.0", "", "", 4},
	} {
		f.Add(seed.src, seed.rng, seed.pkg, seed.ch, seed.flags)
	}
	f.Fuzz(func(t *testing.T, src, rng, pkg, ch string, flags uint8) {
		if len(src) > 1<<14 {
			return
		}
		cfg, err := declcfg.LoadBytes("c.yaml", []byte(src))
		if err != nil {
			return
		}
		sel := Selection{VersionRange: rng, HeadsOnly: flags&1 != 0, WithDependencies: flags&2 != 0}
		if !sel.HeadsOnly && flags&4 != 0 {
			sel.Latest = int(flags>>4) + 1
		}
		if pkg != "" {
			sel.Packages = []string{pkg}
		}
		if ch != "" {
			sel.Channels = []string{ch}
		}
		out, _, err := Filter(cfg, sel)
		if err != nil {
			if _, ok := err.(*SelectionError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if out == nil {
			t.Fatal("no catalog and no error")
		}
	})
}

// FuzzFilterGraph builds one channel from bytes (each entry picks a version,
// a replaces target and skips among the entries, so cycles, self-edges and
// dangling names all occur) and cuts it by version, heads and latest: the
// re-drawing of channels must terminate without panicking, and a channel
// that passes opm's checks (opmChannelProblem) must still pass them.
func FuzzFilterGraph(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 1, 2, 0, 2, 0, 1}, uint8(1), uint8(0))
	f.Add([]byte{5, 9, 9, 9, 0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 1, 0}, uint8(2), uint8(3))
	f.Add([]byte{2, 0, 1, 1, 0}, uint8(0), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, cut, mode uint8) {
		if len(data) == 0 || len(data) > 256 {
			return
		}
		n := int(data[0]%12) + 1
		data = data[1:]
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		name := func(i int) string { return fmt.Sprintf("p.v%d", i) }
		cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "p", DefaultChannel: "c"}}}
		ch := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: "p", Name: "c"}
		for i := range n {
			e := declcfg.ChannelEntry{Name: name(i)}
			if r := next(); r%3 != 0 {
				e.Replaces = name(r % (n + 1)) // n+1: sometimes a name not in the channel
			}
			for range next() % 3 {
				e.Skips = append(e.Skips, name(next()%(n+1)))
			}
			if next()%4 == 0 {
				e.SkipRange = fmt.Sprintf("<%d.0.0", next()%(n+1))
			}
			ch.Entries = append(ch.Entries, e)
			v := fmt.Sprintf("%d.0.0", next()%(n+2)) // repeated versions too
			cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: "p", Name: name(i),
				Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageProperty{PackageName: "p", Version: v})}})
		}
		cfg.Channels = []declcfg.Channel{ch}
		sel := Selection{VersionRange: fmt.Sprintf(">=%d.0.0", cut%uint8(n+1))}
		switch mode % 4 {
		case 1:
			sel.HeadsOnly = true
		case 2:
			sel.Latest = int(mode/4)%3 + 1
		case 3:
			sel.VersionRange = fmt.Sprintf("<%d.0.0 || >%d.0.0", cut%uint8(n+1), (cut/16)%uint8(n+1))
		}
		out, _, err := Filter(cfg, sel)
		if err != nil {
			if _, ok := err.(*SelectionError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		// A channel opm accepts stays acceptable, whatever is cut.
		if opmChannelProblem(ch.Entries) != "" {
			return
		}
		for _, c := range out.Channels {
			if p := opmChannelProblem(c.Entries); p != "" {
				t.Fatalf("valid channel %v cut by %+v into %v: %s", ch.Entries, sel, c.Entries, p)
			}
		}
	})
}
