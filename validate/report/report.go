// Package report writes the outcome of a validation run for people and
// machines: text for terminals, json for scripts, sarif for code-scanning
// upload and github for workflow annotations. Every writer is deterministic:
// the same Result gives the same bytes.
package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// Formats lists the output formats Write knows, the default first.
var Formats = []string{"text", "json", "sarif", "github"}

// Tool names the program in machine-readable reports (SARIF's tool.driver).
type Tool struct {
	Name           string
	Version        string
	InformationURI string
}

// Options tunes the writers. The caller decides everything that depends on
// the environment (colour, working directory) and passes it in.
type Options struct {
	// Color adds ANSI colour to text output.
	Color bool
	// Tool describes fbc in SARIF output.
	Tool Tool
	// Rules is the rule catalogue (validate.Rules()); SARIF uses it for rule
	// metadata. Rule ids that diagnostics name but Rules lacks still get a
	// minimal entry.
	Rules []validate.Rule
	// WorkDir is the absolute working directory: SARIF locations are made
	// relative to it. Empty means paths are used as they are.
	WorkDir string
	// Anchor is the file SARIF results without a position point at (the
	// catalog the user named), since GitHub code scanning rejects an upload
	// with any unlocated result.
	Anchor string
}

// Write writes res in format to w.
func Write(w io.Writer, format string, res *validate.Result, opts Options) error {
	switch format {
	case "text", "":
		return WriteText(w, res, opts)
	case "json":
		return WriteJSON(w, res)
	case "sarif":
		return WriteSARIF(w, res, opts)
	case "github":
		return WriteGitHub(w, res, opts)
	}
	return fmt.Errorf("unknown report format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// Summary is a one-line account of a run, e.g.
// "2 errors, 1 warning in 3 files (1 package, 2 channels, 5 bundles)".
func Summary(res *validate.Result) string {
	errs, warns := res.Count()
	s := res.Stats
	return fmt.Sprintf("%s, %s in %s (%s, %s, %s)",
		plural(errs, "error"), plural(warns, "warning"), plural(s.Files, "file"),
		plural(s.Packages, "package"), plural(s.Channels, "channel"), plural(s.Bundles, "bundle"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// context names the package, channel and bundle a diagnostic is about, for
// diagnostics whose position does not say it, e.g.
// `package "etcd", channel "stable"`.
func context(d declcfg.Finding) string {
	var parts []string
	if d.Package != "" {
		parts = append(parts, fmt.Sprintf("package %q", d.Package))
	}
	if d.Channel != "" {
		parts = append(parts, fmt.Sprintf("channel %q", d.Channel))
	}
	if d.Bundle != "" {
		parts = append(parts, fmt.Sprintf("bundle %q", d.Bundle))
	}
	return strings.Join(parts, ", ")
}

// ruleIDs returns the distinct rule ids of ds, sorted.
func ruleIDs(ds []declcfg.Finding) []string {
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.Rule)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
