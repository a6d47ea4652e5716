package declcfg

import (
	"errors"
	"strings"
	"testing"
)

// Each parser refuses a text past the limits, as a syntax error at its
// line (the fast YAML path, the per-document path, yaml.v3 and the JSON
// parser alike), and the other documents of the file are read.
func TestLimits(t *testing.T) {
	big := strings.Repeat("x", MaxScalar+1)
	deepFlow := strings.Repeat("[", MaxDepth+1)
	var block strings.Builder
	for i := range MaxDepth + 1 {
		block.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	block.WriteString(strings.Repeat(" ", MaxDepth+1) + "v\n")
	depth := "nesting deeper than 1000 levels, the limit fbc reads"
	value := "a value longer than 16 MiB, the limit of one value"
	for name, tc := range map[string]struct {
		text, want string
		docs       int // documents read besides the one refused
	}{
		"flow sequences":         {"a: 1\n---\nb: " + deepFlow + "\n---\nc: 1\n", "f.yaml:3:1004: " + depth, 2},
		"flow mappings":          {"b: " + strings.Repeat("{a: ", MaxDepth+1) + "\n", "f.yaml:1:" + "4004: " + depth, 0},
		"block mappings":         {block.String(), "f.yaml:1001:1001: " + depth, 0},
		"yaml.v3 block mappings": {"# a comment sends the text to yaml.v3\n" + block.String(), "f.yaml:1002:1001: " + depth, 0},
		"json":                   {"{\"a\": 1}\n{\"b\": " + deepFlow + "}\n", "f.yaml:2:1006: " + depth, 1},
		"plain value":            {"a: 1\n---\nb: " + big + "\n", "f.yaml:3:4: " + value, 1},
		"plain value on lines":   {"b: x\n  " + big[:MaxScalar/2] + "\n  " + big[:MaxScalar/2] + "\n", "f.yaml:1:4: " + value, 0},
		"quoted value":           {"b: '" + big + "'\n", "f.yaml:1:4: " + value, 0},
		"quoted value on lines":  {"b: \"x\n  " + big + "\"\n", "f.yaml:1:4: " + value, 0},
		"literal value":          {"b: |\n  " + big + "\n", "f.yaml:1:4: " + value, 0},
		"key":                    {"? " + big + "\n: 1\n", "f.yaml:1:3: " + value, 0},
		"yaml.v3 flow value":     {"b: [" + big + "]\n", "f.yaml:1:5: " + value, 0},
		"json value":             {"{\"b\": \"" + big + "\"}\n", "f.yaml:1:7: " + value, 0},
	} {
		t.Run(name, func(t *testing.T) {
			f := ParseFile("f.yaml", []byte(tc.text))
			if len(f.Errors) != 1 || !strings.HasPrefix(f.Errors[0].Error(), tc.want) || f.Errors[0].Rule != RuleSyntax {
				t.Fatalf("errors %.200v, want %s", f.Errors, tc.want)
			}
			if len(f.Docs) != tc.docs {
				t.Errorf("%d documents read, want %d", len(f.Docs), tc.docs)
			}
			_, err := ParseYAML([]byte(tc.text))
			var le *LimitError
			if !errors.As(err, &le) {
				t.Errorf("ParseYAML: %.200v, want a *LimitError", err)
			}
		})
	}
}

// What is within the limits, or only looks past them, is read: brackets
// in quoted scalars and comments, a thousand levels exactly, a file of
// many documents that together pass MaxDocument.
func TestWithinLimits(t *testing.T) {
	for name, text := range map[string]string{
		"quoted brackets":  "a: '" + strings.Repeat("[", 2000) + "'\nb: \"" + strings.Repeat("{", 2000) + "\\\"\"\n",
		"comment brackets": "a: 1 # " + strings.Repeat("[", 2000) + "\n# " + strings.Repeat("{", 2000) + "\n",
		"1000 levels":      "a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n",
		"balanced plain":   "a:\n" + strings.Repeat("- a[0]{1}\n", 2000),
	} {
		if f := ParseFile("f.yaml", []byte(text)); len(f.Errors) > 0 || len(f.Docs) != 1 {
			t.Errorf("%s: %d documents, errors %.200v", name, len(f.Docs), f.Errors)
		}
		if err := CheckYAMLText([]byte(text)); err != nil {
			t.Errorf("%s: CheckYAMLText: %v", name, err)
		}
	}
	// Two documents of 40 MiB each, of short lines.
	line := "k" + strings.Repeat("v", 60) + ": 1\n"
	doc := strings.Repeat(line, 40<<20/len(line))
	text := []byte("a: 1\n" + doc + "---\nb: 1\n" + doc)
	if f := ParseFile("f.yaml", text); len(f.Errors) > 0 || len(f.Docs) != 2 {
		t.Errorf("two documents of 40 MiB: %d documents, errors %.200v", len(f.Docs), f.Errors)
	}
	// One of 70 MiB is refused before it is parsed, on every path.
	text = []byte("a: 1\n" + doc + doc[:30<<20])
	if f := ParseFile("f.yaml", text); len(f.Errors) != 1 || f.Errors[0].Msg != "a document longer than 64 MiB, the limit of one document (a file may hold any number of documents)" {
		t.Errorf("a document of 70 MiB: errors %.200v", f.Errors)
	}
	if err := CheckYAMLText(text); err == nil {
		t.Error("CheckYAMLText: a document of 70 MiB passes")
	}
}

// A YAML text edited in place (the release's template amendments) is held
// to the limits too.
func TestEditYAMLLimits(t *testing.T) {
	_, err := EditYAML("t.yaml", []byte("a: "+strings.Repeat("[", MaxDepth+1)+"\n"))
	if err == nil || err.Error() != "t.yaml:1:1004: nesting deeper than 1000 levels, the limit fbc reads" {
		t.Errorf("flow: %v", err)
	}
	_, err = EditYAML("t.yaml", []byte("a: '"+strings.Repeat("x", MaxScalar+1)+"'\n"))
	if err == nil || err.Error() != "t.yaml:1:4: a value longer than 16 MiB, the limit of one value" {
		t.Errorf("value: %v", err)
	}
}
