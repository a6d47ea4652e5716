package render

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// deriveChannels derives an olm.package and olm.channel blobs for every
// package of the rendered bundles (--with-channels), the way the sqlite
// index did before FBC:
//
//   - a bundle is an entry of every channel its annotations list
//     (operators.operatorframework.io.bundle.channels.v1);
//   - an entry's replaces and skips are the CSV's spec.replaces and
//     spec.skips, its skipRange the CSV's olm.skipRange annotation;
//   - the default channel is the channel.default annotation of the bundle
//     with the highest version that has one; with no such annotation, a
//     package with a single channel uses it;
//   - the package's description and icon come from the CSV of the highest
//     version in the default channel (as opm's semver template does).
//
// Entries are listed by ascending version. Bundles that came from catalog
// sources are not touched; a package that a catalog source defines (one of
// defined, by name) is an error.
func deriveChannels(defined []declcfg.Package, bundles []*parsedBundle) (*declcfg.DeclarativeConfig, error) {
	cfg := &declcfg.DeclarativeConfig{}
	byPkg := map[string][]*parsedBundle{}
	var pkgs []string
	for _, b := range bundles {
		if _, ok := byPkg[b.Bundle.Package]; !ok {
			pkgs = append(pkgs, b.Bundle.Package)
		}
		byPkg[b.Bundle.Package] = append(byPkg[b.Bundle.Package], b)
	}
	slices.Sort(pkgs)
	var errs Errors
	for _, name := range pkgs {
		for _, p := range defined {
			if p.Name == name {
				errs = append(errs, &Error{Source: byPkg[name][0].Source, Invalid: true,
					Err: fmt.Errorf("deriving channels: package %q is also defined by a catalog source (%s); render its bundles without deriving channels, or drop the catalog", name, p.Pos)})
			}
		}
		if len(errs) > 0 {
			continue
		}
		pkg, chs, err := derivePackage(name, byPkg[name])
		if err != nil {
			errs = append(errs, err.(*Error))
			continue
		}
		cfg.Packages = append(cfg.Packages, *pkg)
		cfg.Channels = append(cfg.Channels, chs...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

type versioned struct {
	*parsedBundle
	version semver.Version
}

func derivePackage(name string, bundles []*parsedBundle) (*declcfg.Package, []declcfg.Channel, error) {
	invalid := func(b *parsedBundle, format string, args ...any) error {
		return &Error{Source: b.Source, Invalid: true, Err: fmt.Errorf("deriving channels: "+format, args...)}
	}
	var vs []versioned
	seen := map[string]*parsedBundle{}
	for _, b := range bundles {
		if other, ok := seen[b.Bundle.Name]; ok {
			return nil, nil, invalid(b, "bundle %s is rendered twice (also from %s)", b.Bundle.Name, other.Source)
		}
		seen[b.Bundle.Name] = b
		v, err := semver.Parse(b.CSV.Version)
		if err != nil {
			return nil, nil, invalid(b, "bundle %s: version %q is not semver: %v", b.Bundle.Name, b.CSV.Version, err)
		}
		if len(b.Channels) == 0 {
			return nil, nil, invalid(b, "bundle %s names no channel (annotation %s)", b.Bundle.Name, AnnotationChannels)
		}
		vs = append(vs, versioned{b, v})
	}
	slices.SortStableFunc(vs, func(a, b versioned) int {
		if c := a.version.Compare(b.version); c != 0 {
			return c
		}
		return strings.Compare(a.Bundle.Name, b.Bundle.Name)
	})

	channels := map[string]*declcfg.Channel{}
	var names []string
	for _, b := range vs {
		for _, ch := range b.Channels {
			c, ok := channels[ch]
			if !ok {
				c = &declcfg.Channel{Schema: declcfg.SchemaChannel, Name: ch, Package: name}
				channels[ch] = c
				names = append(names, ch)
			}
			c.Entries = append(c.Entries, declcfg.ChannelEntry{
				Name:      b.Bundle.Name,
				Replaces:  b.CSV.Replaces,
				Skips:     b.CSV.Skips,
				SkipRange: b.CSV.SkipRange(),
			})
		}
	}
	slices.Sort(names)

	var def string
	var from *parsedBundle
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].DefaultChannel != "" {
			def, from = vs[i].DefaultChannel, vs[i].parsedBundle
			break
		}
	}
	switch {
	case def == "" && len(names) == 1:
		def = names[0]
	case def == "":
		return nil, nil, invalid(vs[len(vs)-1].parsedBundle, "package %s: no bundle names a default channel (annotation %s) and there are %d channels (%s)",
			name, AnnotationDefaultChannel, len(names), strings.Join(names, ", "))
	case channels[def] == nil:
		return nil, nil, invalid(from, "package %s: the default channel %q (from bundle %s, the highest version that names one) is not a channel of any bundle (%s)",
			name, def, from.Bundle.Name, strings.Join(names, ", "))
	}

	pkg := &declcfg.Package{Schema: declcfg.SchemaPackage, Name: name, DefaultChannel: def}
	// The highest version in the default channel describes the package.
	for i := len(vs) - 1; i >= 0; i-- {
		if slices.Contains(vs[i].Channels, def) {
			pkg.Description = vs[i].CSV.Description
			if ic := vs[i].CSV.Icon; ic != nil {
				data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(ic.Data), ""))
				if err != nil {
					return nil, nil, invalid(vs[i].parsedBundle, "bundle %s: spec.icon[0].base64data is not base64: %v", vs[i].Bundle.Name, err)
				}
				pkg.Icon = &declcfg.Icon{Data: data, MediaType: ic.MediaType}
			}
			break
		}
	}
	out := make([]declcfg.Channel, 0, len(names))
	for _, n := range names {
		out = append(out, *channels[n])
	}
	return pkg, out, nil
}
