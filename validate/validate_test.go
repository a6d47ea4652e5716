package validate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate"
)

// entry is a channel entry in the compact form the tests write.
type entry struct {
	name, replaces, skipRange string
	skips                     []string
}

// catalog writes a one-package catalog: the package, one channel per
// element of channels, and a bundle (with a version taken from its name) for
// every entry name.
func catalog(pkg, defaultChannel string, channels map[string][]entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema: olm.package\nname: %s\ndefaultChannel: %s\n", pkg, defaultChannel)
	seen := map[string]bool{}
	var names []string
	chNames := make([]string, 0, len(channels))
	for ch := range channels {
		chNames = append(chNames, ch)
	}
	slices.Sort(chNames)
	for _, ch := range chNames {
		fmt.Fprintf(&b, "---\nschema: olm.channel\npackage: %s\nname: %s\nentries:\n", pkg, ch)
		for _, e := range channels[ch] {
			fmt.Fprintf(&b, "  - name: %s\n", e.name)
			if e.replaces != "" {
				fmt.Fprintf(&b, "    replaces: %s\n", e.replaces)
			}
			if len(e.skips) > 0 {
				fmt.Fprintf(&b, "    skips: [%s]\n", strings.Join(e.skips, ", "))
			}
			if e.skipRange != "" {
				fmt.Fprintf(&b, "    skipRange: %q\n", e.skipRange)
			}
			if !seen[e.name] {
				seen[e.name] = true
				names = append(names, e.name)
			}
		}
	}
	for _, n := range names {
		fmt.Fprintf(&b, "---\n%s", bundle(pkg, n, versionOf(n)))
	}
	return b.String()
}

func bundle(pkg, name, version string) string {
	return fmt.Sprintf("schema: olm.bundle\npackage: %s\nname: %s\nimage: quay.io/test/%s:v%s\nproperties:\n  - type: olm.package\n    value: {packageName: %s, version: %q}\n",
		pkg, name, pkg, version, pkg, version)
}

var nameVersionRE = regexp.MustCompile(`v(\d+\.\d+\.\d+.*)$`)

func versionOf(name string) string {
	if m := nameVersionRE.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return "0.0.1"
}

// check validates text as a file named catalog.yaml.
func check(t *testing.T, text string, opts validate.Options) []declcfg.Finding {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := validate.Validate(context.Background(), []string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Diagnostics
}

func rules(ds []declcfg.Finding) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return out
}

func dump(ds []declcfg.Finding) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %d:%d %s [%s] %s", d.Line, d.Col, d.Severity, d.Rule, d.Message)
	}
	return b.String()
}

// TestChannelGraph follows opm's channel rules (alpha/model tests and the
// cases opm-reference.md lists).
func TestChannelGraph(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []entry
		want    []string // rule ids, in report order
		message string   // a substring of the first diagnostic
	}{
		{name: "simple chain", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2", replaces: "a.v0.0.1"}, {name: "a.v0.0.3", replaces: "a.v0.0.2"}}},
		{name: "skips only chain", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2", skips: []string{"a.v0.0.1"}}, {name: "a.v0.0.3", skips: []string{"a.v0.0.2"}}, {name: "a.v0.0.4", replaces: "a.v0.0.3"}}},
		{name: "replaces a missing tail", entries: []entry{{name: "a.v0.0.2", replaces: "a.v0.0.1"}, {name: "a.v0.0.3", replaces: "a.v0.0.2"}}},
		{name: "skips pruned bundles", entries: []entry{{name: "a.v0.0.3", skips: []string{"a.v0.0.1", "a.v0.0.2"}}}},
		{name: "prerelease ordering does not matter", entries: []entry{{name: "a.v1.0.0-rc.1"}, {name: "a.v1.0.0", replaces: "a.v1.0.0-rc.1"}}},
		{name: "cycle without hops", entries: []entry{{name: "a.v0.0.4", replaces: "a.v0.0.4"}, {name: "a.v0.0.5", replaces: "a.v0.0.4"}},
			want: []string{"replaces-cycle"}, message: `entry "a.v0.0.4" of channel "stable" replaces itself`},
		{name: "cycle with hops", entries: []entry{{name: "a.v0.0.1", replaces: "a.v0.0.3"}, {name: "a.v0.0.2", replaces: "a.v0.0.1"}, {name: "a.v0.0.3", replaces: "a.v0.0.2"}, {name: "a.v0.0.4", replaces: "a.v0.0.3"}},
			want: []string{"replaces-cycle"}, message: `entry "a.v0.0.1" (0.0.1) replaces "a.v0.0.3" (0.0.3), a newer version: the replaces chain from head "a.v0.0.4" of channel "stable" loops (a.v0.0.3 replaces a.v0.0.2, a.v0.0.2 replaces a.v0.0.1, a.v0.0.1 replaces a.v0.0.3)`},
		{name: "stranded", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2", replaces: "a.v0.0.1"}, {name: "a.v0.0.3", skips: []string{"a.v0.0.2"}}},
			want: []string{"stranded-bundle"}, message: `entry "a.v0.0.1"`},
		{name: "chain stops at a skipped replaces", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2", replaces: "a.v0.0.1"}, {name: "a.v0.0.3", replaces: "a.v0.0.2", skips: []string{"a.v0.0.2"}}},
			want: []string{"stranded-bundle"}, message: `entry "a.v0.0.1"`},
		{name: "two heads", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2"}},
			want: []string{"channel-head"}, message: "2 heads (a.v0.0.1, a.v0.0.2)"},
		{name: "skipRange alone links nothing", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.2", skipRange: "<0.0.2"}},
			want: []string{"channel-head"}},
		{name: "no head", entries: []entry{{name: "a.v0.0.1", replaces: "a.v0.0.2"}, {name: "a.v0.0.2", replaces: "a.v0.0.1"}},
			want: []string{"replaces-cycle"}, message: "no head"},
		{name: "duplicate entry", entries: []entry{{name: "a.v0.0.1"}, {name: "a.v0.0.1"}},
			want: []string{"duplicate-entry"}},
		{name: "invalid skipRange", entries: []entry{{name: "a.v0.0.1", skipRange: "not-a-range"}},
			want: []string{"skip-range"}, message: `Could not get version from string: "not-a-range"`},
		{name: "empty skips item", entries: []entry{{name: "a.v0.0.2", skips: []string{`""`}}},
			want: []string{"empty-value"}, message: "entries[0].skips[0] must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := check(t, catalog("a", "stable", map[string][]entry{"stable": tc.entries}), validate.Options{})
			if got := rules(ds); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v:%s", got, tc.want, dump(ds))
			}
			if tc.message != "" && !strings.Contains(ds[0].Message, tc.message) {
				t.Errorf("message %q does not contain %q", ds[0].Message, tc.message)
			}
		})
	}
}

// TestSkipRangeVectors pins skipRange parsing to the shared vectors:
// exactly the ranges blang/semver rejects are reported.
func TestSkipRangeVectors(t *testing.T) {
	data := sharedtest.ReadVector(t, "ranges.json")
	var vectors struct {
		SkipRange []struct {
			Range string `json:"range"`
			Error string `json:"error"`
		} `json:"skipRange_blang_semver_v4_ParseRange"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.SkipRange) < 10 {
		t.Fatalf("only %d vectors", len(vectors.SkipRange))
	}
	for _, v := range vectors.SkipRange {
		if strings.TrimSpace(v.Range) == "" {
			continue // an empty skipRange means none
		}
		ds := check(t, catalog("a", "stable", map[string][]entry{"stable": {{name: "a.v1.0.0", skipRange: v.Range}}}), validate.Options{})
		reported := slices.Contains(rules(ds), "skip-range")
		if reported != (v.Error != "") {
			t.Errorf("skipRange %q: reported=%v, vector error %q:%s", v.Range, reported, v.Error, dump(ds))
		}
	}
}

func TestPackageRules(t *testing.T) {
	ok := map[string][]entry{"stable": {{name: "a.v1.0.0"}}}
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"valid", catalog("a", "stable", ok), nil},
		{"default channel unset", catalog("a", `""`, ok), []string{"default-channel"}},
		{"default channel unknown", catalog("a", "stabel", ok), []string{"default-channel"}},
		{"invalid package name", catalog("Foo_Bar", "stable", map[string][]entry{"stable": {{name: "foo.v1.0.0"}}}), []string{"package-name", "image-reference"}},
		{"no channels", "schema: olm.package\nname: a\ndefaultChannel: stable\n", []string{"empty-package"}},
		{"no olm.package", strings.SplitN(catalog("a", "stable", ok), "---\n", 2)[1], []string{"unknown-package"}},
		{"duplicate package", catalog("a", "stable", ok) + "---\nschema: olm.package\nname: a\ndefaultChannel: stable\n", []string{"duplicate-package"}},
		{"orphan bundle", catalog("a", "stable", ok) + "---\n" + bundle("a", "a.v2.0.0", "2.0.0"), []string{"orphan-bundle"}},
		{"duplicate version", catalog("a", "stable", map[string][]entry{"stable": {{name: "a.v1.0.0"}, {name: "a.v1.0.0-dup", replaces: "a.v1.0.0"}}}), []string{"downgrade-edge"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := check(t, tc.text, validate.Options{})
			if got := rules(ds); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v:%s", got, tc.want, dump(ds))
			}
		})
	}
}

// TestStrict turns the typo warnings into errors.
func TestStrict(t *testing.T) {
	text := strings.Replace(catalog("a", "stable", map[string][]entry{"stable": {{name: "a.v1.0.0"}}}), "    skips", "    skip", 1) +
		"---\nschema: olm.channel\npackage: a\nname: beta\nentries:\n  - name: a.v1.0.0\n    replace: a.v0.9.0\n"
	for _, strict := range []bool{false, true} {
		ds := check(t, text, validate.Options{Strict: strict})
		if len(ds) != 1 || ds[0].Rule != "unknown-field" {
			t.Fatalf("strict=%v:%s", strict, dump(ds))
		}
		want := declcfg.SeverityWarning
		if strict {
			want = declcfg.SeverityError
		}
		if ds[0].Severity != want || !strings.Contains(ds[0].Message, `did you mean "replaces"?`) {
			t.Errorf("strict=%v:%s", strict, dump(ds))
		}
	}
}

// TestValidateConfig checks in-memory catalogs: the same rules, with the
// blobs' own positions (none for blobs built in memory).
func TestValidateConfig(t *testing.T) {
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: "olm.package", Name: "a", DefaultChannel: "stable"}},
		Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "a", Name: "stable", Entries: []declcfg.ChannelEntry{
			{Name: "a.v1.0.0"}, {Name: "a.v1.1.0", Replaces: "a.v1.0.0", SkipRange: "bogus"}}}},
		Bundles: []declcfg.Bundle{
			{Schema: "olm.bundle", Package: "a", Name: "a.v1.0.0", Image: "quay.io/a/a:1",
				Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "a", Version: "1.0.0"})}},
			{Schema: "olm.bundle", Package: "a", Name: "a.v1.1.0", Image: "quay.io/A/a:1",
				Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "a", Version: "1.1"})}},
		},
	}
	res, err := validate.ValidateConfig(context.Background(), cfg, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rules(res.Diagnostics)
	slices.Sort(got)
	if want := []string{"bundle-version", "image-reference", "skip-range"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v:%s", got, want, dump(res.Diagnostics))
	}
	for _, d := range res.Diagnostics {
		if d.File != "" || d.Line != 0 {
			t.Errorf("in-memory blob got a position: %+v", d)
		}
		if d.Package != "a" {
			t.Errorf("diagnostic without its package: %+v", d)
		}
	}
	if res.Stats.Bundles != 2 || res.Stats.Channels != 1 || res.Stats.Packages != 1 {
		t.Errorf("stats %+v", res.Stats)
	}

	// A loaded catalog keeps its positions. The catalog-wide rules (here
	// skip-range) report where validating the files does: at the value.
	dir := t.TempDir()
	text := catalog("a", "stable", map[string][]entry{"stable": {{name: "a.v1.0.0", skipRange: "bogus"}}})
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = validate.ValidateConfig(context.Background(), loaded, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := validate.Validate(context.Background(), []string{dir}, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].File != filepath.Join(dir, "c.yaml") || res.Diagnostics[0].Pos != files.Diagnostics[0].Pos {
		t.Errorf("loaded catalog:%s\nfiles:%s", dump(res.Diagnostics), dump(files.Diagnostics))
	}
}

func TestRuleCatalogue(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range validate.Rules() {
		if !kebab.MatchString(r.ID) || seen[r.ID] {
			t.Errorf("rule id %q is not unique kebab-case", r.ID)
		}
		seen[r.ID] = true
		if r.Summary == "" || r.Help == "" || (r.Severity != declcfg.SeverityError && r.Severity != declcfg.SeverityWarning) {
			t.Errorf("rule %q is incomplete: %+v", r.ID, r)
		}
	}
	for _, id := range []string{declcfg.RuleIO, declcfg.RuleSyntax, declcfg.RuleKeyCase, declcfg.RuleFieldType} {
		if !seen[id] {
			t.Errorf("loader rule %q is missing from the catalogue", id)
		}
	}
}

// FuzzValidate feeds arbitrary files to the whole checker: it must not
// panic, must not fail to run, and must say the same thing twice.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(catalog("a", "stable", map[string][]entry{"stable": {{name: "a.v1.0.0"}, {name: "a.v1.1.0", replaces: "a.v1.0.0", skips: []string{"a.v0.9.0"}, skipRange: "<1.1.0"}}})))
	f.Add([]byte(`{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.bundle.object","value":{"data":"eyJraW5kIjoiQ1NWIn0="}},{"type":"olm.constraint","value":{"all":{"constraints":[{}]}}}]}`))
	f.Add([]byte("schema: olm.deprecations\npackage: a\nentries:\n- reference: {schema: olm.channel}\n  message: x\n"))
	f.Add([]byte(`{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.constraint","value":{"any":{"constraints":[{"cel":{"rule":"properties.exists(p, semver_compare(p.value.version, \"1.0.0\") >= 0)"}},{"cel":{"rule":"properties[0"}}]}}}]}`))
	f.Add([]byte("schema: olm.package\nname: A\nicon: {base64data: '!!'}\nproperties: [{type: olm.pakage}]\n"))
	f.Add([]byte("schema: olm.channel\npackage: yes\nname: on\nentries: [{name: y, skips: [off]}]\nNote: 1\nNOTE: 2\n---\nschema: acme.x\nPackage: a\npackage: a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		run := func() []declcfg.Finding {
			res, err := validate.Validate(context.Background(), []string{"-"}, validate.Options{Stdin: strings.NewReader(string(data))})
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			return res.Diagnostics
		}
		first, second := run(), run()
		if !slices.Equal(first, second) {
			t.Fatalf("two runs differ:%s\n---%s", dump(first), dump(second))
		}
	})
}

// TestValidateConfigParts: an in-memory catalog too big for one part is
// checked on several workers, every blob once, with the same result
// whatever their number.
func TestValidateConfigParts(t *testing.T) {
	cfg := &declcfg.DeclarativeConfig{}
	bad := 0
	for i := range 90 {
		pkg := fmt.Sprintf("p%02d", i)
		cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: "olm.package", Name: pkg, DefaultChannel: "stable"})
		cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: "olm.channel", Package: pkg, Name: "stable",
			Entries: []declcfg.ChannelEntry{{Name: pkg + ".v1"}}})
		version := "1.0.0"
		if i%3 == 0 {
			version = "1.0"
			bad++
		}
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: pkg, Name: pkg + ".v1", Image: "quay.io/a/" + pkg + ":1",
			Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: pkg, Version: version})}})
	}
	var first []declcfg.Finding
	for _, workers := range []int{1, 2, 7} {
		res, err := validate.ValidateConfig(context.Background(), cfg, validate.Options{Concurrency: workers})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Bundles != 90 || res.Stats.Channels != 90 || res.Stats.Packages != 90 {
			t.Errorf("%d workers: stats %+v", workers, res.Stats)
		}
		if got := rules(res.Diagnostics); len(got) != bad || slices.ContainsFunc(got, func(r string) bool { return r != "bundle-version" }) {
			t.Errorf("%d workers: %d bad versions, got %v", workers, bad, got)
		}
		if first == nil {
			first = res.Diagnostics
		} else if !slices.Equal(first, res.Diagnostics) {
			t.Errorf("%d workers: %s\n1 worker: %s", workers, dump(res.Diagnostics), dump(first))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := validate.ValidateConfig(ctx, cfg, validate.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestValidateConfigFieldPositions: a loaded catalog checked in memory
// reports each problem at the property, channel entry or deprecation
// reference at fault (the positions its typed blobs kept), not at the blob.
func TestValidateConfigFieldPositions(t *testing.T) {
	dir := t.TempDir()
	text := `schema: olm.package
name: f
defaultChannel: stable
---
schema: olm.channel
package: f
name: stable
entries:
- name: f.v1.0.0
- name: f.v1.1.0
  replaces: f.v1.0.0
  skipRange: not a range
---
schema: olm.bundle
name: f.v1.0.0
package: f
image: quay.io/f/f:1
properties:
- type: olm.package
  value:
    packageName: f
    version: 1.0.0
- type: olm.gvk
  value:
    group: f.io
    kind: F
    version: 12
---
schema: olm.bundle
name: f.v1.1.0
package: f
image: quay.io/f/f:2
properties:
- type: olm.package
  value:
    packageName: f
    version: 1.1.0
---
schema: olm.deprecations
package: f
entries:
- reference:
    schema: olm.bogus
    name: x
  message: bad
`
	file := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := validate.ValidateConfig(context.Background(), loaded, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", filepath.Base(d.File), d.Line, d.Col, d.Rule))
	}
	want := []string{"catalog.yaml:12:14 skip-range", "catalog.yaml:23:3 field-type", "catalog.yaml:43:5 invalid-value"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v%s", got, want, dump(res.Diagnostics))
	}
}
