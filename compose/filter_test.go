package compose

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
)

// filterCatalog builds a catalog from "pkg/channel: entries" lines (entries
// in parseEntries' notation, names being versions) and extra bundle
// properties by "pkg/version".
func filterCatalog(t *testing.T, defaults map[string]string, channels []string, props map[string][]declcfg.Property) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg := &declcfg.DeclarativeConfig{}
	seen := map[string]bool{}
	for _, line := range channels {
		head, spec, ok := strings.Cut(line, ":")
		require.True(t, ok, line)
		pkg, ch, _ := strings.Cut(head, "/")
		if !seen[pkg] {
			seen[pkg] = true
			cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: pkg, DefaultChannel: defaults[pkg]})
		}
		entries := parseEntries(t, spec)
		cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: declcfg.SchemaChannel, Package: pkg, Name: ch, Entries: entries})
		for _, e := range entries {
			if seen[pkg+"/"+e.Name] {
				continue
			}
			seen[pkg+"/"+e.Name] = true
			b := declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: pkg, Name: e.Name, Image: "example.com/" + pkg + ":" + e.Name,
				Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageProperty{PackageName: pkg, Version: e.Name})}}
			b.Properties = append(b.Properties, props[pkg+"/"+e.Name]...)
			cfg.Bundles = append(cfg.Bundles, b)
		}
	}
	return cfg
}

func bundleNames(cfg *declcfg.DeclarativeConfig) string {
	var out []string
	for _, b := range cfg.Bundles {
		out = append(out, b.Package+"/"+b.Name)
	}
	return strings.Join(out, " ")
}

func TestFilterDefaultChannel(t *testing.T) {
	cfg := filterCatalog(t, map[string]string{"p": "stable"}, []string{
		"p/stable: 1.0.0 1.1.0>1.0.0",
		"p/fast: 1.1.0 2.0.0>1.1.0",
		"p/alpha: 3.0.0-rc.1",
	}, nil)
	// The kept channel whose head has the highest version becomes the default.
	out, notes, err := Filter(cfg, Selection{VersionRange: ">=1.1.0"})
	require.NoError(t, err)
	assert.Equal(t, "stable", out.Packages[0].DefaultChannel, "stable still has 1.1.0")
	assert.Empty(t, notes)

	out, notes, err = Filter(cfg, Selection{VersionRange: ">=2.0.0-0"})
	require.NoError(t, err)
	assert.Equal(t, "alpha", out.Packages[0].DefaultChannel)
	require.Len(t, notes, 1)
	assert.Equal(t, `package "p": default channel "stable" is not kept; "alpha" is the new default channel`, notes[0].String())

	// The first --channel named wins over versions.
	out, _, err = Filter(cfg, Selection{Channels: []string{"fast", "alpha"}})
	require.NoError(t, err)
	assert.Equal(t, "fast", out.Packages[0].DefaultChannel)
	assert.Equal(t, "p/1.1.0 p/2.0.0 p/3.0.0-rc.1", bundleNames(out))
	// The original is untouched.
	assert.Equal(t, "stable", cfg.Packages[0].DefaultChannel)
}

func TestFilterDropsEmptyPackagesWithANote(t *testing.T) {
	cfg := filterCatalog(t, map[string]string{"a": "stable", "b": "beta"}, []string{
		"a/stable: 1.0.0",
		"b/beta: 1.0.0",
	}, nil)
	out, notes, err := Filter(cfg, Selection{Channels: []string{"stable"}})
	require.NoError(t, err)
	assert.Equal(t, "a/1.0.0", bundleNames(out))
	require.Len(t, notes, 1)
	assert.Equal(t, "1 package has no bundle in the selection and is left out: b", notes[0].String())

	_, _, err = Filter(cfg, Selection{Packages: []string{"b"}, Channels: []string{"stable"}})
	assert.EqualError(t, err, `channel "stable" is in none of the selected packages; they have beta`)

	// A selection that empties every package is a mistake, not an empty
	// catalog.
	_, _, err = Filter(cfg, Selection{VersionRange: ">=2.0.0"})
	var se *SelectionError
	require.ErrorAs(t, err, &se)
	assert.EqualError(t, err, `no package has a bundle in the selection (versions ">=2.0.0"); the sources have a, b`)
}

func TestFilterDependencies(t *testing.T) {
	gvk := declcfg.GVK{Group: "db.example.com", Version: "v1", Kind: "DB"}
	cfg := filterCatalog(t, map[string]string{"app": "stable", "db": "stable", "cache": "stable", "tools": "stable"}, []string{
		"app/stable: 1.0.0 2.0.0>1.0.0",
		"db/stable: 1.0.0 2.0.0>1.0.0",
		"cache/stable: 0.1.0 0.2.0>0.1.0",
		"tools/stable: 5.0.0",
	}, map[string][]declcfg.Property{
		"app/2.0.0": {declcfg.MustProperty(declcfg.PropertyConstraint, declcfg.Constraint{All: &declcfg.CompoundConstraint{Constraints: []declcfg.Constraint{
			{GVK: &gvk},
			{Package: &declcfg.PackageRequired{PackageName: "cache", VersionRange: "<0.2.0"}},
		}}})},
		"app/1.0.0": {declcfg.MustProperty(declcfg.PropertyConstraint, declcfg.Constraint{Cel: &declcfg.CelConstraint{Rule: "true"}})},
		"db/1.0.0":  {declcfg.MustProperty(declcfg.PropertyGVK, gvk)},
		"db/2.0.0": {declcfg.MustProperty(declcfg.PropertyGVK, gvk),
			declcfg.MustProperty(declcfg.PropertyPackageRequired, declcfg.PackageRequired{PackageName: "tools", VersionRange: ">=5.0.0"})},
		"cache/0.1.0": {declcfg.MustProperty(declcfg.PropertyPackageRequired, declcfg.PackageRequired{PackageName: "nowhere", VersionRange: "1.x"})},
	})
	out, notes, err := Filter(cfg, Selection{Packages: []string{"app"}, HeadsOnly: true, WithDependencies: true})
	require.NoError(t, err)
	// app 2.0.0 needs the DB API (db's head among its providers: 2.0.0,
	// which needs tools) and cache <0.2.0.
	assert.Equal(t, "app/2.0.0 db/2.0.0 cache/0.1.0 tools/5.0.0", bundleNames(out))
	var msgs []string
	for _, n := range notes {
		msgs = append(msgs, n.String())
	}
	assert.Equal(t, []string{`package "cache": bundle "0.1.0" requires package "nowhere" (1.x), which no bundle in the sources provides`}, msgs)

	// Already satisfied requirements add nothing.
	out, _, err = Filter(cfg, Selection{Packages: []string{"app", "db", "cache", "tools"}, WithDependencies: true})
	require.NoError(t, err)
	assert.Len(t, out.Bundles, len(cfg.Bundles))

	// Constraints that cannot be followed are noted.
	_, notes, err = Filter(cfg, Selection{Packages: []string{"app"}, VersionRange: "<2.0.0", WithDependencies: true})
	require.NoError(t, err)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0].String(), `bundle "1.0.0" has an olm.constraint (any, not or cel)`)
}

func TestFilterZeroSelectionIsIdentity(t *testing.T) {
	cfg := filterCatalog(t, map[string]string{"a": "s"}, []string{"a/s: 1.0.0 2.0.0"}, nil)
	out, notes, err := Filter(cfg, Selection{})
	require.NoError(t, err)
	assert.Same(t, cfg, out)
	assert.Empty(t, notes)
	// A channel kept whole is copied as it was, even when opm would reject it
	// (two heads): fixing it is not Filter's job.
	out, _, err = Filter(cfg, Selection{Packages: []string{"a"}})
	require.NoError(t, err)
	assert.Equal(t, cfg.Channels[0].Entries, out.Channels[0].Entries)
}

func TestAddDependencies(t *testing.T) {
	gvk := declcfg.GVK{Group: "db.example.com", Version: "v1", Kind: "DB"}
	cfg := filterCatalog(t, map[string]string{"app": "stable", "db": "stable"}, []string{
		"app/stable: 1.0.0 2.0.0>1.0.0",
		"app/fast: 2.0.0 3.0.0>2.0.0",
		"db/stable: 1.0.0 2.0.0>1.0.0",
		"db/beta: 3.0.0-rc.1",
	}, map[string][]declcfg.Property{
		"app/2.0.0": {declcfg.MustProperty(declcfg.PropertyGVKRequired, gvk),
			declcfg.MustProperty(declcfg.PropertyPackageRequired, declcfg.PackageRequired{PackageName: "app", VersionRange: "<2.0.0"})},
		"db/1.0.0":      {declcfg.MustProperty(declcfg.PropertyGVK, gvk)},
		"db/2.0.0":      {declcfg.MustProperty(declcfg.PropertyGVK, gvk)},
		"db/3.0.0-rc.1": {declcfg.MustProperty(declcfg.PropertyGVK, gvk)},
	})
	// A cut made elsewhere: app's stable head only, with a default channel
	// of its own choosing.
	cut := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "app", DefaultChannel: "fast"}},
		Channels: []declcfg.Channel{{Schema: declcfg.SchemaChannel, Package: "app", Name: "fast", Entries: []declcfg.ChannelEntry{{Name: "2.0.0"}}}},
	}
	for _, b := range cfg.Bundles {
		if b.Package == "app" && b.Name == "2.0.0" {
			cut.Bundles = append(cut.Bundles, b)
		}
	}
	out, notes := AddDependencies(cfg, cut, true)
	assert.Empty(t, notes)
	// The DB API from db's stable head (and beta's), and app <2.0.0 from
	// app's stable; app's own channel fast and default stay as cut.
	assert.ElementsMatch(t, []string{"app/2.0.0", "app/1.0.0", "db/2.0.0", "db/3.0.0-rc.1"}, strings.Fields(bundleNames(out)))
	var chans []string
	for _, ch := range out.Channels {
		var names []string
		for _, e := range ch.Entries {
			names = append(names, e.Name)
		}
		chans = append(chans, ch.Package+"/"+ch.Name+": "+strings.Join(names, " "))
	}
	assert.ElementsMatch(t, []string{"app/fast: 2.0.0", "app/stable: 1.0.0", "db/stable: 2.0.0", "db/beta: 3.0.0-rc.1"}, chans)
	require.Len(t, out.Packages, 2)
	assert.Equal(t, "fast", out.Packages[0].DefaultChannel)
	assert.Equal(t, "stable", out.Packages[1].DefaultChannel)

	// Nothing to add: cut comes back as it is.
	same, _ := AddDependencies(cfg, out, true)
	assert.Equal(t, bundleNames(out), bundleNames(same))
}
