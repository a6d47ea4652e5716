package mirror

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
)

// catalog builds a catalog from a compact description, one line each:
//
//	package NAME DEFAULT
//	channel PKG NAME ENTRY...   where ENTRY is name[<replaces][~skip,skip]
//	bundle PKG NAME VERSION
//	deprecate PKG SCHEMA [NAME]
//
// Every entry named gets a bundle with version 0.0.0 unless a bundle line
// gives its version.
func catalog(t *testing.T, text string) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg := &declcfg.DeclarativeConfig{}
	versions := map[string]string{}
	var order []string // package/bundle in the order named
	pkgOf := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "package":
			cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: f[1], DefaultChannel: f[2]})
		case "channel":
			ch := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: f[1], Name: f[2]}
			for _, e := range f[3:] {
				var ce declcfg.ChannelEntry
				e, skips, _ := strings.Cut(e, "~")
				ce.Name, ce.Replaces, _ = strings.Cut(e, "<")
				if skips != "" {
					ce.Skips = strings.Split(skips, ",")
				}
				ch.Entries = append(ch.Entries, ce)
				if _, ok := pkgOf[ce.Name]; !ok {
					pkgOf[ce.Name] = f[1]
					order = append(order, ce.Name)
				}
			}
			cfg.Channels = append(cfg.Channels, ch)
		case "bundle":
			versions[f[2]] = f[3]
			if _, ok := pkgOf[f[2]]; !ok {
				pkgOf[f[2]] = f[1]
				order = append(order, f[2])
			}
		case "deprecate":
			d := declcfg.DeprecationEntry{Reference: declcfg.PackageScopedReference{Schema: f[2]}, Message: "deprecated"}
			if len(f) > 3 {
				d.Reference.Name = f[3]
			}
			found := false
			for i := range cfg.Deprecations {
				if cfg.Deprecations[i].Package == f[1] {
					cfg.Deprecations[i].Entries = append(cfg.Deprecations[i].Entries, d)
					found = true
				}
			}
			if !found {
				cfg.Deprecations = append(cfg.Deprecations, declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: f[1], Entries: []declcfg.DeprecationEntry{d}})
			}
		default:
			t.Fatalf("catalog line %q", line)
		}
	}
	for _, name := range order {
		v := versions[name]
		if v == "" {
			v = "0.0.0"
		}
		val, err := json.Marshal(declcfg.PackageProperty{PackageName: pkgOf[name], Version: v})
		require.NoError(t, err)
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: pkgOf[name], Name: name,
			Image: "quay.io/example/" + name, Properties: []declcfg.Property{{Type: declcfg.PropertyPackage, Value: val}}})
	}
	return cfg
}

// operator parses one operators[] entry written in YAML flow style.
func operator(t *testing.T, entry string) (Operator, error) {
	t.Helper()
	data := fmt.Sprintf("apiVersion: %s\nkind: %s\nmirror:\n  operators:\n  - %s\n", APIVersion, Kind, entry)
	cfg, err := ParseConfig("isc.yaml", []byte(data))
	if err != nil {
		return Operator{}, err
	}
	return cfg.Operators[0], nil
}

// channels lists a catalog's channels as "pkg/channel: entry entry ...",
// entries sorted as written.
func channels(cfg *declcfg.DeclarativeConfig) []string {
	var out []string
	for _, ch := range cfg.Channels {
		var names []string
		for _, e := range ch.Entries {
			names = append(names, e.Name)
		}
		out = append(out, ch.Package+"/"+ch.Name+": "+strings.Join(names, " "))
	}
	return out
}

func defaults(cfg *declcfg.DeclarativeConfig) map[string]string {
	out := map[string]string{}
	for _, p := range cfg.Packages {
		out[p.Name] = p.DefaultChannel
	}
	return out
}

func deprecations(cfg *declcfg.DeclarativeConfig) []string {
	var out []string
	for _, d := range cfg.Deprecations {
		for _, e := range d.Entries {
			out = append(out, d.Package+":"+e.Reference.Schema+"/"+e.Reference.Name)
		}
	}
	return out
}

func notes(c *Cut) string {
	var out []string
	for _, n := range c.Notes {
		out = append(out, n.String())
	}
	return strings.Join(out, "\n")
}

// A chain a1 <- a2 <- a3 <- a4 (1.0.0 ... 1.3.0) in stable, the default;
// a side channel fast with b1 <- b2 (2.0.0-alpha, 2.0.0).
const chainCatalog = `
package a stable
channel a stable a1 a2<a1 a3<a2 a4<a3
channel a fast b1 b2<b1
bundle a a1 1.0.0
bundle a a2 1.1.0
bundle a a3 1.2.0
bundle a a4 1.3.0
bundle a b1 2.0.0-alpha
bundle a b2 2.0.0
package other main
channel other main o1
`

func TestCutCases(t *testing.T) {
	type want struct {
		err          string
		channels     []string // of what oc-mirror writes
		fixed        []string // of what fbc writes, when it differs
		defaults     map[string]string
		fixedDefault map[string]string
		bundles      []string
		deprecations []string
		outOfRange   []string
		note         string
	}
	cases := []struct {
		name, catalog, entry string
		want                 want
	}{
		{
			name: "heads of every channel", catalog: chainCatalog, entry: "{catalog: c, packages: [{name: a}]}",
			want: want{channels: []string{"a/stable: a4", "a/fast: b2"}, bundles: []string{"a/a4", "a/b2"}, defaults: map[string]string{"a": "stable"}},
		},
		{
			name: "no packages: heads of the whole catalog", catalog: chainCatalog, entry: "{catalog: c}",
			want: want{channels: []string{"a/stable: a4", "a/fast: b2", "other/main: o1"}, bundles: []string{"a/a4", "a/b2", "other/o1"}},
		},
		{
			name: "full without packages: the whole catalog", catalog: chainCatalog, entry: "{catalog: c, full: true}",
			want: want{channels: []string{"a/stable: a1 a2 a3 a4", "a/fast: b1 b2", "other/main: o1"}, bundles: []string{"a/a1", "a/a2", "a/a3", "a/a4", "a/b1", "a/b2", "other/o1"}},
		},
		{
			name: "full keeps whole channels", catalog: chainCatalog, entry: "{catalog: c, full: true, packages: [{name: a, channels: [{name: stable}]}]}",
			want: want{channels: []string{"a/stable: a1 a2 a3 a4"}, bundles: []string{"a/a1", "a/a2", "a/a3", "a/a4"}},
		},
		{
			name: "full refuses ranges", catalog: chainCatalog, entry: "{catalog: c, full: true, packages: [{name: a, minVersion: 1.1.0}]}",
			want: want{err: `isc.yaml:5:63: failed to filter catalog: package "a" channel "stable": Full: true cannot be mixed with versionRange (">=1.1.0")`},
		},
		{
			name: "package and channel ranges together", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, minVersion: 1.0.0, channels: [{name: stable, maxVersion: 1.2.0}]}]}`,
			want: want{err: `isc.yaml:5:96: invalid configuration: catalog "c": operator "a": mixing both filtering by minVersion/maxVersion and filtering by channel minVersion/maxVersion is not allowed`},
		},
		{
			name: "minVersion equal to maxVersion picks one bundle", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable, minVersion: 1.1.0, maxVersion: 1.1.0}]}]}`,
			want: want{channels: []string{"a/stable: a2"}, bundles: []string{"a/a2"}},
		},
		{
			name: "a range keeps the chain from the highest in range to the lowest", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable, minVersion: 1.1.0, maxVersion: 1.2.0}]}]}`,
			want: want{channels: []string{"a/stable: a2 a3"}, bundles: []string{"a/a2", "a/a3"}},
		},
		{
			name: "a prerelease does not match a range without one", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable}, {name: fast, minVersion: 1.0.0}]}]}`,
			want: want{channels: []string{"a/stable: a4", "a/fast: b2"}, bundles: []string{"a/a4", "a/b2"}},
		},
		{
			name: "a prerelease matches a range with one", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable}, {name: fast, minVersion: 2.0.0-0}]}]}`,
			want: want{channels: []string{"a/stable: a4", "a/fast: b1 b2"}, bundles: []string{"a/a4", "a/b1", "a/b2"}},
		},
		{
			name: "a prerelease on the chain is kept outside the range", catalog: `
package p stable
channel p stable p1 p2<p1 p3<p2
bundle p p1 1.0.0
bundle p p2 1.1.0-rc.1
bundle p p3 1.1.0`, entry: `{catalog: c, packages: [{name: p, minVersion: 1.0.0}]}`,
			want: want{channels: []string{"p/stable: p1 p2 p3"}, bundles: []string{"p/p1", "p/p2", "p/p3"}, outOfRange: []string{"p/stable/p2@1.1.0-rc.1"},
				note: `including bundle "p2" with version "1.1.0-rc.1": it falls outside the specified range of ">=1.0.0"`},
		},
		{
			name: "skips in range are kept, the chain node that skips them too", catalog: `
package p stable
channel p stable p1 p2<p1 p3<p1~p2 p4<p3
bundle p p1 1.0.0
bundle p p2 1.1.0
bundle p p3 1.2.0
bundle p p4 1.3.0`, entry: `{catalog: c, packages: [{name: p, maxVersion: 1.1.0, minVersion: 1.1.0}]}`,
			want: want{channels: []string{"p/stable: p2 p3"}, bundles: []string{"p/p2", "p/p3"}, outOfRange: []string{"p/stable/p3@1.2.0"}},
		},
		{
			name: "a channel the catalog lacks is ignored, with a note", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable}, {name: stabel}]}]}`,
			want: want{channels: []string{"a/stable: a4"}, bundles: []string{"a/a4"}, note: `channel "stabel" (isc.yaml:5:73) is not in the catalog (did you mean "stable"?); oc-mirror ignores it`},
		},
		{
			name: "the default channel dropped", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: fast}]}]}`,
			want: want{err: `isc.yaml:5:36: failed to filter catalog: invalid default channel configuration for package "a": the default channel "stable" was filtered out, a new default channel must be configured for this package (defaultChannel: one of fast)`},
		},
		{
			name: "the default channel dropped, another named default", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, defaultChannel: fast, channels: [{name: fast}]}]}`,
			want: want{channels: []string{"a/fast: b2"}, bundles: []string{"a/b2"}, defaults: map[string]string{"a": "fast"}},
		},
		{
			name: "a default channel override that is not kept", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, defaultChannel: fats, channels: [{name: fast}]}]}`,
			want: want{err: `isc.yaml:5:55: failed to filter catalog: invalid default channel configuration for package "a": specified default channel override "fats" does not exist in the filtered output (did you mean "fast"?)`},
		},
		{
			name: "the default channel emptied by a range", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable, minVersion: 9.0.0}, {name: fast}]}]}`,
			want: want{err: `isc.yaml:5:77: failed to filter catalog: package "a" channel "stable" has version range ">=9.0.0" that results in an empty channel`},
		},
		{
			// catalog-filter compares with the catalog's own default: an
			// override does not save it.
			name: "the default channel emptied by a range, another named default", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, defaultChannel: fast, channels: [{name: stable, maxVersion: 0.1.0}, {name: fast}]}]}`,
			want: want{err: `package "a" channel "stable" has version range " <=0.1.0" that results in an empty channel`},
		},
		{
			name: "another channel emptied by a range is dropped", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable}, {name: fast, maxVersion: 0.1.0}]}]}`,
			want: want{channels: []string{"a/stable: a4"}, bundles: []string{"a/a4"}},
		},
		{
			// oc-mirror writes default channel fast, which it dropped.
			name: "the named default channel emptied by a range", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: a, defaultChannel: fast, channels: [{name: stable}, {name: fast, maxVersion: 0.1.0}]}]}`,
			want: want{channels: []string{"a/stable: a4"}, bundles: []string{"a/a4"}, defaults: map[string]string{"a": "fast"}, fixedDefault: map[string]string{"a": "stable"},
				note: `oc-mirror writes default channel "fast", which its catalog does not have (opm refuses it); fbc makes "stable" the default channel`},
		},
		{
			name: "deprecations of what is dropped go", catalog: chainCatalog + `
deprecate a olm.package
deprecate a olm.channel fast
deprecate a olm.channel stable
deprecate a olm.bundle a1
deprecate a olm.bundle a4`, entry: `{catalog: c, packages: [{name: a, channels: [{name: stable}]}]}`,
			want: want{channels: []string{"a/stable: a4"}, bundles: []string{"a/a4"}, deprecations: []string{"a:olm.package/", "a:olm.channel/stable", "a:olm.bundle/a4"}},
		},
		{
			// The range reaches x2 through stable's graph, where x2 is only
			// a name (it is an entry of beta): oc-mirror keeps the bundle
			// and an empty stable.
			name: "an empty channel and a bundle in no channel", catalog: `
package x beta
channel x stable x3<x2
channel x beta x1 x2<x1
bundle x x1 1.0.0
bundle x x2 1.1.0
bundle x x3 1.2.0`, entry: `{catalog: c, packages: [{name: x, defaultChannel: beta, channels: [{name: beta}, {name: stable, minVersion: 1.1.0, maxVersion: 1.1.0}]}]}`,
			want: want{channels: []string{"x/stable: ", "x/beta: x2"}, fixed: []string{"x/stable: x2", "x/beta: x2"}, bundles: []string{"x/x2"}, defaults: map[string]string{"x": "beta"},
				note: `channel "stable": oc-mirror writes it with no entries, which opm refuses, though its range keeps "x2"; fbc lists them in it`},
		},
		{
			name: "a bundle the range keeps in no channel", catalog: `
package x stable
channel x stable x3<x2 x4<x3
channel x beta x1 x2<x1
bundle x x1 1.0.0
bundle x x2 1.1.0
bundle x x3 1.2.0
bundle x x4 1.3.0`, entry: `{catalog: c, packages: [{name: x, channels: [{name: stable, maxVersion: 1.2.0}]}]}`,
			want: want{channels: []string{"x/stable: x3"}, fixed: []string{"x/stable: x3 x2"}, bundles: []string{"x/x2", "x/x3"},
				note: `channel "stable": oc-mirror keeps "x2", which the channel's upgrade graph reaches, in no channel`},
		},
		{
			// s4 is the head and skips s2; cut below s4, s1 is stranded
			// (only s2, which s3 skips, replaces it).
			name: "a stranded entry", catalog: `
package s stable
channel s stable s1 s2<s1 s3<s2~s2 s4<s3~s1
bundle s s1 1.0.0
bundle s s2 1.1.0
bundle s s3 1.2.0
bundle s s4 1.3.0`, entry: `{catalog: c, packages: [{name: s, maxVersion: 1.2.0}]}`,
			want: want{channels: []string{"s/stable: s1 s2 s3"}, bundles: []string{"s/s1", "s/s2", "s/s3"},
				note: `channel "stable": oc-mirror keeps entries that do not form a valid channel (stranded "s1"); fbc re-draws their edges`},
		},
		{
			name: "a package the catalog lacks", catalog: chainCatalog, entry: `{catalog: c, packages: [{name: othr}]}`,
			want: want{err: `isc.yaml:5:36: package "othr" is not in catalog "c" (did you mean "other"?)`},
		},
		{
			name: "a bundle version that is not strict semver", catalog: chainCatalog + "\nbundle other o1 v1.0", entry: `{catalog: c, packages: [{name: other}]}`,
			want: want{err: `failed to filter catalog: bundle "o1" in package "other": version "v1.0" is not strict semantic versioning`},
		},
		{
			name: "a channel with two heads", catalog: `
package h stable
channel h stable h1 h2`, entry: `{catalog: c, packages: [{name: h}]}`,
			want: want{err: `isc.yaml:5:36: failed to filter catalog: package "h" channel "stable" unable to filter head of channel: multiple channel heads found: [h1 h2]`},
		},
		{
			name: "a cycle", catalog: `
package h stable
channel h stable h0<h1 h1<h2~h0 h2<h1`, entry: `{catalog: c, packages: [{name: h, minVersion: 0.0.0}]}`,
			want: want{err: `package "h" channel "stable": no channel heads found`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op, err := operator(t, tc.entry)
			if err == nil {
				var cut *Cut
				cut, err = CutCatalog(catalog(t, tc.catalog), op, nil)
				if err == nil {
					require.Empty(t, tc.want.err, "want a refusal")
					checkCut(t, cut, tc.want.channels, tc.want.fixed, tc.want.bundles)
					if tc.want.defaults != nil {
						assert.Equal(t, tc.want.defaults, pick(defaults(cut.OCMirror), tc.want.defaults), "oc-mirror's default channels")
						fd := tc.want.fixedDefault
						if fd == nil {
							fd = tc.want.defaults
						}
						assert.Equal(t, fd, pick(defaults(cut.Config), fd), "fbc's default channels")
					}
					if tc.want.deprecations != nil {
						assert.ElementsMatch(t, tc.want.deprecations, deprecations(cut.Config))
					}
					var oor []string
					for _, o := range cut.OutOfRange {
						oor = append(oor, o.Package+"/"+o.Channel+"/"+o.Bundle+"@"+o.Version)
					}
					assert.ElementsMatch(t, tc.want.outOfRange, oor, "kept outside the range")
					assert.Contains(t, notes(cut), tc.want.note)
					checkValid(t, cut)
					return
				}
			}
			require.NotEmpty(t, tc.want.err, "refused: %v", err)
			assert.Contains(t, err.Error(), tc.want.err)
		})
	}
}

func pick(m, keys map[string]string) map[string]string {
	out := map[string]string{}
	for k := range keys {
		out[k] = m[k]
	}
	return out
}

func checkCut(t *testing.T, cut *Cut, oc, fixed, bundles []string) {
	t.Helper()
	assert.ElementsMatch(t, oc, channels(cut.OCMirror), "oc-mirror's channels")
	if fixed == nil {
		fixed = oc
	}
	assert.ElementsMatch(t, fixed, channels(cut.Config), "fbc's channels")
	assert.ElementsMatch(t, bundles, bundleNames(cut.OCMirror), "oc-mirror's bundles")
	assert.ElementsMatch(t, bundles, bundleNames(cut.Config), "fbc's bundles")
}
