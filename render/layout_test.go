package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRecognise(t *testing.T) {
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
	tests := []struct {
		path string
		want Layout // 0: not recognised
	}{
		{layouts, LayoutRepository},
		{filepath.Join(layouts, "operators"), LayoutOperatorsTree},
		{filepath.Join(layouts, "operators", "skupper-operator"), LayoutOperatorDir},
		{filepath.Join(layouts, "operators", "kubernaut-operator"), LayoutOperatorDir},
		{filepath.Join(layouts, "operators", "skupper-operator", "1.9.6"), 0}, // a bundle
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1"), LayoutBundleFolder},
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1", "bundle"), 0},
		{filepath.Join(layouts, "operators", "skupper-operator", "ci.yaml"), LayoutRepoCI},
		{filepath.Join(layouts, "operators", "rabbitmq-messaging-topology-operator", "1.19.1", "release-config.yaml"), LayoutReleaseConfig},
		{filepath.Join(layouts, "operators", "kubernaut-operator", "catalog-templates", "semver.yaml"), LayoutTemplate},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator"), LayoutPackageManifests},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "1.0.2"), LayoutPackageVersion},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "1.0.2") + "/", LayoutPackageVersion},
		{filepath.Join(layouts, "package-manifests", "akka-cluster-operator", "akka-cluster-operator.package.yaml"), LayoutPackageManifests},
		{filepath.Join(layouts, "operators", "kubernaut-operator", "catalog-templates"), LayoutTemplates},
		{filepath.Join(layouts, "README.md"), LayoutDocument},
		{filepath.Join("..", "testdata", "catalog"), 0},
		{write("basic.yaml", "entries:\n- schema: olm.package\n  name: p\nschema: olm.template.basic\n"), LayoutTemplate},
		{write("basic.json", `{"entries": [{"schema": "olm.package", "name": "p"}], "schema": "olm.template.basic"}`), LayoutTemplate},
		{write("subs.json", `{"schema":"olm.template.substitutes","entries":[]}`), LayoutTemplate},
		{write("catalog.yaml", "schema: olm.package\nname: p\n---\nschema: olm.template.basic\n"), 0},
		{write("catalog.json", `{"schema": "olm.package", "name": "p"}`+"\n"+`{"schema": "olm.template.basic"}`), 0},
		{write("nested.yaml", "entries:\n  schema: olm.semver\n"), 0},
		{write("Dockerfile", "FROM scratch\n"), LayoutDocument},
		{write("notes.txt", "hello\n"), LayoutDocument},
		{"-", 0},
		{tmp, 0}, // templates next to a catalog file
		{filepath.Dir(write("templates/v4.17.yaml", "---\nentries: []\nschema: olm.template.basic\n")), LayoutTemplates},
		{filepath.Dir(write("templates/README.md", "# how\n")), LayoutTemplates},
		{filepath.Dir(write("notemplates/README.md", "# how\n")), 0},
		{filepath.Dir(write("twodocs/c.yaml", "schema: olm.package\n---\nschema: olm.semver\n")), 0},
		{filepath.Join(tmp, "does-not-exist"), 0},
		{"quay.io/x/y:v1", 0},
	}
	for _, tt := range tests {
		nc := Recognise(tt.path)
		got := Layout(0)
		if nc != nil {
			got = nc.Layout
			assert.NotEmpty(t, nc.What, tt.path)
		}
		assert.Equal(t, tt.want, got, tt.path)
	}
}
