// Package validate checks file-based catalogs: shape checks from embedded CUE
// schemas, the package/channel/bundle invariants opm enforces, the checks opm
// misses, and deprecation rules. It reports every problem as a Diagnostic.
package validate

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Severity of a diagnostic.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in a catalog. Its JSON form is part of
// fbc's documented output (docs/validate.md): keep field names stable.
type Diagnostic struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	declcfg.Pos
	Package string `json:"package,omitempty"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	Message string `json:"message"`
}

// Rule describes a check. ID is stable and appears in every diagnostic.
type Rule struct {
	ID       string
	Severity Severity
	// Summary is one line, for rule lists and SARIF short descriptions.
	Summary string
	// Help says how to fix what the rule reports.
	Help string
}

// Options tunes a validation run.
type Options struct {
	// Strict makes warnings about unknown fields errors.
	Strict bool
	// SchemaDirs hold user CUE definitions applied as extra policy.
	SchemaDirs []string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Concurrency bounds parallel file parsing (default: CPUs).
	Concurrency int
}

// Stats counts what a run looked at.
type Stats struct {
	Files    int `json:"files"`
	Packages int `json:"packages"`
	Channels int `json:"channels"`
	Bundles  int `json:"bundles"`
}

// Result is the outcome of a validation run.
type Result struct {
	Diagnostics []Diagnostic
	Stats       Stats
}

// Valid reports whether no diagnostic is an error.
func (r *Result) Valid() bool {
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError {
			return false
		}
	}
	return true
}

// Count returns the number of errors and warnings.
func (r *Result) Count() (errors, warnings int) {
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// Validate checks the catalogs at paths (directories, files or "-"). The
// error is for runs that could not happen (a path that does not exist); all
// problems with catalog content are diagnostics.
func Validate(ctx context.Context, paths []string, opts Options) (*Result, error) {
	res := &Result{}
	for _, p := range paths {
		err := declcfg.WalkPath(ctx, p, opts.Stdin, declcfg.WalkOptions{Concurrency: opts.Concurrency}, func(f *declcfg.File) error {
			res.Stats.Files++
			for _, le := range f.Errors {
				res.Diagnostics = append(res.Diagnostics, fromLoadError(le))
			}
			for _, doc := range f.Docs {
				blob, errs, _ := declcfg.DecodeDocument(doc)
				for _, le := range errs {
					res.Diagnostics = append(res.Diagnostics, fromLoadError(le))
				}
				switch {
				case blob.Package != nil:
					res.Stats.Packages++
				case blob.Channel != nil:
					res.Stats.Channels++
				case blob.Bundle != nil:
					res.Stats.Bundles++
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	SortDiagnostics(res.Diagnostics)
	return res, nil
}

func fromLoadError(le *declcfg.LoadError) Diagnostic {
	sev := SeverityError
	if le.Warning {
		sev = SeverityWarning
	}
	return Diagnostic{Rule: le.Rule, Severity: sev, Pos: le.Pos, Message: le.Msg}
}

// SortDiagnostics orders diagnostics deterministically: by file, line,
// column, rule, then message.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
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
