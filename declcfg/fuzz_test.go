package declcfg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are small inputs covering both parsers and every decode path; the
// corpus files add real-world shapes when they are present.
var fuzzSeeds = []string{
	"",
	"{}",
	`{"schema":"olm.package","name":"a","defaultChannel":"s","icon":{"base64data":"aGk=","mediatype":"image/png"}}`,
	`{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1","replaces":"a.v0","skips":["x"],"skipRange":"<1.0.0"}]}`,
	`{"schema":"olm.bundle","package":"a","name":"a.v1","image":"i","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}],"relatedImages":[{"name":"","image":"r"}]}`,
	`{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"m"}]}`,
	"{\"schema\":\"x\"}\n{\"schema\":\"y\"}\n---\n",
	"[1,2,3]",
	"---\nschema: olm.package\nname: a\n---\n# only a comment\n",
	"schema: olm.bundle\nproperties:\n- type: t\n  value: &a {x: [*a]}\n",
	"a: &a [*a, *a]\nb: &b [*a, *a]\nc: &c [*b, *b]\nschema: x\n",
	"schema: x\n<<: {a: 1}\n",
	"schema: x\nv: .inf\n",
	"schema: x\nk: 0x1F\nf: 1_000.5\nb: yes\n",
	"\x00\x01binary",
	"\xef\xbb\xbf{\"schema\":\"bom\"}",
	"{\"schema\": \"s\", \"a\": \"\\ud800\"}",
	// Syntax errors the loader skips a document for, and reads on.
	"schema: x\n---\nschema: olm.channel\npackage: p\nentries:\n  - name: a\n     replaces: b\n---\nschema: y\n\tz: 1\n---\nschema: z\n",
	"{\"schema\":\"x\"}\n{\"schema\":\"olm.channel\",\"package\":\"p\" \"name\":\"s\"}\n{\"schema\":\"y\",\n{\"schema\":\"z\"}\n",
	// The limits (limits.go): nesting past MaxDepth in flow YAML, block
	// YAML and JSON, and brackets that only look like it (quoted, in
	// comments, in plain scalars).
	"schema: x\nv: " + strings.Repeat("[", 1001) + "\n---\nschema: y\n",
	"schema: x\nv: " + strings.Repeat("{a: ", 1001) + "\n",
	"{\"schema\": \"x\", \"v\": " + strings.Repeat("[", 1001) + "}\n{\"schema\": \"y\"}\n",
	"schema: x\nq: '" + strings.Repeat("[", 1500) + "'\nd: \"" + strings.Repeat("{", 1500) + "\"\n# " + strings.Repeat("[", 1500) + "\np: a[0]{1}\n",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "catalog", "*", "catalog.*"))
	for _, m := range matches {
		if data, err := os.ReadFile(m); err == nil {
			f.Add(data)
		}
	}
}

// FuzzParseFile checks that no input makes the loader panic or hang, that
// every problem it reports names the file, and that a streamed file
// (WalkOptions.Stream) yields what ParseFile does.
func FuzzParseFile(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		done := make(chan *File, 1)
		var streamDiff string
		go func() {
			f := ParseFile("fuzz.yaml", data)
			for _, doc := range f.Docs {
				DecodeDocument(doc)
			}
			streamDiff = sameParse("fuzz.yaml", data)
			done <- f
		}()
		var file *File
		select {
		case file = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("loading took more than 5s on %q", data)
		}
		if streamDiff != "" {
			t.Fatalf("streamed: %s\ninput: %q", streamDiff, data)
		}
		for _, e := range file.Errors {
			if e.Pos.File != "fuzz.yaml" {
				t.Fatalf("error without file: %v", e)
			}
			if e.Rule == "" {
				t.Fatalf("error without rule: %v", e)
			}
		}
		for _, doc := range file.Docs {
			blob, errs, _ := DecodeDocument(doc)
			for _, e := range errs {
				if e.Pos.File != "fuzz.yaml" {
					t.Fatalf("decode error without file: %v", e)
				}
			}
			_ = blob
		}
	})
}

// FuzzDecodeDocument round-trips whatever decodes: writing the loaded
// catalog and loading it again must give the same output. A Spool fed the
// catalog in two parts writes the same bytes as Write.
func FuzzDecodeDocument(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		cfg, err := LoadBytes("fuzz.json", data)
		if err != nil {
			return
		}
		var first bytes.Buffer
		if err := WriteJSON(cfg, &first); err != nil {
			t.Fatalf("write: %v", err)
		}
		cfg2, err := LoadBytes("again.json", first.Bytes())
		if err != nil {
			t.Fatalf("reloading written output: %v\n%s", err, first.String())
		}
		var second bytes.Buffer
		if err := WriteJSON(cfg2, &second); err != nil {
			t.Fatalf("write: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("write(load(write(x))) != write(x):\n%s\n---\n%s", first.String(), second.String())
		}
		s, err := NewSpool(FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		a, b := halves(cfg)
		if err := s.Add(0, a); err != nil {
			t.Fatalf("spool: %v", err)
		}
		if err := s.Add(0, b); err != nil {
			t.Fatalf("spool: %v", err)
		}
		var spooled bytes.Buffer
		if _, err := s.WriteTo(&spooled); err != nil {
			t.Fatalf("spool: %v", err)
		}
		if !bytes.Equal(first.Bytes(), spooled.Bytes()) {
			t.Fatalf("spool != write:\n%s\n---\n%s", spooled.String(), first.String())
		}
	})
}

// halves splits cfg in two, each kind of blob at its middle, as a stream
// reader would hand over two files.
func halves(cfg *DeclarativeConfig) (*DeclarativeConfig, *DeclarativeConfig) {
	return &DeclarativeConfig{
			Packages:     cfg.Packages[:len(cfg.Packages)/2],
			Channels:     cfg.Channels[:len(cfg.Channels)/2],
			Bundles:      cfg.Bundles[:len(cfg.Bundles)/2],
			Deprecations: cfg.Deprecations[:len(cfg.Deprecations)/2],
			Others:       cfg.Others[:len(cfg.Others)/2],
		}, &DeclarativeConfig{
			Packages:     cfg.Packages[len(cfg.Packages)/2:],
			Channels:     cfg.Channels[len(cfg.Channels)/2:],
			Bundles:      cfg.Bundles[len(cfg.Bundles)/2:],
			Deprecations: cfg.Deprecations[len(cfg.Deprecations)/2:],
			Others:       cfg.Others[len(cfg.Others)/2:],
		}
}

// FuzzPackageProperty checks the olm.package fast path against
// encoding/json: whatever it accepts, it reads as the general path does.
func FuzzPackageProperty(f *testing.F) {
	for _, s := range []string{`{"packageName":"p","version":"1.0.0"}`, ` { "version" : "1.0.0-rc.1", "packageName":"p", "release":"2" } `,
		`{"packageName":"p","version":"1.0.0","release":2}`, `{"PackageName":"p"}`, `{"packageName":"p","packageName":"q"}`, `{}`,
		`{"packageName":"a\"b"}`, `{"version":"1.0.0",}`, `{"release":""}`, `{"version":"é"}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast PackageProperty
		if !simplePackageProperty(data, &fast) {
			return
		}
		var slow PackageProperty
		if err := decodePackagePropertyJSON(data, &slow); err != nil {
			t.Fatalf("%q: the fast path accepts what encoding/json refuses: %v", data, err)
		}
		if fast != slow {
			t.Fatalf("%q: fast path %+v, encoding/json %+v", data, fast, slow)
		}
	})
}
