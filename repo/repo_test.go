package repo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUsesCSVMetadata(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"v4.16": false, "v4.17": true, "v4.9": false, "v4.100": true, "v5.0": true, "v6.3": true,
		"v3.99": false, "4.18": false, "v4.18-beta": false, "latest": false, "v4": false,
	} {
		if got := UsesCSVMetadata(name); got != want {
			t.Errorf("UsesCSVMetadata(%q) = %v, want %v", name, got, want)
		}
	}
	names := []string{"v4.10", "dev", "v5.0", "v4.9", "v4.17"}
	slices.SortFunc(names, func(a, b string) int {
		if CatalogLess(a, b) {
			return -1
		}
		if CatalogLess(b, a) {
			return 1
		}
		return 0
	})
	if want := []string{"v4.9", "v4.10", "v4.17", "v5.0", "dev"}; !slices.Equal(names, want) {
		t.Errorf("catalog order %v, want %v", names, want)
	}
}

func TestLayout(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	op := filepath.Join(root, "operators", "foo")
	write(t, filepath.Join(op, "ci.yaml"), "fbc:\n  enabled: true\n")
	write(t, filepath.Join(op, "1.0.0", "manifests", "foo.clusterserviceversion.yaml"), "metadata:\n  name: foo.v1.0.0\nspec:\n  version: 1.0.0\n")
	write(t, filepath.Join(op, "1.0.0", "metadata", "annotations.yaml"), "annotations: {}\n")
	write(t, filepath.Join(op, "2.0.0", "bundle", "manifests", "x.yaml"), "kind: x\n")
	write(t, filepath.Join(op, "2.0.0", "bundle", "metadata", "annotations.yaml"), "annotations: {}\n")
	write(t, filepath.Join(op, "3.0.0", "manifests", "crd.yaml"), "kind: CustomResourceDefinition\n")
	write(t, filepath.Join(op, "3.0.0", "metadata", "annotations.yaml"), "annotations: {}\n")
	write(t, filepath.Join(op, "catalog-templates", "basic.yaml"), "schema: olm.template.basic\n")
	write(t, filepath.Join(root, "catalogs", "v4.10", "foo", "catalog.yaml"), "")
	write(t, filepath.Join(root, "catalogs", "v4.9", "foo", "catalog.json"), "")
	write(t, filepath.Join(root, "catalogs", "v4.11", "bar", "catalog.yaml"), "")

	for _, p := range []string{op, filepath.Join(op, "1.0.0"), filepath.Join(op, "catalog-templates")} {
		o, err := OperatorOf(p)
		if err != nil {
			t.Fatalf("OperatorOf(%s): %v", p, err)
		}
		if o.Name != "foo" || o.Dir != op || o.Repo.Root != root {
			t.Errorf("OperatorOf(%s) = %+v", p, o)
		}
	}
	for _, p := range []string{root, filepath.Join(root, "operators"), filepath.Join(root, "catalogs")} {
		_, err := OperatorOf(p)
		var no *NotOperatorError
		if !errors.As(err, &no) || fault.KindOf(err) != fault.Usage {
			t.Errorf("OperatorOf(%s) = %v, want a NotOperatorError", p, err)
		}
	}
	if _, err := FindRoot(t.TempDir()); !errors.As(err, new(*NotInRepoError)) {
		t.Errorf("FindRoot outside a repository: %v", err)
	}

	o, _ := OperatorOf(op)
	ents, err := o.Entries()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]EntryKind{}
	for _, e := range ents {
		kinds[e.Name] = e.Kind
	}
	want := map[string]EntryKind{"1.0.0": BundleDir, "2.0.0": NestedBundle, "3.0.0": BundleDir, "catalog-templates": TemplatesFolder, "ci.yaml": File}
	if len(kinds) != len(want) {
		t.Errorf("entries %v, want %v", kinds, want)
	}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("entry %s is %v, want %v", k, kinds[k], v)
		}
	}

	csv, err := ReadCSV(filepath.Join(op, "1.0.0"))
	if err != nil || csv.Name != "foo.v1.0.0" || csv.Version != "1.0.0" || csv.NamePos.Line != 2 {
		t.Errorf("ReadCSV = %+v, %v", csv, err)
	}
	_, err = ReadCSV(filepath.Join(op, "3.0.0"))
	if !errors.As(err, new(*NoCSVError)) {
		t.Errorf("ReadCSV of a folder without a CSV: %v", err)
	}

	cats, err := o.Repo.PackageCatalogs("foo")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cats {
		got = append(got, c.Catalog+"/"+filepath.Base(c.Path))
	}
	if want := []string{"v4.9/catalog.json", "v4.10/catalog.yaml"}; !slices.Equal(got, want) {
		t.Errorf("PackageCatalogs = %v, want %v", got, want)
	}
}

func TestParseCI(t *testing.T) {
	t.Parallel()
	ci, err := ParseCI("ci.yaml", []byte(`---
reviewers: [a]
fbc:
  enabled: true
  catalog_mapping:
    - template_name: basic.yaml
      type: olm.template.basic
      catalog_names: ["v4.16", "v4.17"]
    - template_name: semver.yaml
      type: olm.semver
      catalog_names:
        - v4.18
`))
	if err != nil {
		t.Fatal(err)
	}
	if !ci.FBC.Enabled || len(ci.FBC.Mappings) != 2 {
		t.Fatalf("fbc = %+v", ci.FBC)
	}
	m, ok := ci.Mapping("semver.yaml")
	if !ok || m.Type != TypeSemver || !slices.Equal(m.Catalogs, []string{"v4.18"}) || m.CatalogPos[0].Line != 12 || m.TemplatePos.Line != 9 {
		t.Errorf("semver mapping = %+v", m)
	}

	for _, tc := range []struct{ text, want string }{
		{"fbc: [1]\n", "ci.yaml:1:6: fbc must be a mapping (enabled, catalog_mapping), not a list"},
		{"fbc:\n  enabled: maybe\n", "ci.yaml:2:12: fbc.enabled must be true or false, not a string"},
		{"fbc:\n  catalog_mapping:\n    - template_name: a.yaml\n      catalog_names: [4.17]\n", "ci.yaml:3:7: fbc.catalog_mapping[0] has no type\nci.yaml:4:23: fbc.catalog_mapping[0].catalog_names items must be a string, not a number"},
		{"fbc:\n  catalog_mapping: {a: 1}\n", "ci.yaml:2:20: fbc.catalog_mapping must be a list, not an object"},
		{"fbc:\n  catalog_mapping:\n  - template_name: [x]\n    type: olm.semver\n    catalog_names: [v4.18]\n", "ci.yaml:3:20: fbc.catalog_mapping[0].template_name must be a string, not a list"},
		{"fbc:\n  enabled: true\n    bad: indent\n", "ci.yaml:3"},
		{"- a\n", "ci.yaml:1:1: must hold a mapping of settings, not a list"},
		{"a: 1\n---\nb: 2\n", "ci.yaml:3:1: holds 2 YAML documents; the pipelines read one"},
	} {
		_, err := ParseCI("ci.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseCI(%q) = %v, want %q", tc.text, err, tc.want)
		}
		if err != nil && fault.KindOf(err) != fault.Input {
			t.Errorf("ParseCI(%q): kind %v, want input", tc.text, fault.KindOf(err))
		}
	}
	// yes is true to PyYAML, which the pipelines read ci.yaml with.
	ci, err = ParseCI("ci.yaml", []byte("fbc:\n  enabled: yes\n"))
	if err != nil || !ci.FBC.Enabled {
		t.Errorf("enabled: yes = %+v, %v", ci, err)
	}
}

func TestParseReleaseConfig(t *testing.T) {
	t.Parallel()
	rc, err := ParseReleaseConfig("release-config.yaml", []byte(`---
catalog_templates:
  - template_name: v4.18.yaml
    channels: ['1.24']
  - template_name: v4.18.yaml
    channels: [stable, fast]
    defaultChannel: fast
    replaces: op.v1.23.0
    skips:
      - op.v1.23.1
    skipRange: '>=1.0.0 <1.24.0'
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Templates) != 2 {
		t.Fatalf("templates = %+v", rc.Templates)
	}
	a, b := rc.Templates[0], rc.Templates[1]
	if a.Template != "v4.18.yaml" || !slices.Equal(a.Channels, []string{"1.24"}) || a.Replaces != nil || a.Skips != nil {
		t.Errorf("first = %+v", a)
	}
	if b.DefaultChannel != "fast" || b.Replaces.Value != "op.v1.23.0" || len(b.Skips.Content) != 1 || b.SkipRange.Value != ">=1.0.0 <1.24.0" || b.DefaultChannelPos.Line != 7 {
		t.Errorf("second = %+v", b)
	}

	for _, tc := range []struct{ text, want string }{
		{"", "release-config.yaml: is empty: it must list catalog_templates"},
		{"# nothing\n", "release-config.yaml: is empty: it must list catalog_templates"},
		{"merge: true\n", "release-config.yaml:1:1: has no catalog_templates"},
		{"catalog_templates: []\n", "release-config.yaml:1:20: catalog_templates is empty"},
		{"catalog_templates:\n- channels: [a]\n", "release-config.yaml:2:3: catalog_templates[0] has no template_name"},
		{"catalog_templates:\n- template_name: a.yaml\n  channels: []\n", "release-config.yaml:3:13: catalog_templates[0].channels is empty"},
		{"catalog_templates:\n- template_name: a.yaml\n  channels: [a]\n  replaces: 1.0\n", "release-config.yaml:4:13: catalog_templates[0].replaces must be a string, not a number"},
		{"catalog_templates:\n- template_name: a.yaml\n  channels: [a]\n  skips: b\n", "release-config.yaml:4:10: catalog_templates[0].skips must be a list of strings, not a string"},
		{"catalog_templates:\n  - template_name: a.yaml\n    channels: [a\n", "release-config.yaml:3: did not find expected"},
	} {
		_, err := ParseReleaseConfig("release-config.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseReleaseConfig(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}

	_, err = LoadReleaseConfig(t.TempDir())
	var miss *MissingError
	if !errors.As(err, &miss) || fault.KindOf(err) != fault.Run || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing release-config.yaml: %v", err)
	}
}

func TestSettingsRepeatedKeysLastWins(t *testing.T) {
	c, err := ParseConfig("config.yaml", []byte("organization: certified-operators\norganization: community-operators\n"))
	require.NoError(t, err)
	assert.Equal(t, "community-operators", c.Organization)
	require.Len(t, c.Warnings, 1)
	w := c.Warnings[0]
	assert.Equal(t, declcfg.SeverityWarning, w.Severity)
	assert.Equal(t, "config.yaml:2:1: key organization is written twice in one mapping (lines 1 and 2): the pipelines read this file with PyYAML, where the last one counts, so fbc reads line 2 too and ignores line 1", w.Error())

	rc, err := ParseReleaseConfig("release-config.yaml", []byte("catalog_templates:\n- {template_name: a.yaml, channels: [x], channels: [y]}\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"y"}, rc.Templates[0].Channels)
	require.Len(t, rc.Warnings, 1)
	assert.Contains(t, rc.Warnings[0].Error(), "release-config.yaml:2:42: key channels is written twice in one mapping (lines 2:27 and 2:42): the pipelines read this file with PyYAML, where the last one counts, so fbc reads line 2:42 too and ignores line 2:27")
}
