// Package template owns catalog templates: the basic template
// (olm.template.basic: FBC blobs plus bundle stubs), the semver template
// (olm.semver: bundles grouped by maturity, channels and edges generated from
// their versions) and the substitutes template (olm.template.substitutes: a
// catalog plus rebuilt bundles that take the place of published ones). Each
// turns into a declcfg.DeclarativeConfig; bundle references are resolved by
// a BundleRenderer, normally render through an ImageMap.
package template

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/validate"
)

// Kind is a template type, named as on the command line.
type Kind string

const (
	KindBasic       Kind = "basic"
	KindSemver      Kind = "semver"
	KindSubstitutes Kind = "substitutes"
)

// Schemas of the template kinds.
const (
	SchemaBasic       = "olm.template.basic"
	SchemaSemver      = "olm.semver"
	SchemaSubstitutes = "olm.template.substitutes"
)

// Kinds lists the template kinds in the order help texts name them.
var Kinds = []Kind{KindBasic, KindSemver, KindSubstitutes}

// KindFromSchema maps a template schema to its kind the way opm does: the
// kind is the text after the schema's last dot.
func KindFromSchema(schema string) (Kind, bool) {
	k := Kind(schema[strings.LastIndex(schema, ".")+1:])
	if !slices.Contains(Kinds, k) {
		return "", false
	}
	return k, true
}

func (k Kind) schema() string {
	switch k {
	case KindSemver:
		return SchemaSemver
	case KindSubstitutes:
		return SchemaSubstitutes
	}
	return SchemaBasic
}

// BundleRenderer turns one bundle reference, exactly as the template writes
// it, into the bundles it holds. The bundles' image must be the reference.
// Properties must not be migrated yet (the semver template reads the CSV
// from olm.bundle.object); Options.Migrate runs on the whole result.
type BundleRenderer func(ctx context.Context, ref string) ([]declcfg.Bundle, error)

// Options tunes Render.
type Options struct {
	// Kind forces a template kind; empty detects it from the schema.
	Kind Kind
	// Render resolves bundle references (required).
	Render BundleRenderer
	// Migrate, when set, rewrites the rendered catalog (for example
	// bundle-object-to-csv-metadata) after the template is complete; for a
	// substitutes template, only the bundles it rendered (as opm does: the
	// entries are written as their author wants them).
	Migrate func(*declcfg.DeclarativeConfig) error
	// SkipRange makes the semver template give each Y-stream head a
	// skipRange over its own Y-stream instead of a skips list; see
	// docs/templates.md.
	SkipRange bool
	// Whole, when set, renders a bundle whole (with its olm.bundle.object
	// manifests) for the semver template when Render gave it without its
	// CSV (a blob migrated to olm.csv.metadata, which has no icon): opm
	// copies the package's description and icon from the CSV of the
	// default channel's head, which it has from rendering the head's
	// image. nil, nil when it cannot be had: the package gets the
	// description olm.csv.metadata holds, and no icon.
	Whole func(ctx context.Context, ref string) (*declcfg.Bundle, error)
}

// Result is a rendered template.
type Result struct {
	Kind   Kind
	Config *declcfg.DeclarativeConfig
	// Explanation says, for a semver template, why each channel entry got
	// the edges it has.
	Explanation *Explanation
	// Warnings are problems that do not stop rendering (keys matched only
	// case-insensitively, unknown fields opm ignores).
	Warnings []*declcfg.Finding
	// Validation is the rendered catalog's validation (RenderFile; nil
	// when it was not validated).
	Validation *validate.Result
}

// RuleTemplate is the rule id of a problem with a template or its image
// map itself (as opposed to the catalog it renders to).
const RuleTemplate = "template"

// problemAt is a problem with a template (or its image map) at pos. Such
// problems are Input faults: the template is what needs fixing.
func problemAt(pos declcfg.Pos, msg string) *declcfg.Finding {
	return &declcfg.Finding{Rule: RuleTemplate, Severity: declcfg.SeverityError, Pos: pos, Message: msg}
}

// EmptyError is a template or image map that holds nothing: an empty file,
// a basic template without entries, a semver template without bundles.
// It is not a problem in the file so much as the wrong file.
type EmptyError struct {
	Pos declcfg.Pos
	Msg string
}

func (e *EmptyError) Error() string { return e.Pos.Prefix(e.Msg) }

// FaultKind: nothing to render means the run could not happen (exit 2), as
// for an empty catalog anywhere in fbc.
func (e *EmptyError) FaultKind() fault.Kind { return fault.Run }

// Problems is every problem found in a template; it is the error Render
// returns when the template itself is at fault (as opposed to a bundle that
// could not be fetched).
type Problems = declcfg.Findings

// ReadInput reads a template named on the command line ("-" is stdin),
// stopping when ctx ends.
func ReadInput(ctx context.Context, name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return readFile(ctx, name)
}

// Render renders the template held in data; name is used in positions.
func Render(ctx context.Context, name string, data []byte, opts Options) (*Result, error) {
	if opts.Render == nil {
		return nil, fmt.Errorf("template: no bundle renderer")
	}
	doc, err := parseTemplate(name, data, "template")
	if err != nil {
		return nil, err
	}
	kind, err := detectKind(doc, opts.Kind)
	if err != nil {
		return nil, err
	}
	var res *Result
	switch kind {
	case KindBasic:
		res, err = renderBasic(ctx, doc, opts)
	case KindSemver:
		res, err = renderSemver(ctx, doc, opts)
	case KindSubstitutes:
		res, err = renderSubstitutes(ctx, doc, opts)
	}
	if err != nil {
		return nil, err
	}
	if opts.Migrate != nil && kind != KindSubstitutes {
		if err := opts.Migrate(res.Config); err != nil {
			return nil, fmt.Errorf("migrating %s: %w", name, err)
		}
	}
	return res, nil
}

// document is a parsed template: its root mapping and its file.
type document struct {
	file string
	root *declcfg.Node
	pos  declcfg.Pos
}

func (d *document) at(n *declcfg.Node) declcfg.Pos {
	if n == nil {
		return d.pos
	}
	return declcfg.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *document) problem(n *declcfg.Node, format string, args ...any) *declcfg.Finding {
	return problemAt(d.at(n), fmt.Sprintf(format, args...))
}

// warning is a problem that does not stop rendering (Result.Warnings).
func (d *document) warning(n *declcfg.Node, format string, args ...any) *declcfg.Finding {
	p := d.problem(n, format, args...)
	p.Severity = declcfg.SeverityWarning
	return p
}

// parseTemplate parses a template file: one JSON or YAML document holding an
// object. what names the file's role in messages.
func parseTemplate(name string, data []byte, what string) (*document, error) {
	f := declcfg.ParseFile(name, data)
	var ps Problems
	var commentsOnly *declcfg.Pos
	for _, e := range f.Errors {
		switch {
		case e.Warning:
		case e.Rule == declcfg.RuleEmptyDocument && e.Blank:
			// Blank lines or a stray "---" around the template: opm
			// decodes the first document and never reads them.
		case e.Rule == declcfg.RuleEmptyDocument:
			// The loader's advice (.indexignore) is for catalog trees; a
			// file named on the command line is simply empty.
			commentsOnly = &e.Pos
		case e.Rule == declcfg.RuleBinaryFile:
			ps = append(ps, problemAt(e.Pos, what+" is "+strings.SplitN(e.Msg, ";", 2)[0]))
		case e.Rule == declcfg.RuleNotObject:
			kind := strings.TrimPrefix(strings.SplitN(e.Msg, ";", 2)[0], "document is ")
			ps = append(ps, problemAt(e.Pos, what+" must be an object, not "+kind))
		default:
			f := e.Finding()
			ps = append(ps, &f)
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	switch {
	case len(f.Docs) == 0 && commentsOnly != nil:
		return nil, &EmptyError{Pos: *commentsOnly, Msg: what + " holds only comments"}
	case len(f.Docs) == 0:
		return nil, &EmptyError{Pos: declcfg.Pos{File: name}, Msg: what + " is empty"}
	case commentsOnly != nil:
		return nil, Problems{problemAt(*commentsOnly, fmt.Sprintf("document holds only comments: a %s is one document", what))}
	case len(f.Docs) > 1:
		return nil, Problems{problemAt(f.Docs[1].Pos, fmt.Sprintf("a %s is one document, but this file holds %d", what, len(f.Docs)))}
	}
	return &document{file: name, root: f.Docs[0].Node, pos: f.Docs[0].Pos}, nil
}

// detectKind reads the template's schema (matched case-insensitively, like
// opm) and checks it against a kind given on the command line.
func detectKind(doc *document, want Kind) (Kind, error) {
	_, v := declcfg.CatalogKeys.Lookup(doc.root, "schema")
	if v == nil {
		if want != "" {
			return "", Problems{doc.problem(doc.root, "template has no %q field; a %s template starts with \"schema: %s\"", "schema", want, want.schema())}
		}
		return "", Problems{doc.problem(doc.root, "template has no %q field, so its type is unknown: "+
			"write \"schema: %s\", \"schema: %s\" or \"schema: %s\"", "schema", SchemaBasic, SchemaSemver, SchemaSubstitutes)}
	}
	if v.Kind != declcfg.ScalarNode || v.Tag != "!!str" {
		return "", Problems{doc.problem(v, "%q must be a string, not %s", "schema", declcfg.KindName(v))}
	}
	schema := v.Value
	if want != "" {
		if schema != want.schema() {
			return "", Problems{doc.problem(v, "template has schema %q, but a %s template must have schema %q", schema, want, want.schema())}
		}
		return want, nil
	}
	kind, ok := KindFromSchema(schema)
	if !ok || schema != kind.schema() {
		return "", Problems{doc.problem(v, "unknown template schema %q: fbc renders %q (basic), %q (semver) and %q (substitutes) templates", schema, SchemaBasic, SchemaSemver, SchemaSubstitutes)}
	}
	return kind, nil
}

// Ref is a bundle reference a template names, and where.
type Ref struct {
	Image string
	Pos   declcfg.Pos
}

// Refs lists the bundle references of a basic or semver template, in the
// order written (a semver template's by channel: candidate, fast,
// stable), without rendering anything; the template's problems are its
// error, as Render reports them. kind "" detects the kind.
func Refs(name string, data []byte, kind Kind) ([]Ref, error) {
	doc, err := parseTemplate(name, data, "template")
	if err != nil {
		return nil, err
	}
	if kind, err = detectKind(doc, kind); err != nil {
		return nil, err
	}
	var stubs []stub
	switch kind {
	case KindBasic:
		if _, stubs, err = doc.basicStubs(&Result{}); err != nil {
			return nil, err
		}
	case KindSemver:
		t, ps := doc.parseSemver()
		if len(ps) > 0 {
			return nil, ps
		}
		for _, a := range archetypes {
			stubs = append(stubs, t.bundles[a]...)
		}
	default:
		return nil, fmt.Errorf("%s: a %s template names no bundles to list", name, kind)
	}
	out := make([]Ref, len(stubs))
	for i, s := range stubs {
		out[i] = Ref{Image: s.ref, Pos: s.pos}
	}
	return out, nil
}
