package declcfg

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func errStrings(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, le := range err.(LoadErrors) {
		out = append(out, le.Rule+" "+le.Error())
	}
	return out
}

func TestLoadPositionsJSONAndYAML(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/catalog.json": "{\"schema\":\"olm.package\",\"name\":\"a\",\"defaultChannel\":\"s\"}\n" +
			"{\n  \"schema\": \"olm.channel\", \"package\": \"a\", \"name\": \"s\",\n  \"entries\": [\n    {\"name\": \"a.v1\"}\n  ]\n}\n",
		"b/catalog.yaml": "---\nschema: olm.package\nname: b\n---\nschema: olm.bundle\nname: b.v1\npackage: b\nimage: x\nproperties:\n- type: olm.package\n  value: {packageName: b, version: 1.0.0}\n",
	})
	cfg, err := Load(context.Background(), []string{dir}, LoadOptions{})
	require.NoError(t, err)
	require.Len(t, cfg.Packages, 2)
	assert.Equal(t, Pos{File: filepath.Join(dir, "a/catalog.json"), Line: 1, Col: 1}, cfg.Packages[0].Pos)
	assert.Equal(t, 2, cfg.Channels[0].Pos.Line)
	assert.Equal(t, Pos{File: filepath.Join(dir, "a/catalog.json"), Line: 5, Col: 5}, cfg.Channels[0].Entries[0].Pos)
	assert.Equal(t, 5, cfg.Bundles[0].Pos.Line)
	assert.Equal(t, 10, cfg.Bundles[0].Properties[0].Pos.Line)
	assert.JSONEq(t, `{"packageName":"b","version":"1.0.0"}`, string(cfg.Bundles[0].Properties[0].Value))
}

func TestLoadBadInputNamesFileAndLine(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"array.json":     "[1, 2]\n",
		"yamlarray.yaml": "- schema: olm.package\n",
		"noschema.yaml":  "name: foo\n",
		"comment.md":     "# Title\n",
		"empty.yaml":     "",
		"trunc.json":     "{\"schema\": \"olm.package\",\n \"name\": \"x\"\n",
		"badyaml.yaml":   "schema: olm.package\nname: [a,\n",
		"binary.bin":     "\x00\x01\x02schema",
		"dup.yaml":       "schema: olm.package\nname: a\nname: b\n",
		"jsondash.json":  "{\"schema\":\"x.custom\"}\n---\n",
	})
	_, err := Load(context.Background(), []string{dir}, LoadOptions{})
	require.Error(t, err)
	got := strings.Join(errStrings(err), "\n")
	for _, want := range []string{
		"not-object " + filepath.Join(dir, "array.json") + ":1:1: document is a list",
		"not-object " + filepath.Join(dir, "yamlarray.yaml") + ":1:1: document is a list",
		"missing-schema " + filepath.Join(dir, "noschema.yaml") + ":1:1: document has no \"schema\"",
		"empty-document " + filepath.Join(dir, "comment.md") + ":1: file holds only comments",
		"syntax " + filepath.Join(dir, "trunc.json") + ":3:1: unexpected end of file",
		"syntax " + filepath.Join(dir, "badyaml.yaml") + ":2: did not find expected node content",
		"binary-file " + filepath.Join(dir, "binary.bin") + ":1: not a text file",
		"duplicate-key " + filepath.Join(dir, "dup.yaml") + ":3:1: duplicate key \"name\" (first defined at line 2)",
		"syntax " + filepath.Join(dir, "jsondash.json") + ":2:1: unexpected '---'",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "empty.yaml")
}

func TestIndexIgnoreNested(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".indexignore":     "*.txt\nskipdir/\n",
		"notes.txt":        "not yaml: [",
		"skipdir/x.yaml":   "not yaml: [",
		"sub/.indexignore": "bad.yaml\n",
		"sub/bad.yaml":     "not yaml: [",
		"sub/good.yaml":    "schema: olm.package\nname: good\n",
		"other/bad.yaml":   "schema: olm.package\nname: other\n",
	})
	cfg, err := Load(context.Background(), []string{dir}, LoadOptions{})
	require.NoError(t, err)
	var names []string
	for _, p := range cfg.Packages {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"other", "good"}, names)
}

func TestSymlinks(t *testing.T) {
	dir := writeTree(t, map[string]string{"real/a.yaml": "schema: olm.package\nname: a\n"})
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "dirlink")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "loop1"), filepath.Join(dir, "loop2")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "loop2"), filepath.Join(dir, "loop1")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real", "a.yaml"), filepath.Join(dir, "filelink.yaml")))
	cfg, err := Load(context.Background(), []string{dir}, LoadOptions{})
	got := strings.Join(errStrings(err), "\n")
	assert.Contains(t, got, "symlink "+filepath.Join(dir, "dirlink")+": symbolic link to a directory")
	assert.Contains(t, got, "symlink "+filepath.Join(dir, "loop1")+": symbolic link cannot be followed")
	assert.Len(t, cfg.Packages, 2) // real/a.yaml and filelink.yaml
}

func TestLoadStdinAndFile(t *testing.T) {
	cfg, err := Load(context.Background(), []string{"-"}, LoadOptions{Stdin: strings.NewReader(`{"schema":"olm.package","name":"s"}`)})
	require.NoError(t, err)
	assert.Equal(t, "-", cfg.Packages[0].Pos.File)
}

func TestWriteOrderMatchesOpm(t *testing.T) {
	in := `{"schema":"custom.z","package":"b","zeta":1,"alpha":{"y":1,"x":2}}
{"schema":"olm.bundle","package":"b","name":"b.v2","image":"i","properties":[{"type":"olm.package","value":{"version":"2.0.0","packageName":"b"}}]}
{"schema":"olm.deprecations","package":"b","entries":[]}
{"schema":"olm.channel","package":"b","name":"z","entries":[{"name":"b.v2"}]}
{"schema":"olm.bundle","package":"b","name":"b.v1","image":"i"}
{"schema":"olm.channel","package":"b","name":"a","entries":[{"name":"b.v1"}]}
{"schema":"loose"}
{"schema":"olm.package","name":"b","defaultChannel":"a"}
{"schema":"olm.package","name":"a","defaultChannel":"x"}
`
	cfg, err := LoadBytes("in.json", []byte(in))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(cfg, &buf))
	var order []string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, `    "schema"`) || strings.HasPrefix(line, `    "name"`) {
			order = append(order, strings.TrimSpace(line))
		}
	}
	assert.Equal(t, []string{
		`"schema": "olm.package",`, `"name": "a",`,
		`"schema": "olm.package",`, `"name": "b",`,
		`"schema": "olm.channel",`, `"name": "a",`,
		`"schema": "olm.channel",`, `"name": "z",`,
		`"schema": "olm.bundle",`, `"name": "b.v1",`,
		`"schema": "olm.bundle",`, `"name": "b.v2",`,
		`"schema": "custom.z",`,
		`"schema": "olm.deprecations",`,
		`"schema": "loose"`,
	}, order)
	// Property values and custom blobs are key-sorted, as opm v1.73.0's
	// render of this input writes them (it reads every document into a map).
	assert.Contains(t, buf.String(), "\"packageName\": \"b\",\n                \"version\": \"2.0.0\"")
	assert.Contains(t, buf.String(), "{\n    \"alpha\": {\n        \"x\": 2,\n        \"y\": 1\n    },\n    \"package\": \"b\",\n    \"schema\": \"custom.z\",\n    \"zeta\": 1\n}")
}

// Comment-only documents are errors wherever they are, at the comment's line
// (opm's reader decodes them as empty objects); blank ones are not.
func TestCommentOnlyDocuments(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"a: 1\n---\n# c\n", []string{"3:document holds only comments"}},
		{"schema: x\n---\n# c\n---\nschema: y\n", []string{"3:document holds only comments"}},
		{"# licence\n---\nschema: x\n", []string{"1:document holds only comments"}},
		{"# Title\n", []string{"1:file holds only comments"}},
		// As opm v1.73.0 reads them (its validate, one file beside a valid
		// package): a "---" opens a chunk when it comes first, and ends one
		// that has lines; a chunk of lines without content is an empty
		// object, which opm rejects.
		{"---\n---\nschema: x\n---\n", []string{"1:document after this '---' is empty"}},
		{"---\n\n   \n", []string{"1:document after this '---' is empty"}},
		{"---\n", []string{"1:document after this '---' is empty"}},
		{"--- # x\n\n", []string{"1:document after this '---' is empty"}},
		{"schema: x\n---\n---\n", []string{"3:document after this '---' is empty"}},
		{"schema: x\n---\n\n", []string{"3:document holds only blank lines"}},
		{"\n\n---\nschema: x\n", []string{"1:document holds only blank lines"}},
		{"\n", []string{"1:file holds only blank lines"}},
		{"   ", []string{"1:file holds only blank lines"}},
		{"---\n# c\n", []string{"2:document holds only comments"}},
		// A chunk of "..." lines holds no object: opm's YAML reader fails
		// on it (did not find expected node content).
		{"schema: x\n---\n...\n", []string{"3:document holds only '...' (document end) lines"}},
		{"schema: x\n---\n---\n...\n", []string{"3:document after this '---' is empty"}},
		{"schema: x\n...\n---\nschema: y\n", nil},
		{"", nil},
		{"---\nschema: x\n---\n", nil},
		{"schema: x\n---\n---\nschema: y\n", nil},
		{"schema: x\n\n\n", nil},
		{"schema: x\n# trailing comment in a document with content\n", nil},
		{"schema: x\n--- # a separator with a comment\nschema: y\n", nil},
		{"a: |\n  ---\n  # not a comment: block content\nschema: x\n", nil},
		{"--- {schema: x}\n", []string{"1:a line starting with '---' separates documents and may hold only a comment after it (opm: invalid Yaml document separator)"}},
		{"schema: x\n----\nschema: y\n", []string{"2:a line starting with '---' separates documents and may hold only a comment after it (opm: invalid Yaml document separator)"}},
	} {
		f := ParseFile("f.yaml", []byte(tc.src))
		var got []string
		for _, e := range f.Errors {
			if e.Rule == RuleEmptyDocument || strings.Contains(e.Msg, "separat") {
				got = append(got, fmt.Sprintf("%d:%s", e.Pos.Line, e.Msg[:strings.Index(e.Msg, ";")]))
			}
		}
		assert.Equal(t, tc.want, got, "%q", tc.src)
	}
}

// lockedFS denies everything under one directory, as a directory without
// read and search permission does (root, who runs some CI, cannot make one).
type lockedFS struct {
	fsys   fstest.MapFS
	locked string
}

func (l lockedFS) Open(name string) (fs.File, error) {
	if name == l.locked || strings.HasPrefix(name, l.locked+"/") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return l.fsys.Open(name)
}

func TestUnreadableDirectoryReportedOnce(t *testing.T) {
	fsys := lockedFS{locked: "sub", fsys: fstest.MapFS{
		"good.yaml":          {Data: []byte("schema: olm.package\nname: good\n")},
		"sub/catalog.yaml":   {Data: []byte("schema: olm.package\nname: hidden\n")},
		"sub/.indexignore":   {Data: []byte("*.md\n")},
		"other/.indexignore": {Data: []byte("*.md\n")},
	}}
	var got []string
	err := WalkFS(context.Background(), fsys, "cat", WalkOptions{}, func(f *File) error {
		for _, le := range f.Errors {
			got = append(got, le.Rule+" "+le.Error())
		}
		return nil
	})
	require.NoError(t, err)
	// The directory, not also its .indexignore, which cannot be read for
	// the same reason.
	assert.Equal(t, []string{"io-error " + filepath.Join("cat", "sub") + ": cannot open: permission denied"}, got)
}

func TestStandardInputLimitAndInterrupt(t *testing.T) {
	var got []string
	collect := func(f *File) error {
		for _, le := range f.Errors {
			got = append(got, le.Rule+" "+le.Error())
		}
		return nil
	}
	// Larger than the limit: an io-error, not the whole input in memory.
	err := WalkPath(context.Background(), "-", strings.NewReader(strings.Repeat("# x\n", 100)), WalkOptions{MaxFileSize: 64}, collect)
	require.NoError(t, err)
	assert.Equal(t, []string{"io-error -: standard input is larger than the 64-byte limit"}, got)

	// A pipe nobody writes to: an interrupt ends the wait.
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err = WalkPath(ctx, "-", r, WalkOptions{}, collect)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestBinaryStreamIsNotReadToTheEnd(t *testing.T) {
	// An endless stream of NUL bytes (/dev/zero) is read up to the chunk
	// that shows it is binary.
	var got []string
	err := WalkPath(context.Background(), "-", zeros{}, WalkOptions{}, func(f *File) error {
		for _, le := range f.Errors {
			got = append(got, le.Rule)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{RuleBinaryFile}, got)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A list that is missing (or null) and an empty list are written back as
// opm writes them: null and []. The expected text is opm v1.73.0's output
// for the same catalog (opm render DIR -o json).
func TestWriteMissingAndEmptyLists(t *testing.T) {
	in := `{"schema":"olm.channel","package":"p","name":"a"}
{"schema":"olm.channel","package":"p","name":"b","entries":null}
{"schema":"olm.channel","package":"p","name":"c","entries":[]}
{"schema":"olm.deprecations","package":"p"}
{"schema":"olm.deprecations","package":"p","entries":[]}
`
	cfg, err := LoadBytes("in.json", []byte(in))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(cfg, &buf))
	compact := strings.Join(strings.Fields(buf.String()), " ")
	assert.Equal(t, `{ "schema": "olm.channel", "name": "a", "package": "p", "entries": null }`+
		` { "schema": "olm.channel", "name": "b", "package": "p", "entries": null }`+
		` { "schema": "olm.channel", "name": "c", "package": "p", "entries": [] }`+
		` { "schema": "olm.deprecations", "package": "p", "entries": null }`+
		` { "schema": "olm.deprecations", "package": "p", "entries": [] }`, compact)
}

// Keep skips documents before they are decoded: a refused document's
// problems are not reported. It sees each document's identity as
// catalogd files it (keys without regard to case; an olm.package's
// package is its name), in catalog order.
func TestLoadKeep(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.yaml": "schema: olm.package\nname: foo\n---\nSchema: olm.bundle\nPACKAGE: bar\nname: bar.v1\nproperties: 5\n",
		"b.json": `{"schema":"olm.channel","package":"foo","name":"stable","entries":[]}` + "\n" + `{"schema":"olm.bundle","package":"foo","name":7}` + "\n",
	})
	var seen []string
	cfg, err := Load(context.Background(), []string{dir}, LoadOptions{Keep: func(d Document) bool {
		schema, pkg, name := d.Identity()
		seen = append(seen, schema+"/"+pkg+"/"+name)
		return pkg == "foo" && name != ""
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"olm.package/foo/foo", "olm.bundle/bar/bar.v1", "olm.channel/foo/stable", "olm.bundle/foo/"}, seen)
	assert.Len(t, cfg.Packages, 1)
	assert.Len(t, cfg.Channels, 1)
	assert.Empty(t, cfg.Bundles)
}
