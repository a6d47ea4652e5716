package template

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// substitutesEntries is a small valid catalog: 1.0.0 <- 1.1.0 <- 1.2.0,
// where 1.2.0 also skips 1.0.0.
const substitutesEntries = `entries:
- schema: olm.package
  name: op
  defaultChannel: stable
- schema: olm.channel
  package: op
  name: stable
  entries:
  - name: op.v1.0.0
  - name: op.v1.1.0
    replaces: op.v1.0.0
    skipRange: ">=0.9.0 <1.0.0"
  - name: op.v1.2.0
    replaces: op.v1.1.0
    skips: [op.v1.0.0]
- schema: olm.channel
  package: op
  name: fast
  entries:
  - name: op.v1.1.0
  - name: op.v1.2.0
    skips: [op.v1.1.0]
`

// entryBundles renders the bundles of the entries above as YAML blobs.
func entryBundles(t *testing.T, versions ...string) string {
	t.Helper()
	var b strings.Builder
	for _, v := range versions {
		data, err := json.Marshal(fakeBundle("op", v, "r/op:op.v"+v))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("- ")
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

func substitutesTemplate(t *testing.T, subs string) string {
	return "schema: olm.template.substitutes\n" + substitutesEntries + entryBundles(t, "1.0.0", "1.1.0", "1.2.0") + subs
}

func TestSubstitutesMovesEdgesToTheSubstitute(t *testing.T) {
	src := substitutesTemplate(t, "substitutions:\n- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n")
	res, err := renderString(t, nil, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindSubstitutes {
		t.Errorf("kind %q", res.Kind)
	}
	// the substitute takes 1.1.0's edges and skips it; 1.2.0 replaced
	// 1.1.0, so it now replaces 1.1.1 and skips 1.1.0; fast's 1.2.0
	// skipped 1.1.0, so it now skips 1.1.1.
	want := "stable: 1.0.0 1.1.0 1.2.0<1.1.1!1.0.0,1.1.0 1.1.1<1.0.0!1.1.0~>=0.9.0 <1.0.0\n" +
		"fast: 1.1.0 1.2.0!1.1.1 1.1.1!1.1.0\n"
	if got := channelText(res.Config); got != want {
		t.Errorf("channels:\n%s\nwant:\n%s", got, want)
	}
	if n := len(res.Config.Bundles); n != 4 || res.Config.Bundles[3].Image != "r/op:op.v1.1.1" {
		t.Errorf("bundles: %d, last %+v", n, res.Config.Bundles[n-1])
	}
}

// A substitute can itself be substituted: later substitutions see earlier
// ones.
func TestSubstitutesChain(t *testing.T) {
	src := substitutesTemplate(t, "substitutions:\n- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n- name: r/op:op.v1.1.2\n  base: op.v1.1.1\n")
	res, err := renderString(t, nil, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "stable: 1.0.0 1.1.0 1.2.0<1.1.2!1.0.0,1.1.0,1.1.1 1.1.1 1.1.2<1.0.0!1.1.0,1.1.1~>=0.9.0 <1.0.0\n" +
		"fast: 1.1.0 1.2.0!1.1.2 1.1.1 1.1.2!1.1.0,1.1.1\n"
	if got := channelText(res.Config); got != want {
		t.Errorf("channels:\n%s\nwant:\n%s", got, want)
	}
}

func releaseBundle(version, release, image string, substitutesFor bool) declcfg.Bundle {
	b := fakeBundle("op", version, image)
	b.Properties[0] = declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageProperty{PackageName: "op", Version: version, Release: release})
	if release != "" {
		b.Name = "op-v" + version + "-" + release
	}
	if substitutesFor {
		csv := map[string]any{
			"kind":     "ClusterServiceVersion",
			"metadata": map[string]any{"name": b.Name, "annotations": map[string]string{"olm.substitutesFor": "op.v1.1.0"}},
		}
		raw, _ := json.Marshal(csv)
		b.Properties[1] = declcfg.MustProperty(declcfg.PropertyBundleObject, declcfg.BundleObject{Data: raw})
	}
	return b
}

func TestSubstitutesOrderByVersionThenRelease(t *testing.T) {
	reg := &fakeRegistry{extra: map[string][]declcfg.Bundle{
		"r/op:rel1":   {releaseBundle("1.1.0", "1", "r/op:rel1", false)},
		"r/op:legacy": {releaseBundle("1.1.0+2", "", "r/op:legacy", true)},
		"r/op:build":  {releaseBundle("1.1.0+2", "", "r/op:build", false)},
	}}
	// the same version with a release sorts above no release
	src := substitutesTemplate(t, "substitutions:\n- name: r/op:rel1\n  base: op.v1.1.0\n")
	res, err := renderString(t, reg, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := channelText(res.Config); !strings.Contains(got, "1.2.0<op-v1.1.0-1!1.0.0,1.1.0") {
		t.Errorf("channels:\n%s", got)
	}
	// build metadata is a release when the CSV says it substitutes
	src = substitutesTemplate(t, "substitutions:\n- name: r/op:legacy\n  base: op.v1.1.0\n")
	if _, err := renderString(t, reg, src, Options{}); err != nil {
		t.Errorf("legacy release: %v", err)
	}
	// and otherwise build metadata does not order: 1.1.0+2 is not above 1.1.0
	src = substitutesTemplate(t, "substitutions:\n- name: r/op:build\n  base: op.v1.1.0\n")
	_, err = renderString(t, reg, src, Options{})
	if want := `t.yaml:28:9: substitute "r/op:build" (bundle "op.v1.1.0+2", 1.1.0+2) does not sort above its base "op.v1.1.0" (1.1.0): a substitute needs a higher version or release`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestSubstitutesProblems(t *testing.T) {
	other := fakeBundle("other", "2.0.0", "r/other:x")
	reg := &fakeRegistry{extra: map[string][]declcfg.Bundle{
		"r/other:x": {other},
		"r/op:two":  {fakeBundle("op", "3.0.0", "r/op:two"), fakeBundle("op", "3.0.1", "r/op:two")},
	}}
	tests := []struct {
		name, subs, want string
	}{
		{"base reused", "- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n- name: r/op:op.v1.1.2\n  base: op.v1.1.0\n",
			`t.yaml:31:9: bundle "op.v1.1.0" is already substituted (by "r/op:op.v1.1.1" at line 28): a bundle has one substitute`},
		{"substitute reused", "- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n- name: r/op:op.v1.1.1\n  base: op.v1.0.0\n",
			`t.yaml:30:9: "r/op:op.v1.1.1" already substitutes for "op.v1.1.0" (line 28): a substitute takes the place of one bundle`},
		{"no name", "- base: op.v1.1.0\n",
			`t.yaml:28:3: substitution has no name: name is the bundle image of the substitute`},
		{"no base", "- name: r/op:op.v1.1.1\n  base: ''\n",
			`t.yaml:28:3: substitution has no base: base is the name of the bundle the substitute takes the place of`},
		{"same", "- name: op.v1.1.0\n  base: op.v1.1.0\n",
			`t.yaml:29:9: substitution's name and base are both "op.v1.1.0": name is the substitute's bundle image, base the bundle it substitutes for`},
		{"unknown base", "- name: r/op:op.v1.1.1\n  base: op.v9.0.0\n",
			`t.yaml:29:9: base bundle "op.v9.0.0" is not in the template's entries`},
		{"lower", "- name: r/op:op.v1.0.5\n  base: op.v1.1.0\n",
			`t.yaml:28:9: substitute "r/op:op.v1.0.5" (bundle "op.v1.0.5", 1.0.5) does not sort above its base "op.v1.1.0" (1.1.0): a substitute needs a higher version or release`},
		{"other package", "- name: r/other:x\n  base: op.v1.1.0\n",
			`t.yaml:29:9: base bundle "op.v1.1.0" is in package "op", but substitute "r/other:x" renders to bundle "other.v2.0.0" of package "other": a substitute belongs to its base's package`},
		{"existing bundle", "- name: r/op:op.v1.2.0\n  base: op.v1.1.0\n",
			`t.yaml:28:9: substitute "r/op:op.v1.2.0" renders to bundle "op.v1.2.0", which package "op" already has`},
		{"two bundles", "- name: r/op:two\n  base: op.v1.1.0\n",
			`t.yaml:28:9: bundle reference "r/op:two" resolved to 2 bundles; a bundle reference must name exactly one bundle`},
		{"not a list", "  name: x\n",
			`t.yaml:28:3: substitutions must be a list, not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderString(t, reg, substitutesTemplate(t, "substitutions:\n"+tt.subs), Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

// opm refuses entries that are not a valid catalog; fbc names the blob.
func TestSubstitutesEntriesMustBeValid(t *testing.T) {
	src := "schema: olm.template.substitutes\n" + substitutesEntries + entryBundles(t, "1.0.0", "1.1.0") +
		"substitutions:\n- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n"
	reg := &fakeRegistry{}
	_, err := renderString(t, reg, src, Options{})
	if err == nil || !strings.Contains(err.Error(), "entries are not a valid catalog: ") || !strings.Contains(err.Error(), "op.v1.2.0") {
		t.Fatalf("got %v", err)
	}
	if len(reg.rendered) != 0 {
		t.Errorf("rendered %v before checking the entries", reg.rendered)
	}
}

// Migrations apply to the substitutes only, as in opm: the entries are
// written as their author wants them.
func TestSubstitutesMigrateOnlyRendered(t *testing.T) {
	src := substitutesTemplate(t, "substitutions:\n- name: r/op:op.v1.1.1\n  base: op.v1.1.0\n")
	var migrated []string
	res, err := renderString(t, nil, src, Options{Migrate: func(cfg *declcfg.DeclarativeConfig) error {
		for _, b := range cfg.Bundles {
			migrated = append(migrated, b.Name)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(migrated, ",") != "op.v1.1.1" || len(res.Config.Bundles) != 4 {
		t.Errorf("migrated %v", migrated)
	}
}

func TestSubstitutesWithoutSubstitutionsIsTheEntries(t *testing.T) {
	res, err := renderString(t, nil, substitutesTemplate(t, "extra: 1\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := channelText(res.Config); got != "stable: 1.0.0 1.1.0<1.0.0~>=0.9.0 <1.0.0 1.2.0<1.1.0!1.0.0\nfast: 1.1.0 1.2.0!1.1.0\n" {
		t.Errorf("channels:\n%s", got)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), `unknown field "extra" in a substitutes template`) {
		t.Errorf("warnings %v", res.Warnings)
	}
}
