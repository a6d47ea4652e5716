package declcfg

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recoveryYAML is issue 15's reproduction: the channel document has a line
// indented one space too far, and the bundle after it a bad version.
const recoveryYAML = `---
schema: olm.package
name: p
defaultChannel: stable
---
schema: olm.channel
package: p
name: stable
entries:
  - name: p.v1.0.0
  - name: p.v1.1.0
     replaces: p.v1.0.0
---
schema: olm.bundle
package: p
name: p.v1.0.0
image: quay.io/p/p:v1.0.0
properties:
  - type: olm.package
    value:
      packageName: p
      version: 1.0.0.0
---
schema: olm.bundle
package: p
name: p.v1.1.0
image: quay.io/p/p:v1.1.0
properties:
  - type: olm.package
    value:
      packageName: p
      version: 1.1.0
`

func docLines(f *File) []int {
	var lines []int
	for _, d := range f.Docs {
		lines = append(lines, d.Pos.Line)
	}
	return lines
}

func TestSyntaxErrorSkipsOnlyItsYAMLDocument(t *testing.T) {
	f := ParseFile("catalog.yaml", []byte(recoveryYAML))
	require.Len(t, f.Errors, 1)
	e := f.Errors[0]
	assert.Equal(t, RuleSyntax, e.Rule)
	assert.Equal(t, Pos{File: "catalog.yaml", Line: 12, Col: 6}, e.Pos)
	assert.Equal(t, "mapping values are not allowed in this context: check the indentation of this line (skipped the document on lines 6-12; the rest of the file was read)", e.Msg)
	assert.Equal(t, &LostDoc{Pos: Pos{File: "catalog.yaml", Line: 6}, EndLine: 12, Schema: SchemaChannel, Package: "p", Name: "stable"}, e.Lost)
	assert.Equal(t, "p", e.Lost.PackageName())

	// The documents around it are read, at their own lines.
	assert.Equal(t, []int{2, 14, 24}, docLines(f))
	good := ParseFile("catalog.yaml", []byte(strings.Replace(recoveryYAML, "     replaces", "    replaces", 1)))
	require.Empty(t, good.Errors)
	for i, j := range []int{0, 2, 3} {
		require.NoError(t, sameTree(f.Docs[i].Node, good.Docs[j].Node, "doc"))
	}
}

func TestLoadReportsTheSyntaxErrorFirst(t *testing.T) {
	src := strings.Replace(recoveryYAML, "image: quay.io/p/p:v1.1.0", "image: [quay.io/p/p:v1.1.0]", 1)
	cfg, err := LoadBytes("catalog.yaml", []byte(src))
	var les LoadErrors
	require.ErrorAs(t, err, &les)
	require.Len(t, les, 2)
	assert.Equal(t, RuleSyntax, les[0].Rule)
	assert.Equal(t, Pos{File: "catalog.yaml", Line: 27, Col: 8}, les[1].Pos)
	assert.Len(t, cfg.Packages, 1)
	assert.Empty(t, cfg.Channels)
	assert.Len(t, cfg.Bundles, 2)
	assert.Equal(t, "1.0.0.0", mustPackageProperty(t, cfg.Bundles[0]).Version)
}

func mustPackageProperty(t *testing.T, b Bundle) PackageProperty {
	t.Helper()
	props, err := PackageProperties(b.Properties)
	require.NoError(t, err)
	require.Len(t, props, 1)
	return props[0]
}

func TestSyntaxErrorSkipsOnlyItsJSONValue(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		pos       Pos
		msg       string
		docs      []int
		lost      LostDoc
	}{{
		name: "one value per line",
		src: `{"schema": "olm.package", "name": "p", "defaultChannel": "stable"}
{"schema": "olm.channel", "package": "p", "name": "stable", "entries": [{"name": "p.v1"} {"name": "p.v2"}]}
{"schema": "olm.bundle", "package": "p", "name": "p.v1"}
`,
		pos:  Pos{Line: 2, Col: 90},
		msg:  `unexpected '{': ',' or ']' was expected; is a ',' missing before this value? (skipped the document on line 2; the rest of the file was read)`,
		docs: []int{1, 3},
		lost: LostDoc{Pos: Pos{Line: 2}, EndLine: 2, Schema: SchemaChannel, Package: "p", Name: "stable"},
	}, {
		name: "indented values, error inside a nested object",
		src: `{
    "schema": "olm.channel",
    "package": "p",
    "entries": [
        {
            "name": "p.v2"
            "replaces": "p.v1"
        }
    ],
    "name": "stable"
}
{
    "schema": "olm.bundle",
    "package": "p",
    "name": "p.v1"
}
`,
		pos:  Pos{Line: 7, Col: 13},
		msg:  `unexpected '"': ',' or '}' was expected; is a ',' missing before this key? (skipped the document on lines 1-11; the rest of the file was read)`,
		docs: []int{12},
		lost: LostDoc{Pos: Pos{Line: 1}, EndLine: 11, Schema: SchemaChannel, Package: "p", Name: "stable"},
	}, {
		name: "an object left open",
		src: `{"schema": "olm.package", "name": "p"
{"schema": "olm.bundle", "package": "p", "name": "p.v1"}
`,
		pos:  Pos{Line: 2, Col: 1},
		msg:  `unexpected '{': ',' or '}' was expected (skipped the document on line 1; the rest of the file was read)`,
		docs: []int{2},
		lost: LostDoc{Pos: Pos{Line: 1}, EndLine: 1, Schema: SchemaPackage, Name: "p"},
	}, {
		name: "the last value",
		src: `{"schema": "olm.package", "name": "p"}
{"schema": "olm.bundle", "package": "p", "name": "p.v1" "image": "i"}
`,
		pos:  Pos{Line: 2, Col: 57},
		msg:  `unexpected '"': ',' or '}' was expected; is a ',' missing before this key?`,
		docs: []int{1},
		lost: LostDoc{Pos: Pos{Line: 2}, EndLine: 2, Schema: SchemaBundle, Package: "p", Name: "p.v1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := ParseFile("c.json", []byte(tc.src))
			require.Len(t, f.Errors, 1)
			e := f.Errors[0]
			tc.pos.File, tc.lost.Pos.File = "c.json", "c.json"
			assert.Equal(t, tc.pos, e.Pos)
			assert.Equal(t, tc.msg, e.Msg)
			assert.Equal(t, &tc.lost, e.Lost)
			assert.Equal(t, tc.docs, docLines(f))
		})
	}
}

func TestYAMLRecoveryCases(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		errs      []string // position and message of each error
		docs      []int
	}{{
		name: "two broken documents",
		src:  "a: 1\n---\nschema: x\n  b: 2\n---\nschema: y\n---\nschema: z\nl:\n  - x\n y: 1\n---\nschema: w\n",
		errs: []string{
			"f.yaml:4:3: mapping values are not allowed in this context: check the indentation of this line (skipped the document on lines 3-4; the rest of the file was read)",
			"f.yaml:11:2: did not find expected key: check the indentation of this line (skipped the document on lines 8-11; the rest of the file was read)",
		},
		docs: []int{1, 6, 13},
	}, {
		name: "a tab",
		src:  "schema: x\n---\nschema: y\nentries:\n\t- a\n---\nschema: z\n",
		errs: []string{"f.yaml:5:1: found character that cannot start any token: indent with spaces: YAML does not allow tabs in indentation (skipped the document on lines 3-5; the rest of the file was read)"},
		docs: []int{1, 7},
	}, {
		name: "an unclosed quote stops at the next document",
		src:  "schema: x\nname: \"a\n---\nschema: y\n",
		errs: []string{"f.yaml:2: found unexpected end of stream (skipped the document on lines 1-2; the rest of the file was read)"},
		docs: []int{4},
	}, {
		name: "comments and directives stay with their document",
		src:  "# head\n---\nschema: x\n---\n# about y\n---\nschema: y\nname: [a\n---\nschema: z\n",
		errs: []string{"f.yaml:8: did not find expected ',' or ']' (skipped the document on lines 7-8; the rest of the file was read)"},
		docs: []int{3, 10},
	}, {
		name: "the last document",
		src:  "schema: x\n---\nschema: y\nname: a\n  b: c\n",
		errs: []string{"f.yaml:5:3: mapping values are not allowed in this context: check the indentation of this line"},
		docs: []int{1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := ParseFile("f.yaml", []byte(tc.src))
			var got []string
			for _, e := range f.Errors {
				if e.Rule == RuleSyntax {
					got = append(got, e.Error())
				}
			}
			assert.Equal(t, tc.errs, got)
			assert.Equal(t, tc.docs, docLines(f))
		})
	}
}

// The indentation hint is for lines that fit no open block; valid YAML has
// none.
func TestMisindentedFindsNothingInValidYAML(t *testing.T) {
	for _, src := range []string{
		"a:\n- x\n- y\nb: 1\n",
		"a:\n  - name: x\n    replaces: y\n    skips:\n    - z\n  - name: w\nb: {}\n",
		"a: |\n  text: with a colon\n    - and a dash\nb: >-\n  folded\n",
		"a: long plain\n  continued\nb: 1\n",
		"a: &anchor\n  b: 1\nc: !!map\n  d: 2\n",
		"- a\n- b: 1\n  c: 2\n-\n  d: 3\n",
		"a: 1 # comment\n# b: 2\n  # c\nd:\n  e: 1\n",
		"---\na:\n  b: 1\n---\nc:\n  d: 1\n",
	} {
		lines := strings.Split(src, "\n")
		_, _, found := misindented(lines, 1, 1, false)
		assert.False(t, found, "%q", src)
	}
}

func TestTopFields(t *testing.T) {
	for _, tc := range []struct {
		src               string
		json              bool
		schema, pkg, name string
	}{
		{"schema: olm.bundle\npackage: 'p'\nname: \"p.v1\" # c\nproperties:\n  - name: nested\n", false, SchemaBundle, "p", "p.v1"},
		{"entries:\n  - package: no\nschema: olm.channel # c\n", false, SchemaChannel, "", ""},
		{`{"entries": [{"name": "nested", "package": "no"}], "schema": "olm.channel", "name": "s", "package": "p"`, true, SchemaChannel, "p", "s"},
		{`{"schema": "x", "name": "a\"b", "package": {"name": "no"}}`, true, "x", "", `a"b`},
		{"{schema: y, \"name\": \"n\"\n", false, "", "", "n"},
		{"schema: olm.channel\npackage: [p\nname: s\n", false, SchemaChannel, "", "s"},
	} {
		schema, pkg, name := topFields([]byte(tc.src), tc.json)
		assert.Equal(t, []string{tc.schema, tc.pkg, tc.name}, []string{schema, pkg, name}, "%q", tc.src)
	}
}
