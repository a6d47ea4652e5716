package template

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

const basicTemplate = `schema: olm.template.basic
entries:
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
- schema: olm.bundle
  image: r/op:op.v1.1.0
- schema: olm.bundle
  image: r/op:op.v1.0.0
  name: op.v1.0.0
- schema: example.custom
  package: op
  value: 42
`

// The second stub states its bundle's name, as real templates do to say
// which bundle a digest is (securesign's model-validation-operator): opm
// accepts that, and so does fbc when the name is right.
func TestBasicRendersStubsAndPassesTheRestThrough(t *testing.T) {
	res, err := renderString(t, nil, basicTemplate, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindBasic {
		t.Errorf("kind %q", res.Kind)
	}
	cfg := res.Config
	if len(cfg.Packages) != 1 || cfg.Packages[0].DefaultChannel != "stable" || cfg.Packages[0].Pos.Line != 3 {
		t.Errorf("package: %+v", cfg.Packages)
	}
	if got := channelText(cfg); got != "stable: 1.0.0 1.1.0<1.0.0\n" {
		t.Errorf("channels: %s", got)
	}
	if len(cfg.Bundles) != 2 || cfg.Bundles[0].Name != "op.v1.1.0" || cfg.Bundles[1].Image != "r/op:op.v1.0.0" {
		t.Errorf("bundles: %+v", cfg.Bundles)
	}
	if len(cfg.Others) != 1 || cfg.Others[0].Schema != "example.custom" {
		t.Errorf("others: %+v", cfg.Others)
	}
	// basic templates never get a package description from bundles
	if cfg.Packages[0].Description != "" {
		t.Errorf("description %q", cfg.Packages[0].Description)
	}
}

func TestBasicWarnsAboutFieldsOpmIgnores(t *testing.T) {
	// community-operators-prod's odf-node-recovery-operator template has a
	// top-level name; opm ignores it, so fbc warns.
	res, err := renderString(t, nil, "Schema: olm.template.basic\nname: odf\nentries:\n- schema: olm.bundle\n  image: r/op:op.v1.0.0\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Error() != `t.yaml:2:1: unknown field "name" in a basic template (opm ignores it); a basic template has only schema and entries` {
		t.Errorf("warnings: %v", res.Warnings)
	}
}

func TestBasicProblems(t *testing.T) {
	tests := []struct {
		name, src, want string
		kind            Kind
	}{
		{name: "stub with extra fields", src: "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: r/op:op.v1.0.0\n  name: op.v1.0.0\n  properties: []\n",
			want: `t.yaml:3:3: bundle entry has field "properties": in a basic template a bundle is a stub with only schema and image`},
		{name: "stub naming another bundle", src: "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: r/op:op.v1.0.0\n  name: op.v1.0.1\n",
			want: `t.yaml:5:9: bundle stub says name "op.v1.0.1", but "r/op:op.v1.0.0" renders to bundle "op.v1.0.0"`},
		{name: "stub without image", src: "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n",
			want: "t.yaml:3:3: bundle entry has no image"},
		{name: "entry not an object", src: "schema: olm.template.basic\nentries:\n- just a string\n",
			want: "t.yaml:3:3: an entry must be an object (an FBC blob or a bundle stub), not a string"},
		{name: "entry without schema", src: "schema: olm.template.basic\nentries:\n- name: x\n",
			want: `t.yaml:3:3: document has no "schema" field`},
		{name: "entries not a list", src: "schema: olm.template.basic\nentries: {}\n", want: "t.yaml:2:10: entries must be a list, not an object"},
		{name: "unknown schema", src: "schema: olm.template.composite\nentries: []\n",
			want: `t.yaml:1:9: unknown template schema "olm.template.composite": fbc renders "olm.template.basic" (basic), "olm.semver" (semver) and "olm.template.substitutes" (substitutes) templates`},
		{name: "no schema", src: "entries: []\n", want: `t.yaml:1:1: template has no "schema" field, so its type is unknown`},
		{name: "kind mismatch", src: "schema: olm.semver\n", kind: KindBasic,
			want: `t.yaml:1:9: template has schema "olm.semver", but a basic template must have schema "olm.template.basic"`},
		{name: "not YAML", src: "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: [unclosed\n", want: "t.yaml:4: did not find expected"},
		{name: "ref with two bundles", src: "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: r/pair\n",
			want: `t.yaml:3:3: bundle reference "r/pair" resolved to 2 bundles`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRegistry{extra: map[string][]declcfg.Bundle{"r/pair": {fakeBundle("op", "1.0.0", "r/pair"), fakeBundle("op", "1.0.1", "r/pair")}}}
			_, err := renderString(t, f, tt.src, Options{Kind: tt.kind})
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %v (%T) is not a template problem", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}

func TestCorpusTemplateNotYAML(t *testing.T) {
	// The corpus's one template that is not valid YAML.
	path := sharedtest.Path(t, "corpus", "certified-operators", "operators", "ccnfs-operator", "catalog-templates", "basic.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(context.Background(), "basic.yaml", data, Options{Render: (&fakeRegistry{}).render})
	var ps Problems
	if !errors.As(err, &ps) || !strings.HasPrefix(err.Error(), "basic.yaml:") {
		t.Fatalf("error %v, want a positioned template problem", err)
	}
}

func TestImageMap(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bundles", "op-1.0.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(dir, "images.yaml")
	m, err := ParseImageMap(mapFile, []byte(`r/op:1.0.0: bundles/op-1.0.0
r/op:1.0.1: /abs/dir
r/op:1.0.2: oci:layouts/op:1.0.2
r/op:1.0.3: gone
`))
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"r/op:1.0.0": filepath.Join(dir, "bundles/op-1.0.0"),
		"r/op:1.0.1": "/abs/dir",
		"r/op:1.0.2": "oci:" + filepath.Join(dir, "layouts/op:1.0.2"),
	} {
		e, ok := m.Lookup(ref)
		if !ok || e.Source != want {
			t.Errorf("%s: %+v, want source %s", ref, e, want)
		}
	}
	var gotSource, gotImage string
	local := func(ctx context.Context, source, image string) ([]declcfg.Bundle, error) {
		gotSource, gotImage = source, image
		return []declcfg.Bundle{fakeBundle("op", "1.0.0", image)}, nil
	}
	render := MappedRenderer(m, local, nil)
	bs, err := render(context.Background(), "r/op:1.0.0")
	if err != nil || len(bs) != 1 || gotSource != filepath.Join(dir, "bundles/op-1.0.0") || gotImage != "r/op:1.0.0" {
		t.Errorf("mapped render: %v %v %s %s", bs, err, gotSource, gotImage)
	}
	_, err = render(context.Background(), "r/op:1.0.3")
	if err == nil || err.Error() != mapFile+`:4:1: image map entry "r/op:1.0.3" points to "gone", which does not exist` {
		t.Errorf("missing source: %v", err)
	}
	_, err = render(context.Background(), "r/op:9.9.9")
	if err == nil || err.Error() != `cannot pull "r/op:9.9.9" while offline: it is not in image map `+mapFile {
		t.Errorf("offline: %v", err)
	}
	for src, want := range map[string]string{
		"- a\n":           "m.yaml:1:1: image map must be an object, not a list",
		"a: 1\n":          `m.yaml:1:4: the source of "a" must be a string, not a number`,
		"a: x\na: y\n":    `m.yaml:2:1: image "a" is mapped twice (first at line 1)`,
		"a: ''\n":         `m.yaml:1:4: image "a" maps to nothing`,
		"{\"a\": \"x\"\n": "m.yaml:",
	} {
		if _, err := ParseImageMap("m.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("map %q: error %v, want %q", src, err, want)
		}
	}
}

// TestEmptyTemplates: a template that holds nothing is an *EmptyError (the
// wrong file), not a problem inside a template.
func TestEmptyTemplates(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"empty file", "", "t.yaml: template is empty"},
		{"only comments", "# nothing\n", "t.yaml:1: template holds only comments"},
		{"basic without entries", "schema: olm.template.basic\n", "t.yaml:1:1: basic template has no entries"},
		{"basic with an empty list", "schema: olm.template.basic\nentries: []\n", "t.yaml:1:1: basic template has no entries"},
		{"semver without bundles", "schema: olm.semver\n", "t.yaml:1:1: semver template lists no bundles"},
		{"semver with empty lists", "schema: olm.semver\nstable: {bundles: []}\n", "t.yaml:1:1: semver template lists no bundles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderString(t, nil, tt.src, Options{})
			var empty *EmptyError
			if !errors.As(err, &empty) {
				t.Fatalf("error %v (%T) is not an *EmptyError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to start with:\n%s", err, tt.want)
			}
		})
	}
	// A template whose only fault is not emptiness stays a problem.
	_, err := renderString(t, nil, "schema: olm.template.basic\nentries: []\nentries: []\n", Options{})
	var ps Problems
	if !errors.As(err, &ps) {
		t.Errorf("duplicate key beside empty entries: %v (%T), want Problems", err, err)
	}
}

// TestImageMapCheckLocal: a local source is checked by its path as the
// image package reads the reference (PATH[:SELECTOR] or PATH@DIGEST), for
// archives too.
func TestImageMapCheckLocal(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"layout", "b.tar"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for src, ok := range map[string]bool{
		"oci:" + dir + "/layout":                    true,
		"oci:" + dir + "/layout:v1":                 true,
		"oci:" + dir + "/layout@sha256:abc":         true,
		"oci-archive:" + dir + "/b.tar:v1":          true,
		"docker-archive:" + dir + "/b.tar":          true,
		"docker-archive:" + dir + "/b.tar:r/x:v1":   true,
		"oci:" + dir + "/gone:v1":                   false,
		"docker-archive:" + dir + "/gone.tar:r/x:1": false,
	} {
		err := MapEntry{Source: src, Written: src}.Check("r/op:1")
		if (err == nil) != ok {
			t.Errorf("%s: %v, want it found: %v", src, err, ok)
		}
	}
}
