package graph

import (
	"fmt"
	"io"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/textout"
)

func semanticsList(ss []Semantics) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// where names a change's or finding's place: package, package/channel.
func where(pkg, ch string) string {
	if ch == "" {
		return pkg
	}
	return pkg + "/" + ch
}

// Describe renders a change as one line with a +, - or ~ marker, as the
// text report lists it.
func (c Change) Describe() string {
	at := where(c.Package, c.Channel)
	withDetail := func(s string) string {
		if c.Detail == "" {
			return s
		}
		return s + " (" + c.Detail + ")"
	}
	switch c.Kind {
	case "package-added":
		return "+ " + withDetail("package "+c.Package)
	case "package-removed":
		return "- package " + c.Package
	case "default-channel":
		return fmt.Sprintf("~ %s: default channel %s", at, c.Detail)
	case "bundle-added":
		return fmt.Sprintf("+ %s: %s", at, withDetail("bundle "+c.Bundle))
	case "bundle-removed":
		return fmt.Sprintf("- %s: %s", at, withDetail("bundle "+c.Bundle))
	case "bundle-version":
		return fmt.Sprintf("~ %s: bundle %s version %s", at, c.Bundle, c.Detail)
	case "channel-added":
		return fmt.Sprintf("+ %s: %s", at, withDetail("channel"))
	case "channel-removed":
		return fmt.Sprintf("- %s: channel", at)
	case "entry-added":
		return fmt.Sprintf("+ %s: %s", at, withDetail("entry "+c.Bundle))
	case "entry-removed":
		return fmt.Sprintf("- %s: %s", at, withDetail("entry "+c.Bundle))
	case "edge-added":
		return fmt.Sprintf("+ %s: %s %s", at, c.Bundle, c.Detail)
	case "edge-removed":
		return fmt.Sprintf("- %s: %s %s", at, c.Bundle, c.Detail)
	case "deprecation-added", "deprecation-removed":
		what := "package " + c.Package
		switch {
		case c.Bundle != "":
			what = "bundle " + c.Bundle
		case c.Channel != "":
			what = "channel"
		}
		if c.Kind == "deprecation-removed" {
			return fmt.Sprintf("~ %s: %s no longer deprecated", at, what)
		}
		return fmt.Sprintf("~ %s: %s deprecated (%s)", at, what, c.Detail)
	case "head-moved":
		return fmt.Sprintf("~ %s: %s head %s", at, c.Semantics, c.Detail)
	}
	return fmt.Sprintf("~ %s: %s %s %s", at, c.Kind, c.Bundle, c.Detail)
}

// place names a finding's place: package, package/channel, and bundle.
func place(f declcfg.Finding) string {
	p := where(f.Package, f.Channel)
	if f.Bundle != "" {
		p += " " + f.Bundle
	}
	return p
}

// findingSemantics lists the semantics a finding holds under, none when
// it holds under any.
func findingSemantics(f declcfg.Finding) []Semantics {
	if f.Semantics == "" {
		return nil
	}
	var out []Semantics
	for s := range strings.SplitSeq(f.Semantics, ",") {
		out = append(out, Semantics(s))
	}
	return out
}

// semanticsTag names the semantics a finding holds under, when it depends
// on them.
func semanticsTag(f declcfg.Finding) string {
	if f.Semantics == "" {
		return ""
	}
	return " (" + semanticsList(findingSemantics(f)) + ")"
}

// Verdict sums the findings up as the reports end: "safe", "safe, with 2
// warnings" or "unsafe: 1 error, 0 warnings".
func (d *DiffReport) Verdict() string {
	errs, warns := 0, 0
	for _, f := range d.Findings {
		if f.Severity == declcfg.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	if errs > 0 {
		return fmt.Sprintf("unsafe: %d %s, %d %s", errs, plural(errs, "error", "errors"), warns, plural(warns, "warning", "warnings"))
	}
	if warns > 0 {
		return fmt.Sprintf("safe, with %d %s", warns, plural(warns, "warning", "warnings"))
	}
	return "safe"
}

// WriteText writes the changes, the findings and the verdict.
func (d *DiffReport) WriteText(w io.Writer) error {
	t := textout.New(w)
	t.Printf("%s -> %s (semantics: %s)\n", d.Old, d.New, semanticsList(d.Semantics))
	if s := d.scope(); s != "" {
		t.Printf("%s\n", s)
	}
	if len(d.Changes) == 0 {
		t.Printf("\nno changes to packages, channels, bundles or edges\n")
	} else {
		t.Printf("\nchanges:\n")
		for _, c := range d.Changes {
			t.Printf("  %s\n", c.Describe())
		}
	}
	if len(d.Findings) > 0 {
		t.Printf("\nfindings:\n")
		for _, f := range d.Findings {
			t.Printf("  %s\n", findingLine(f))
		}
	}
	if s := d.beforeLine(); s != "" {
		if d.All {
			t.Printf("\n%s, unchanged by this change:\n", s)
			for _, f := range d.Preexisting {
				t.Printf("  %s\n", findingLine(f))
			}
		} else {
			t.Printf("\n%s\n", s)
		}
	}
	t.Printf("\n%s\n", d.Verdict())
	return t.Err()
}

// findingLine renders a finding on one line: severity, rule, semantics,
// place and message.
func findingLine(f declcfg.Finding) string {
	return fmt.Sprintf("%s %s%s %s: %s", f.Severity, f.Rule, semanticsTag(f), place(f), f.Message)
}

// beforeLine counts the problems OLD had already in one line, with the
// caller's hint on listing them unless they are listed ("" for none).
func (d *DiffReport) beforeLine() string {
	n := len(d.Preexisting)
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("%s %s there before", count(n, "problem", "problems"), plural(n, "was", "were"))
	if !d.All && d.ListHint != "" {
		s += "; " + d.ListHint
	}
	return s
}

// scope says, in one line, what a fragment comparison left out and which
// channels may be pruned ("" when neither applies).
func (d *DiffReport) scope() string {
	var parts []string
	if d.Fragment {
		parts = append(parts, fmt.Sprintf("NEW is a fragment: %s of OLD not in it %s out of scope",
			count(len(d.OutOfScope), "package", "packages"), plural(len(d.OutOfScope), "is", "are")))
	}
	if d.Prune != "" {
		parts = append(parts, fmt.Sprintf("released entries may be pruned only from channels matching %q", d.Prune))
	}
	return strings.Join(parts, "; ")
}

type diffJSON struct {
	Old       string      `json:"old"`
	New       string      `json:"new"`
	Semantics []Semantics `json:"semantics"`
	// Fragment, OutOfScope and PrunableChannels appear only when they
	// applied.
	Fragment         bool          `json:"fragment,omitempty"`
	OutOfScope       []string      `json:"outOfScope,omitempty"`
	PrunableChannels string        `json:"prunableChannels,omitempty"`
	Safe             bool          `json:"safe"`
	Changes          []Change      `json:"changes"`
	Findings         []FindingJSON `json:"findings"`
	// Preexisting counts the problems OLD had already; they are listed
	// (PreexistingFindings) only when the report lists them all.
	Preexisting         int           `json:"preexisting"`
	PreexistingFindings []FindingJSON `json:"preexistingFindings,omitempty"`
}

// FindingJSON is a finding as fbc diff's JSON report and its page write
// it: these fields in this order, the semantics a list, the position an
// object.
type FindingJSON struct {
	Severity  declcfg.Severity `json:"severity"`
	Rule      string           `json:"rule"`
	Semantics []Semantics      `json:"semantics,omitempty"`
	Package   string           `json:"package"`
	Channel   string           `json:"channel,omitempty"`
	Bundle    string           `json:"bundle,omitempty"`
	Message   string           `json:"message"`
	Pos       declcfg.Pos      `json:"position,omitzero"`
}

// JSONFindings writes findings in their JSON form: an empty list, never
// null, for none.
func JSONFindings(fs []declcfg.Finding) []FindingJSON {
	out := make([]FindingJSON, len(fs))
	for i, f := range fs {
		out[i] = FindingJSON{Severity: f.Severity, Rule: f.Rule, Semantics: findingSemantics(f), Package: f.Package,
			Channel: f.Channel, Bundle: f.Bundle, Message: f.Message, Pos: f.Pos}
	}
	return out
}

// WriteJSON writes the report as one JSON object.
func (d *DiffReport) WriteJSON(w io.Writer) error {
	out := diffJSON{Old: d.Old, New: d.New, Semantics: d.Semantics, Safe: d.Safe(), Changes: d.Changes, Findings: JSONFindings(d.Findings),
		Fragment: d.Fragment, OutOfScope: d.OutOfScope, PrunableChannels: d.Prune, Preexisting: len(d.Preexisting)}
	if out.Changes == nil {
		out.Changes = []Change{}
	}
	if d.All && len(d.Preexisting) > 0 {
		out.PreexistingFindings = JSONFindings(d.Preexisting)
	}
	return writeJSON(w, out)
}

// WriteGitHub writes one GitHub Actions workflow command per finding
// (annotations on the new catalog's files where the position is known) and
// the verdict to w, and a markdown summary to summary when it is not nil.
func (d *DiffReport) WriteGitHub(w, summary io.Writer) error {
	t := textout.New(w)
	for _, f := range d.Findings {
		var props []string
		if f.Pos.IsValid() && f.Pos.File != "-" { // no file to annotate when NEW came from stdin
			props = append(props, "file="+escapeProperty(f.Pos.File))
			if f.Pos.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Pos.Line))
			}
			if f.Pos.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Pos.Col))
			}
		}
		props = append(props, "title="+escapeProperty(fmt.Sprintf("%s: %s", f.Rule, place(f))))
		t.Printf("::%s %s::%s\n", f.Severity, strings.Join(props, ","), escapeData(f.Message+semanticsTag(f)))
	}
	// What was there before is not the change's doing: it is counted (and
	// listed, when asked) in plain lines, never annotated.
	if s := d.beforeLine(); s != "" {
		t.Printf("fbc diff: %s\n", plainLine(s))
		if d.All {
			for _, f := range d.Preexisting {
				t.Printf("fbc diff: there before: %s\n", plainLine(findingLine(f)))
			}
		}
	}
	t.Printf("fbc diff: %s\n", d.Verdict())
	if t.Err() != nil || summary == nil {
		return t.Err()
	}
	return d.writeSummary(summary)
}

// plainLine keeps a log line on one line, so that nothing in it starts a
// line the runner could read as a workflow command.
func plainLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// mdCell makes s safe inside a markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// writeSummary renders the markdown job summary in one write, since the
// summary file is appended to by every step of the job.
func (d *DiffReport) writeSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Catalog upgrade check: %s\n\n", d.Verdict())
	fmt.Fprintf(&b, "`%s` → `%s`, judged under %s semantics.\n\n", mdCell(d.Old), mdCell(d.New), semanticsList(d.Semantics))
	if s := d.scope(); s != "" {
		fmt.Fprintf(&b, "%s.\n\n", mdCell(s))
	}
	if len(d.Findings) > 0 {
		writeFindingTable(&b, d.Findings)
		b.WriteString("\n")
	}
	if s := d.beforeLine(); s != "" {
		if d.All {
			fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", mdCell(s))
			writeFindingTable(&b, d.Preexisting)
			b.WriteString("\n</details>\n\n")
		} else {
			fmt.Fprintf(&b, "%s.\n\n", mdCell(s))
		}
	}
	if len(d.Changes) == 0 {
		b.WriteString("No changes to packages, channels, bundles or edges.\n\n")
	} else {
		fmt.Fprintf(&b, "<details><summary>%d %s</summary>\n\n```\n", len(d.Changes), plural(len(d.Changes), "change", "changes"))
		for _, c := range d.Changes {
			b.WriteString(strings.ReplaceAll(c.Describe(), "```", "'''") + "\n")
		}
		b.WriteString("```\n\n</details>\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFindingTable writes findings as a markdown table.
func writeFindingTable(b *strings.Builder, fs []declcfg.Finding) {
	b.WriteString("| severity | rule | semantics | where | problem |\n|---|---|---|---|---|\n")
	for _, f := range fs {
		sems := semanticsList(findingSemantics(f))
		if sems == "" {
			sems = "any"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, sems, mdCell(place(f)), mdCell(f.Message))
	}
}
