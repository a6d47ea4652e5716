package repo

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/textout"
)

// RuleConfig is the rule id of a settings file's problems: it does not
// parse, or a value the pipelines read has the wrong type.
const RuleConfig = "repo-config"

// ProblemAt is a problem of a settings file (or of what it names) at pos.
func ProblemAt(pos declcfg.Pos, msg string) *declcfg.Finding {
	return &declcfg.Finding{Rule: RuleConfig, Severity: declcfg.SeverityError, Pos: pos, Message: msg}
}

// Problems is every problem found in one file (an error; the file's
// content is at fault).
type Problems = declcfg.Findings

// doc reads one settings file: a single YAML document holding a mapping.
// Keys are read as the pipelines read them, with PyYAML
// (declcfg.PipelineKeys): exactly as written, the last of repeated keys
// counting; each key written more than once is a warning.
type doc struct {
	file     string
	root     *declcfg.Node
	ps       Problems
	warnings Problems
}

// parseDoc reads a parsed settings file: a single YAML document holding a
// mapping. A file that holds nothing (or only comments) has a nil root and
// no problem: the pipelines read it as empty.
func parseDoc(f *declcfg.File) (*doc, error) {
	d := &doc{file: f.Path}
	for _, e := range f.Errors {
		switch {
		case e.Warning, e.Rule == declcfg.RuleEmptyDocument:
		case e.Rule == declcfg.RuleNotObject:
			kind := strings.TrimPrefix(strings.SplitN(e.Msg, ";", 2)[0], "document is ")
			d.ps = append(d.ps, ProblemAt(e.Pos, "must hold a mapping of settings, not "+kind))
		case e.Rule == declcfg.RuleBinaryFile:
			d.ps = append(d.ps, ProblemAt(e.Pos, strings.SplitN(e.Msg, ";", 2)[0]))
		default:
			d.ps = append(d.ps, ProblemAt(e.Pos, e.Msg))
		}
	}
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	if len(f.Docs) > 1 {
		return nil, Problems{ProblemAt(f.Docs[1].Pos, fmt.Sprintf("holds %d YAML documents; the pipelines read one", len(f.Docs)))}
	}
	if len(f.Docs) == 1 {
		d.root = f.Docs[0].Node
		d.warnings = repeatedKeys(f.Path, d.root)
	}
	return d, nil
}

// repeatedKeys warns of each key written more than once in one mapping of
// a settings file, naming the lines of all of them: the pipelines read the
// last one (PyYAML fills a dictionary key by key), and so does fbc.
func repeatedKeys(file string, root *declcfg.Node) Problems {
	var out Problems
	for _, r := range declcfg.RepeatedKeys(root) {
		last := r.Keys[len(r.Keys)-1]
		// Lines name the keys, or lines and columns when two share a line.
		lines := make([]string, len(r.Keys))
		sameLine := false
		for i, k := range r.Keys {
			lines[i] = fmt.Sprint(k.Line)
			sameLine = sameLine || i > 0 && k.Line == r.Keys[i-1].Line
		}
		if sameLine {
			for i, k := range r.Keys {
				lines[i] = fmt.Sprintf("%d:%d", k.Line, k.Column)
			}
		}
		times := "twice"
		if len(r.Keys) > 2 {
			times = fmt.Sprintf("%d times", len(r.Keys))
		}
		ignored := "line " + lines[0]
		if len(lines) > 2 {
			ignored = "lines " + textout.JoinAnd(lines[:len(lines)-1])
		}
		out = append(out, &declcfg.Finding{
			Rule: RuleConfig, Severity: declcfg.SeverityWarning,
			Pos: declcfg.Pos{File: file, Line: last.Line, Col: last.Column},
			Message: fmt.Sprintf("key %s is written %s in one mapping (lines %s): the pipelines read this file with PyYAML, where the last one counts, so fbc reads line %s too and ignores %s",
				last.Value, times, textout.JoinAnd(lines), lines[len(lines)-1], ignored),
		})
	}
	return out
}

func (d *doc) at(n *declcfg.Node) declcfg.Pos {
	if n == nil {
		return declcfg.Pos{File: d.file}
	}
	return declcfg.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *doc) problem(n *declcfg.Node, format string, args ...any) {
	d.ps = append(d.ps, ProblemAt(d.at(n), fmt.Sprintf(format, args...)))
}

// str reads a string; what names the value in the message.
func (d *doc) str(n *declcfg.Node, what string) (string, bool) {
	if n.Kind != declcfg.ScalarNode || n.Tag != "!!str" {
		d.problem(n, "%s must be a string, not %s", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

// strings reads a list of strings with each one's position.
func (d *doc) strings(n *declcfg.Node, what string) ([]string, []declcfg.Pos, bool) {
	if n.Kind != declcfg.SequenceNode {
		d.problem(n, "%s must be a list of strings, not %s", what, kindName(n))
		return nil, nil, false
	}
	out := make([]string, 0, len(n.Content))
	pos := make([]declcfg.Pos, 0, len(n.Content))
	ok := true
	for _, it := range n.Content {
		it = declcfg.Deref(it)
		s, good := d.str(it, what+" items")
		ok = ok && good
		out = append(out, s)
		pos = append(pos, d.at(it))
	}
	return out, pos, ok
}

// boolean reads true or false.
func (d *doc) boolean(n *declcfg.Node, what string) (bool, bool) {
	if n.Kind == declcfg.ScalarNode && n.Tag == "!!bool" {
		return strings.EqualFold(n.Value, "true"), true
	}
	// The pipelines read these files with PyYAML, a YAML 1.1 parser, to
	// which yes, no, on and off are booleans too.
	if v, ok := declcfg.YAML11Bool(n); ok {
		return v, true
	}
	d.problem(n, "%s must be true or false, not %s", what, kindName(n))
	return false, false
}

// kindName says what a node is, for messages: "a list", "null", the text of
// a scalar that is not a string.
func kindName(n *declcfg.Node) string {
	if declcfg.IsNull(n) {
		return "null"
	}
	return declcfg.KindName(n)
}
