package yamllint

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// wantLine is one line of yamllint's parsable output: FILE:LINE:COL: MESSAGE (RULE).
var wantLine = regexp.MustCompile(`^([^:]+):(\d+):(\d+): (.*) \(([a-z-]+)\)$`)

// TestLintMatchesYamllint lints every file of testdata/ and compares the
// problems with what yamllint itself reported on them (testdata/want.txt
// says how it was made): the same lines, columns, rules and messages;
// syntax errors by line and rule, since fbc's parser words them its own
// way.
func TestLintMatchesYamllint(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		m := wantLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("want.txt: cannot read %q", line)
		}
		want[m[1]] = append(want[m[1]], key(m[2], m[3], m[5], m[4]))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatal("no test files", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range Lint("f.yaml", data) {
			got = append(got, key(fmt.Sprint(p.Line), fmt.Sprint(p.Col), p.Rule, p.Message))
		}
		name := filepath.Base(file)
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s:\n got  %q\n want %q", name, got, want[name])
		}
	}
}

func key(line, col, rule, msg string) string {
	if rule == "syntax" {
		return line + " syntax"
	}
	return line + ":" + col + " " + msg + " (" + rule + ")"
}

// A text past declcfg's limits is one syntax problem, found before the
// scanner runs: it follows PyYAML's, which looks at every open flow
// collection at every token (seconds for 25,000 '[').
func TestLintLimits(t *testing.T) {
	got := Lint("f.yaml", []byte(strings.Repeat("[", 25000)+"\n"))
	if len(got) != 1 || got[0].String() != "f.yaml:1:1001: syntax error: nesting deeper than 1000 levels, the limit fbc reads [syntax]" || got[0].Severity != declcfg.SeverityError {
		t.Errorf("problems %v", got)
	}
}
