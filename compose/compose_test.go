package compose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

func TestLooksLikePath(t *testing.T) {
	for s, want := range map[string]bool{
		"./catalog": true, "../x": true, "/abs/dir": true, "dir/": true, ".": true,
		"catalog.yaml": true, "index.JSON": true, "sub/catalog.yml": true,
		"quay.io/acme/catalog:v1": false, "localhost:5000/cat.yaml:v1": false,
		"catalog": false, "oci:layout:v1": false, "quay.io/a/b@sha256:abc": false,
	} {
		assert.Equal(t, want, looksLikePath(s), s)
	}
}

func TestParseConfigJSONAndImageRef(t *testing.T) {
	c, err := ParseConfig("c.json", []byte(`{"name": "cat", "repo": "quay.io/acme/cat", "tag": "v1",
 "references": [{"name": "a", "image": "quay.io/acme/a:1"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "quay.io/acme/cat:v1", c.ImageRef())
	assert.Equal(t, []Reference{{Name: "a", Image: "quay.io/acme/a:1", Pos: declcfg.Pos{File: "c.json", Line: 2, Col: 17}}}, c.References)

	c.Tag = ""
	assert.Equal(t, "quay.io/acme/cat", c.ImageRef())
	c.Repo = ""
	assert.Equal(t, "", c.ImageRef())

	_, err = ParseConfig("c.yaml", []byte("name: x\nrepo: quay.io/a/b:v1\nreferences: [{name: a, image: b}]\n---\nname: y\n"))
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`c.yaml:1:1: repo "quay.io/a/b:v1" must be a repository without tag or digest (the tag goes in tag)`,
		`c.yaml:4:1: a catalog config is one document; remove the extra ones`,
	}, "\n"), err.Error())
	_, err = ParseConfig("c.yaml", []byte("name: x\nrepo: localhost:5000/acme/cat\ntag: v1\nreferences: [{name: a, image: b}]\n"))
	assert.NoError(t, err, "a registry port is not a tag")
	// The extra document is named at its "---" line, past comments and a
	// block scalar line that only starts like one.
	_, err = ParseConfig("c.yaml", []byte("name: x\nreferences: [{name: a, image: b}]\nnote: |\n  ----\n--- # more\n# c\n\nname: y\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "\n"+`c.yaml:5:1: a catalog config is one document; remove the extra ones`)
}

// BenchmarkCompose composes the two largest corpus catalogs (v4.16,
// certified with olm.bundle.object properties and community) whole and
// with --heads-only, and writes the result: the work of `fbc compose`
// without validation.
func BenchmarkCompose(b *testing.B) {
	corpus := sharedtest.Corpus(b)
	srcs := []string{
		filepath.Join(corpus, "certified-operators", "catalogs", "v4.16"),
		filepath.Join(corpus, "community-operators-prod", "catalogs", "v4.16"),
	}
	for _, s := range srcs {
		if _, err := os.Stat(s); err != nil {
			sharedtest.Missing(b, "corpus not found: %v", err)
		}
	}
	for _, bc := range []struct {
		name string
		sel  Selection
	}{{"whole", Selection{}}, {"heads-only", Selection{HeadsOnly: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				res, err := Compose(context.Background(), Options{Sources: srcs, Selection: bc.sel, OnConflict: OnConflictFirst})
				if err != nil {
					b.Fatal(err)
				}
				out := filepath.Join(dir, "out")
				if err := WriteDir(context.Background(), res.Config, out, DirOptions{Folder: res.Folder, Replace: true, Expand: res.Expand}); err != nil {
					b.Fatal(err)
				}
				res.Close()
			}
		})
	}
}

func TestParseConfigDuplicateKeysAndAliases(t *testing.T) {
	_, err := ParseConfig("c.yaml", []byte("name: c\nname: d\nreferences:\n- name: a\n  image: x.json\n  image: y.json\n"))
	require.Error(t, err)
	assert.Equal(t, "c.yaml:2:1: name is given twice (first at line 1)\nc.yaml:6:3: image is given twice (first at line 5)", err.Error())

	// Aliases stand for what they name, as anywhere in YAML.
	c, err := ParseConfig("c.yaml", []byte("name: &n c\nreferences:\n- &r {name: a, image: x.json}\n- {name: *n, image: x.json}\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "c"}, []string{c.References[0].Name, c.References[1].Name})
}

// Keep drops packages as the sources are read; Cut replaces the selection.
func TestComposeKeepAndCut(t *testing.T) {
	dir := t.TempDir()
	for _, pkg := range []string{"a", "b", "c"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		blob := `{"schema":"olm.package","name":"` + pkg + `","defaultChannel":"s"}
{"schema":"olm.channel","package":"` + pkg + `","name":"s","entries":[{"name":"` + pkg + `.v1"}]}
{"schema":"olm.bundle","package":"` + pkg + `","name":"` + pkg + `.v1","image":"x/` + pkg + `:v1","properties":[{"type":"olm.package","value":{"packageName":"` + pkg + `","version":"1.0.0"}}]}
{"schema":"example.note","package":"` + pkg + `"}
`
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "catalog.json"), []byte(blob), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "extra.json"), []byte(`{"schema":"example.global"}`), 0o644))
	var mu sync.Mutex
	seen := map[string]bool{}
	res, err := Compose(context.Background(), Options{
		Sources: []string{dir},
		Keep: func(pkg string) bool {
			mu.Lock()
			seen[pkg] = true
			mu.Unlock()
			return pkg != "c"
		},
		Cut: func(cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []Note, error) {
			assert.Equal(t, []string{"a", "b"}, cfg.PackageNames())
			out := *cfg
			out.Bundles = nil
			return &out, []Note{{Message: "cut"}}, nil
		},
	})
	require.NoError(t, err)
	defer res.Close()
	assert.Equal(t, map[string]bool{"a": true, "b": true, "c": true}, seen)
	assert.Empty(t, res.Config.Bundles)
	assert.Len(t, res.Config.Others, 3)
	assert.Equal(t, []Note{{Message: "cut"}}, res.Notes)

	// WriteTree lays the result out in a folder of its own.
	out := filepath.Join(t.TempDir(), "tree", "catalog")
	require.NoError(t, WriteTree(context.Background(), res.Config, out, DirOptions{Expand: res.Expand}))
	for _, f := range []string{"catalog.json", "a/catalog.json", "b/catalog.json"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	assert.NoDirExists(t, filepath.Join(out, "c"))
}
