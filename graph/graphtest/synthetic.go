// Package graphtest makes catalogs for the upgrade-graph tests and
// benchmarks (graph's, and its page's). It is used by tests only.
package graphtest

import (
	"fmt"

	"github.com/fbc-project/fbc/declcfg"
)

// SyntheticChannel builds one package with one channel of n entries shaped
// like a long-lived real channel: each entry replaces the previous one; the
// fifth patch of every minor replaces the third and skips the bad fourth;
// the first entry of every minor also has a skipRange over the previous
// minor.
func SyntheticChannel(n int) *declcfg.DeclarativeConfig {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: "stable"}}}
	ch := declcfg.Channel{Schema: "olm.channel", Package: "p", Name: "stable"}
	version := func(i int) string { return fmt.Sprintf("1.%d.%d", i/10, i%10) }
	for i := 0; i < n; i++ {
		e := declcfg.ChannelEntry{Name: "p.v" + version(i)}
		switch {
		case i%10 == 5:
			e.Replaces, e.Skips = "p.v"+version(i-2), []string{"p.v" + version(i-1)}
		case i > 0:
			e.Replaces = "p.v" + version(i-1)
		}
		if i%10 == 0 && i > 0 {
			e.SkipRange = fmt.Sprintf(">=1.%d.0 <1.%d.0", i/10-1, i/10)
		}
		ch.Entries = append(ch.Entries, e)
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: e.Name,
			Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: version(i)})}})
	}
	cfg.Channels = append(cfg.Channels, ch)
	return cfg
}
