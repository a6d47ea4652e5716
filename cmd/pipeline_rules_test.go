package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate"
)

// pipelineCase is one folder of ../shared/vectors/pipeline-rules: an input
// the pipelines (Konflux, operator-pipelines, the lifecycle schema's tools)
// would see, and their verdict on it. Its README says what the fields mean.
type pipelineCase struct {
	Rule            string   `json:"rule"`
	TargetOCP       string   `json:"target_ocp"`
	Expect          string   `json:"expect"`
	MessageContains string   `json:"message_contains"`
	Args            []string `json:"args"`
	Path            string   `json:"path"`
	Mkdirs          []string `json:"mkdirs"`
	Match           []string `json:"match"`
	Description     string   `json:"description"`
}

// TestPipelineRuleVectors runs `fbc validate CASE/<path> --target-ocp X
// <args> -o json` on every case of ../shared/vectors/pipeline-rules and
// checks the pipeline's verdict: a failing case exits 1 with an error whose
// rule id or message holds one of the case's match strings, a passing case
// exits 0. A rule from an unmerged proposal (operator-registry #2090) is a
// warning until it ships (validate.Provenance.Proposal): its failing case
// exits 0 with a warning that matches. Each case is copied to a temporary
// folder first, where the empty folders it asks for are made (git keeps
// none).
func TestPipelineRuleVectors(t *testing.T) {
	root := sharedtest.Path(t, "vectors", "pipeline-rules")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(root, name)
			data, err := os.ReadFile(filepath.Join(src, "case.json"))
			if err != nil {
				t.Fatal(err)
			}
			var c pipelineCase
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatalf("case.json: %v", err)
			}
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Mkdirs {
				if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(m)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"validate", filepath.Join(dir, filepath.FromSlash(c.Path)), "--target-ocp", c.TargetOCP}, c.Args...)
			args = append(args, "-o", "json")
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			var res struct {
				Diagnostics []declcfg.Finding `json:"diagnostics"`
			}
			if stdout.Len() > 0 {
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("exit %d, output is not JSON: %v\n%s\nstderr: %s", code, err, stdout.String(), stderr.String())
				}
			}
			var errs, matched, proposed []string
			for _, d := range res.Diagnostics {
				line := "[" + d.Rule + "] " + d.Message
				text := strings.ToLower(d.Rule + " " + d.Message)
				matches := slices.ContainsFunc(c.Match, func(m string) bool { return strings.Contains(text, strings.ToLower(m)) })
				switch {
				case d.Severity == declcfg.SeverityError:
					errs = append(errs, line)
					if matches {
						matched = append(matched, line)
					}
				case matches && ruleOf(d.Rule).Provenance().Proposal:
					proposed = append(proposed, line)
				}
			}
			report := func(format string, a ...any) {
				t.Helper()
				t.Errorf("%s (%s, expect %s: %s)\n"+format+"\nerrors:\n  %s\nstderr: %s",
					append(append([]any{c.Rule, name, c.Expect, c.Description}, a...), strings.Join(errs, "\n  "), stderr.String())...)
			}
			switch c.Expect {
			case "fail":
				if code == ExitOK && len(proposed) > 0 {
					break // a proposal's rule: a warning until it ships
				}
				if code != ExitFindings || len(matched) == 0 {
					report("exit %d, want 1 with an error matching %q (the pipeline says %q)", code, c.Match, c.MessageContains)
				}
			case "pass":
				if code != ExitOK {
					report("exit %d, want 0", code)
				}
			default:
				t.Fatalf("expect %q is neither fail nor pass", c.Expect)
			}
		})
	}
	if n == 0 {
		t.Skip("no pipeline-rules cases")
	}
}

// ruleOf is the rule of an id (the zero Rule for an id validate lacks).
func ruleOf(id string) validate.Rule {
	for _, r := range validate.Rules() {
		if r.ID == id {
			return r
		}
	}
	return validate.Rule{ID: id}
}
