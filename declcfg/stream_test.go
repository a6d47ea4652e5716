package declcfg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// sameParse reports how streaming data differs from ParseFile ("" when it
// does not): the same documents, with the same trees, and the same errors.
// Each document is compared as it is handed over and then released, so that
// the documents after it are parsed into the memory of its tree
// (Document.Release) and must come out the same all the same.
func sameParse(name string, data []byte) string {
	want := ParseFile(name, data)
	got := &File{Path: name, pending: &pendingText{data: data}}
	n := 0
	var diff string
	got.Each(func(d Document) {
		defer d.Release()
		i := n
		n++
		switch {
		case diff != "":
		case i >= len(want.Docs):
			diff = fmt.Sprintf("%d documents parsed, more streamed", len(want.Docs))
		case d.Pos != want.Docs[i].Pos:
			diff = fmt.Sprintf("document %d at %v streamed, %v parsed", i, d.Pos, want.Docs[i].Pos)
		default:
			if err := sameTree(d.Node, want.Docs[i].Node, fmt.Sprintf("document %d", i)); err != nil {
				diff = err.Error()
			}
		}
	})
	if diff != "" {
		return diff
	}
	if n != len(want.Docs) {
		return fmt.Sprintf("%d documents streamed, %d parsed", n, len(want.Docs))
	}
	if len(got.Docs) != 0 {
		return "a streamed file keeps its documents"
	}
	if g, w := fmt.Sprint(errorList(got.Errors)), fmt.Sprint(errorList(want.Errors)); g != w {
		return fmt.Sprintf("errors streamed:\n%s\nparsed:\n%s", g, w)
	}
	return ""
}

func errorList(errs []*LoadError) []string {
	var out []string
	for _, e := range errs {
		s := fmt.Sprintf("%v %s %s io=%v warning=%v", e.Pos, e.Rule, e.Msg, e.IO, e.Warning)
		if e.Lost != nil {
			s += fmt.Sprintf(" lost=%+v", *e.Lost)
		}
		out = append(out, s)
	}
	return out
}

// TestStreamParse: a streamed file yields the documents and errors of
// ParseFile, for well-formed streams and for each kind of problem the
// loader reports.
func TestStreamParse(t *testing.T) {
	pkg := "schema: olm.package\nname: a\n"
	bundle := "schema: olm.bundle\nname: a.v1\npackage: a\nimage: x\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\n"
	cases := map[string]string{
		"one document":          pkg,
		"separated":             "---\n" + pkg + "---\n" + bundle,
		"trailing separator":    pkg + "---\n",
		"blank documents":       "---\n---\n" + pkg + "---\n\n---\n" + bundle,
		"comments":              "# head\n" + pkg + "# between\n---\n# lead\n" + bundle,
		"comment-only document": pkg + "---\n# nothing here\n---\n" + bundle,
		"syntax error middle":   pkg + "---\nschema: olm.channel\n  bad: [\n---\n" + bundle,
		"syntax error last":     pkg + "---\nschema: [\n",
		"bad separator":         pkg + "--- schema: x\n" + bundle,
		"not an object":         pkg + "---\n- a\n- b\n---\nplain\n---\n" + bundle,
		"alias root":            "a: &x\n  schema: olm.package\n  name: p\n---\n" + bundle,
		"flow and quotes":       "{schema: olm.package, name: 'a'}\n---\nschema: \"olm.bundle\"\nname: >-\n  folded\n  text\n",
		"tabs":                  "schema:\tolm.package\nname: a\n",
		"crlf":                  "schema: olm.package\r\nname: a\r\n---\r\n" + bundle,
		"directive":             "%YAML 1.2\n---\n" + pkg,
		"document end":          pkg + "...\n---\n" + bundle,
		"byte order mark":       "\xef\xbb\xbf" + pkg + "---\n" + bundle,
		"duplicate keys":        pkg + "name: b\n---\n" + bundle,
		"json stream":           `{"schema":"olm.package","name":"a"}` + "\n" + `{"schema":"olm.bundle","name":"a.v1",` + "\n" + `{"schema":"olm.channel","package":"a","name":"s"}` + "\n",
		"binary":                pkg + "\x00\x01",
		"empty":                 "",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if d := sameParse("f.yaml", []byte(src)); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestStreamCorpus: every file of three real catalogs streams as it
// parses, as does each with a syntax error put into its middle.
func TestStreamCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads whole corpus catalogs")
	}
	root := sharedtest.Corpus(t)
	n := 0
	for _, dir := range []string{"certified-operators/catalogs/v4.16", "certified-operators/catalogs/v4.18", "community-operators-prod/catalogs/v4.22"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*", "catalog.*"))
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameParse(p, data); d != "" {
				t.Errorf("%s: %s", p, d)
			}
			// Break the line in the middle of the file.
			mid := len(data) / 2
			if nl := strings.IndexByte(string(data[mid:]), '\n'); nl >= 0 {
				broken := append(append(append([]byte{}, data[:mid+nl+1]...), "  - : [\"\n"...), data[mid+nl+1:]...)
				if d := sameParse(p, broken); d != "" {
					t.Errorf("%s, broken: %s", p, d)
				}
			}
			n++
		}
	}
	if n == 0 {
		sharedtest.Missing(t, "no corpus catalogs")
	}
}

// TestWalkStream: walked with Stream, files arrive unparsed, each parses once
// in Each, and the tree ends up as it does without Stream.
func TestWalkStream(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.yaml": "schema: olm.package\nname: a\n---\nschema: olm.channel\npackage: a\nname: s\nentries:\n- name: a.v1\n",
		"b.json": `{"schema":"olm.package","name":"b"}` + "\n",
		"c.yaml": "schema: olm.package\nname: c\n---\nschema: [\n",
		"d.bin":  "\x00\x01\x02",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(opts WalkOptions) []string {
		var out []string
		err := WalkPath(context.Background(), dir, nil, opts, func(f *File) error {
			if opts.Stream && (len(f.Docs) != 0 || len(f.Errors) != 0) {
				t.Errorf("%s: parsed before Each", f.Path)
			}
			f.Each(func(d Document) {
				out = append(out, fmt.Sprintf("%s %v %s", f.Path, d.Pos, scalarAt(t, d.Node, "schema")))
			})
			n := len(out)
			f.Each(func(d Document) { out = append(out, "again") })
			if opts.Stream && len(out) != n {
				t.Errorf("%s: Each read a streamed file twice", f.Path)
			}
			out = append(out, errorList(f.Errors)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain, streamed := walk(WalkOptions{}), walk(WalkOptions{Stream: true, Borrow: true})
	// Without Stream, a second Each repeats the documents; drop those.
	var once []string
	for _, s := range plain {
		if s != "again" {
			once = append(once, s)
		}
	}
	if strings.Join(once, "\n") != strings.Join(streamed, "\n") {
		t.Errorf("walked:\n%s\nstreamed:\n%s", strings.Join(once, "\n"), strings.Join(streamed, "\n"))
	}
	if late := walk(WalkOptions{Stream: true, ReadInEach: true, Borrow: true}); strings.Join(late, "\n") != strings.Join(streamed, "\n") {
		t.Errorf("read in Each:\n%s\nstreamed:\n%s", strings.Join(late, "\n"), strings.Join(streamed, "\n"))
	}
	if !strings.Contains(strings.Join(streamed, "\n"), IgnoreFile) {
		t.Errorf("the binary file's error has no %s hint:\n%s", IgnoreFile, strings.Join(streamed, "\n"))
	}
}

// TestWalkReadInEach: with ReadInEach the walk hands over files unread;
// Each reads what the file holds then, and a file that is gone or has
// grown past the limit since it was listed gets an io-error from Each.
func TestWalkReadInEach(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "schema: olm.package\nname: a\n")
	write("b.yaml", "schema: olm.package\nname: b\n")
	write("c.yaml", "schema: olm.package\nname: c\n")
	var out []string
	opts := WalkOptions{Concurrency: 1, Ahead: 1, Stream: true, ReadInEach: true, MaxFileSize: 64}
	err := WalkPath(context.Background(), dir, nil, opts, func(f *File) error {
		switch filepath.Base(f.Path) {
		case "a.yaml":
			// Changed after the walk listed it: Each reads it as it is now.
			write("a.yaml", "schema: olm.package\nname: changed\n")
		case "b.yaml":
			if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
				t.Fatal(err)
			}
		case "c.yaml":
			write("c.yaml", "schema: olm.package\nname: c\ndescription: "+strings.Repeat("x", 64)+"\n")
		}
		f.Each(func(d Document) { out = append(out, f.Path+" "+scalarAt(t, d.Node, "name")) })
		out = append(out, errorList(f.Errors)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(out, "\n")
	for _, want := range []string{
		"a.yaml changed",
		"b.yaml io-error cannot open: no such file or directory io=true",
		"c.yaml io-error file is larger than the 64-byte limit io=true",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
