package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassify(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	layouts := filepath.Join("..", "testdata", "layouts")
	repoRoot := filepath.Join(tmp, "repo")
	write("repo/catalogs/v4.18/pkg/catalog.yaml", "schema: olm.package\nname: pkg\n")
	write("repo/catalogs/v4.18/pkg/deeper/x.yaml", "schema: olm.package\nname: x\n")
	write("repo/operators/pkg/1.0.0/manifests/csv.yaml", "kind: ClusterServiceVersion\n")
	write("repo/operators/pkg/1.0.0/metadata/annotations.yaml", "annotations: {}\n")
	write("loose/op/1.0.0/manifests/csv.yaml", "kind: ClusterServiceVersion\n")
	write("loose/op/1.0.0/metadata/annotations.yaml", "annotations: {}\n")
	write("loose/op/1.1.0/manifests/csv.yaml", "kind: ClusterServiceVersion\n")
	write("loose/op/1.1.0/metadata/annotations.yaml", "annotations: {}\n")
	tests := []struct {
		path string
		want Kind
	}{
		{layouts, KindRepository},
		{filepath.Join(layouts, "operators"), KindOperatorsTree},
		{filepath.Join(layouts, "operators", "skupper-operator"), KindOperator},
		{filepath.Join(layouts, "operators", "kubernaut-operator"), KindOperator},
		{filepath.Join(layouts, "operators", "skupper-operator", "1.9.6"), KindBundleDir}, // a bundle
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1"), KindBundleFolder},
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1", "bundle"), KindBundleDir},
		{filepath.Join(layouts, "operators", "skupper-operator", "ci.yaml"), KindCISettings},
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1", "release-config.yaml"), KindReleaseConfig},
		{filepath.Join(layouts, "operators", "kubernaut-operator", "catalog-templates", "semver.yaml"), KindTemplate},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator"), KindPackageManifests},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "1.0.2"), KindPackageVersion},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "1.0.2") + "/", KindPackageVersion},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "akka-cluster-operator.package.yaml"), KindPackageManifests},
		{filepath.Join(layouts, "operators", "kubernaut-operator", "catalog-templates"), KindTemplates},
		{filepath.Join(layouts, "README.md"), KindDocument},
		{filepath.Join("..", "testdata", "catalog"), KindCatalogDir},
		{write("basic.yaml", "entries:\n- schema: olm.package\n  name: p\nschema: olm.template.basic\n"), KindTemplate},
		{write("basic.json", `{"entries": [{"schema": "olm.package", "name": "p"}], "schema": "olm.template.basic"}`), KindTemplate},
		{write("subs.json", `{"schema":"olm.template.substitutes","entries":[]}`), KindTemplate},
		{write("catalog.yaml", "schema: olm.package\nname: p\n---\nschema: olm.template.basic\n"), KindCatalogFile},
		{write("catalog.json", `{"schema": "olm.package", "name": "p"}`+"\n"+`{"schema": "olm.template.basic"}`), KindCatalogFile},
		{write("nested.yaml", "entries:\n  schema: olm.semver\n"), KindCatalogFile},
		{write("Dockerfile", "FROM scratch\n"), KindDocument},
		{write("notes.txt", "hello\n"), KindDocument},
		{"-", KindStdin},
		{tmp, KindCatalogDir}, // templates next to a catalog file
		{filepath.Dir(write("templates/v4.17.yaml", "---\nentries: []\nschema: olm.template.basic\n")), KindTemplates},
		{filepath.Dir(write("templates/README.md", "# how\n")), KindTemplates},
		{filepath.Dir(write("notemplates/README.md", "# how\n")), KindCatalogDir},
		{filepath.Dir(write("twodocs/c.yaml", "schema: olm.package\n---\nschema: olm.semver\n")), KindCatalogDir},
		{filepath.Join(tmp, "does-not-exist"), KindMissing},
		{"quay.io/x/y:v1", KindMissing},
		{"oci:some/layout:v1", KindLocalImage},
		{"docker-archive:/tmp/x.tar", KindLocalImage},
		// An operator's folder outside any repository.
		{filepath.Dir(write("loose/op/ci.yaml", "fbc: {}\n")), KindOperatorLike},
		// A repository's catalogs: a catalog, a package's folder, its file.
		{filepath.Join(repoRoot, "catalogs", "v4.18"), KindRepoCatalog},
		{filepath.Join(repoRoot, "catalogs", "v4.18", "pkg"), KindRepoCatalog},
		{filepath.Join(repoRoot, "catalogs", "v4.18", "pkg", "catalog.yaml"), KindRepoCatalog},
		{filepath.Join(repoRoot, "catalogs", "v4.18", "pkg", "deeper"), KindCatalogDir},
		{filepath.Join(repoRoot, "operators", "pkg"), KindOperator},
		{filepath.Join(repoRoot, "operators", "pkg", "1.0.0"), KindBundleDir},
	}
	for _, tt := range tests {
		p := Classify(tt.path)
		if p.Recognised() {
			assert.NotEmpty(t, p.What, tt.path)
		}
		assert.Equal(t, tt.want, p.Kind, tt.path)
	}
	p := Classify(filepath.Join(repoRoot, "catalogs", "v4.18", "pkg", "catalog.yaml"))
	assert.Equal(t, "v4.18", p.Catalog)
	assert.Equal(t, "pkg", p.Package)
	assert.True(t, p.IsCatalog())
	p = Classify(filepath.Join(repoRoot, "operators", "pkg"))
	if assert.NotNil(t, p.Operator) {
		assert.Equal(t, "pkg", p.Operator.Name)
	}
}

// TestYAMLSchema: the schema of a YAML file's first document, as opm's
// reader cuts documents (a leading "---" opens the first; any later line
// that starts with "---" ends it).
func TestYAMLSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"schema: olm.template.basic\n", "olm.template.basic"},
		{"---\nschema: olm.semver\n", "olm.semver"},
		{"--- # c\n# d\nSchema: olm.semver\n", "olm.semver"},
		{"entries: []\nschema: olm.template.basic\n", "olm.template.basic"},
		{"entries: []\n---\nschema: olm.template.basic\n", ""},
		{"---\n---\nschema: olm.template.basic\n", ""},
		{"# license\n---\nschema: olm.template.basic\n", ""},
		{"\n---\nschema: olm.template.basic\n", ""},
		{"a: 1\n----\nschema: x\n", ""},
		{"  schema: nested\n", ""},
		{"schema: a\x00\n", ""},
		{"", ""},
	} {
		if got := yamlSchema(strings.NewReader(tc.in)); got != tc.want {
			t.Errorf("yamlSchema(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
