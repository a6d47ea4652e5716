package template

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
)

// Converting a catalog into a template is opm's `alpha convert-template`:
// a basic template keeps every blob and reduces each bundle to the stub
// {schema, image} that renders back to it; a substitutes template keeps
// every blob as an entry and starts with no substitutions. Blobs are
// written as opm writes them: decoded into plain values and encoded again
// (keys sorted, numbers as float64), YAML 1.1 booleans read as booleans.

// Converted is a template made from a catalog.
type Converted struct {
	Kind Kind
	// Entries are the template's entries, each the JSON of one blob.
	Entries []json.RawMessage
}

// ConvertOptions tunes ConvertSource.
type ConvertOptions struct {
	// Stdin is read for the source "-".
	Stdin io.Reader
	// Renderer reads catalog directories and images (default: a Renderer
	// with zero Options).
	Renderer *render.Renderer
}

// ConvertSource makes a template of kind (basic or substitutes) from a
// catalog. A file or "-" is converted blob by blob in the order written, as
// opm converts a file; a directory or catalog image is rendered first and
// converted in the order fbc render writes it (opm render | opm alpha
// convert-template).
func ConvertSource(ctx context.Context, kind Kind, source string, opts ConvertOptions) (*Converted, error) {
	if kind != KindBasic && kind != KindSubstitutes {
		return nil, fmt.Errorf("templates of kind %q are not converted from catalogs", kind)
	}
	if st, err := os.Stat(source); source == "-" || err == nil && !st.IsDir() {
		var files []*declcfg.File
		err := declcfg.WalkPath(ctx, source, opts.Stdin, declcfg.WalkOptions{}, func(f *declcfg.File) error {
			files = append(files, f)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return convertFiles(kind, source, files)
	}
	r := opts.Renderer
	if r == nil {
		var err error
		if r, err = render.New(render.Options{}); err != nil {
			return nil, err
		}
	}
	cfg, err := r.Render(ctx, []string{source}, render.Request{Allowed: render.KindCatalogDir | render.KindCatalogImage})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := declcfg.Write(cfg, declcfg.FormatJSON, &buf); err != nil {
		return nil, err
	}
	return convertFiles(kind, source, []*declcfg.File{declcfg.ParseFile(source, buf.Bytes())})
}

// convertFiles converts the documents of files; a source with none is an
// *EmptyError (opm would print a template without entries).
func convertFiles(kind Kind, source string, files []*declcfg.File) (*Converted, error) {
	out := &Converted{Kind: kind}
	var errs declcfg.LoadErrors
	for _, f := range files {
		for _, e := range f.Errors {
			if !e.Warning {
				errs = append(errs, e)
			}
		}
		for _, doc := range f.Docs {
			entry, derrs := convertDocument(kind, doc)
			errs = append(errs, derrs...)
			if entry != nil {
				out.Entries = append(out.Entries, entry)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(out.Entries) == 0 {
		return nil, &EmptyError{Pos: declcfg.Pos{File: declcfg.ShowPath(source)}, Msg: "the catalog holds no blobs"}
	}
	return out, nil
}

// convertDocument turns one catalog document into a template entry.
func convertDocument(kind Kind, doc declcfg.Document) (json.RawMessage, declcfg.LoadErrors) {
	blob, lerrs, ok := declcfg.DecodeDocument(doc)
	var errs declcfg.LoadErrors
	for _, e := range lerrs {
		if !e.Warning {
			errs = append(errs, e)
		}
	}
	if !ok || len(errs) > 0 {
		return nil, errs
	}
	if kind == KindBasic && blob.Bundle != nil {
		stub, err := json.Marshal(struct {
			Schema string `json:"schema"`
			Image  string `json:"image"`
		}{blob.Bundle.Schema, blob.Bundle.Image})
		if err != nil {
			return nil, declcfg.LoadErrors{{Pos: doc.Pos, Msg: err.Error()}}
		}
		return stub, nil
	}
	yaml11Scalars(doc.Node, 0)
	raw, err := declcfg.NodeToJSON(doc.Node, false)
	if err == nil {
		raw, err = reencode(raw)
	}
	if err != nil {
		return nil, declcfg.LoadErrors{{Pos: doc.Pos, Msg: err.Error()}}
	}
	return raw, nil
}

// yaml11Scalars retags the plain scalars YAML 1.1 reads as booleans (opm
// reads YAML with a YAML 1.1 parser) and writes integers in decimal (an
// integer has no sign of zero: -0 is 0), so that they convert as opm
// converts them.
func yaml11Scalars(n *declcfg.Node, depth int) {
	if n == nil || depth > 1000 {
		return
	}
	if b, ok := declcfg.YAML11Bool(n); ok {
		n.Tag, n.Value = "!!bool", strconv.FormatBool(b)
		return
	}
	if n.Kind == declcfg.ScalarNode && n.Tag == "!!int" {
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			n.Value = strconv.FormatInt(i, 10)
		}
		return
	}
	for _, c := range n.Content {
		yaml11Scalars(c, depth+1)
	}
}

// reencode decodes a blob into plain values and encodes it again, as opm
// does when it reads any blob: keys sorted, numbers through float64, no
// HTML escaping.
func reencode(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Write writes the template as opm does: JSON indented by four spaces, or
// YAML (keys sorted) after a "---" line; either followed by a blank line's
// worth of newline, as opm's fmt.Println adds one.
func (c *Converted) Write(w io.Writer, format declcfg.Format) error {
	var doc any
	switch c.Kind {
	case KindSubstitutes:
		doc = struct {
			Schema        string            `json:"schema"`
			Entries       []json.RawMessage `json:"entries"`
			Substitutions []struct{}        `json:"substitutions"`
		}{SchemaSubstitutes, c.Entries, []struct{}{}}
	default:
		doc = struct {
			Schema  string            `json:"schema"`
			Entries []json.RawMessage `json:"entries"`
		}{SchemaBasic, c.Entries}
	}
	data, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return err
	}
	if format == declcfg.FormatYAML {
		y, err := sigsyaml.JSONToYAML(data)
		if err != nil {
			return err
		}
		data = append([]byte("---\n"), y...)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
