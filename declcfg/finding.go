package declcfg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/internal/fault"
)

// Severity says whether a finding makes what it is about invalid.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem at a position in a catalog, template, bundle or
// manifest: the one type every check of fbc reports (the loader's
// LoadErrors, the model's problems, validate's checks, the bundle-content
// profiles over their plugin protocol, serve's refusals, template's
// problems). Its JSON form is part of fbc's documented output
// (docs/validate.md): keep the field names stable.
type Finding struct {
	// Rule is the stable id fbc validate reports the finding under.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Pos
	Package string `json:"package,omitempty"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	Message string `json:"message"`
	// Semantics names the OLM semantics a finding holds under when it
	// depends on them, in the order they were judged and joined by ","
	// (fbc diff's: "classic", "v1", "classic,v1"); "" when it holds under
	// any. fbc diff's reports write it (as a list); it is no part of the
	// JSON above.
	Semantics string `json:"-"`
}

// IsWarning reports whether the finding leaves what it is about valid.
func (f *Finding) IsWarning() bool { return f.Severity == SeverityWarning }

// Error reads as an error with a position ("file:line:col: message"), so
// that a finding can be returned as one.
func (f *Finding) Error() string { return f.Pos.Prefix(f.Message) }

// FaultKind is Run for a file that could not be read (the verdict is
// unknown) and Input for everything else: the content is at fault.
func (f *Finding) FaultKind() fault.Kind {
	if f.Rule == RuleIO {
		return fault.Run
	}
	return fault.Input
}

// Findings are the problems found in one input (a settings file, a
// template), returned together as one error: each on its own line.
type Findings []*Finding

func (fs Findings) Error() string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.Error())
	}
	return b.String()
}

// FaultKind is Input: the input is at fault.
func (fs Findings) FaultKind() fault.Kind { return fault.Input }

// Unwrap lets errors.As find each finding.
func (fs Findings) Unwrap() []error {
	out := make([]error, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// String is the finding on one line with its rule id, for logs and error
// lists: "file:line:col: message [rule]".
func (f Finding) String() string {
	return fmt.Sprintf("%s [%s]", f.Pos.Prefix(f.Message), f.Rule)
}

// Finding is the load error as a finding.
func (e *LoadError) Finding() Finding {
	sev := SeverityError
	if e.Warning {
		sev = SeverityWarning
	}
	return Finding{Rule: e.Rule, Severity: sev, Pos: e.Pos, Message: e.Msg}
}

// SortFindings orders findings deterministically: by file, line, column,
// rule, then message. Findings without a file come first.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Col != b.Col {
			return a.Col - b.Col
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}
