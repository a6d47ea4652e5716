package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// Bundle files are read the way Kubernetes' YAMLOrJSONDecoder reads them,
// because that is what opm and OLM use: a file whose first non-space byte is
// '{' is JSON, anything else YAML 1.1 (sigs.k8s.io/yaml, so `yes` is true and
// keys are sorted), and only a file's first document counts. The values that
// come out must be byte-identical to opm's, since property order is decided
// by comparing their JSON text.

// document is the first document of a bundle file, as JSON.
type document struct {
	// JSON is the document as opm sees it: the raw bytes of a JSON file's
	// first value, or the JSON conversion of a YAML file's first document.
	JSON []byte
	// Line is where the document starts (1-based).
	Line int
	// Empty reports a file that holds no document at all (blank or only
	// comments and separators).
	Empty bool
	// Data is the file's whole text, for positions inside the document.
	Data []byte
}

// docError is a problem at a line of a file.
type docError struct {
	Line int
	Msg  string
}

func (e *docError) Error() string { return e.Msg }

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlError turns a YAML library error into a message with an absolute line.
func yamlError(err error, offset int) *docError {
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &docError{Line: n + offset, Msg: strings.TrimPrefix(msg[len(m[0]):], "yaml: ")}
	}
	return &docError{Line: offset + 1, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// firstDocument returns the only document of a bundle file. opm reads the
// first document and ignores the rest, and it ignores the whole file when
// that first document is empty; both hide objects from OLM, so fbc reports
// them as errors instead.
func firstDocument(data []byte) (document, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if declcfg.LooksJSON(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return document{}, jsonError(data, dec.InputOffset(), err)
		}
		rest := bytes.TrimSpace(data[dec.InputOffset():])
		if len(rest) > 0 {
			line := lineAt(data, int(dec.InputOffset())+bytes.Index(data[dec.InputOffset():], rest[:1]))
			return document{}, &docError{Line: line, Msg: "more than one JSON value: opm and OLM read only the first and silently ignore the rest; put each object in its own file"}
		}
		return document{JSON: raw, Line: lineAt(data, bytes.IndexByte(data, '{'))}, nil
	}
	// The chunks Kubernetes' YAMLReader cuts, which opm reads the first of;
	// fbc reads on, to report what opm would silently drop.
	split := declcfg.SplitDocuments(data, declcfg.SplitManifests)
	if len(split.Bad) > 0 {
		b := split.Bad[0]
		return document{}, &docError{Line: b.Line, Msg: fmt.Sprintf("invalid YAML document separator %q: only spaces or a comment may follow \"---\"", bytes.TrimRight(b.Text, "\r"))}
	}
	var content []declcfg.Chunk
	for _, c := range split.Chunks {
		if c.Content > 0 {
			content = append(content, c)
		}
	}
	if len(content) == 0 {
		return document{Empty: true}, nil
	}
	if len(content) > 1 {
		line := afterMarker(content[1])
		return document{}, &docError{Line: line, Msg: fmt.Sprintf("more than one YAML document (the second starts at line %d): opm and OLM read only the first and silently ignore the rest; put each object in its own file", line)}
	}
	if first := split.Chunks[0]; first.Content == 0 {
		line := afterMarker(content[0])
		return document{}, &docError{Line: line, Msg: fmt.Sprintf("the file's first document holds only comments, so opm and OLM ignore the whole file (including the object at line %d): remove the \"---\" before it", line)}
	}
	doc := content[0]
	// The file is YAML (it does not look like JSON), and so is the chunk,
	// whose "---" line, when it opens it, is part of it.
	j, err := declcfg.ObjectJSON(data[doc.Start:doc.End])
	var le *declcfg.LimitError
	if errors.As(err, &le) {
		return document{}, &docError{Line: doc.Line - 1 + le.Line, Msg: le.Msg}
	}
	if err != nil {
		return document{}, yamlError(err, doc.Line-1)
	}
	return document{JSON: j, Line: afterMarker(doc)}, nil
}

// afterMarker is the first line of a chunk after the "---" that opens it.
func afterMarker(c declcfg.Chunk) int {
	if c.Marker {
		return c.Line + 1
	}
	return c.Line
}

func lineAt(data []byte, off int) int {
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func jsonError(data []byte, off int64, err error) *docError {
	if se, ok := err.(*json.SyntaxError); ok {
		off = se.Offset
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return &docError{Line: lineAt(data, len(data)), Msg: "unexpected end of JSON input"}
	}
	return &docError{Line: lineAt(data, int(off)), Msg: err.Error()}
}

// kubeObject is a manifest decoded the way Kubernetes' unstructured decoder
// does: integers become int64, other numbers float64.
type kubeObject struct {
	Object map[string]any
	// JSON is json.Marshal of Object: sorted keys, HTML escaped, exactly as
	// opm stores it in olm.bundle.object.
	JSON []byte
}

// decodeKubeObject checks that a document is a Kubernetes object (a JSON
// object with a kind) and normalizes it.
func decodeKubeObject(doc []byte) (*kubeObject, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a Kubernetes object: the document is %s, not a mapping", jsonKind(v))
	}
	if err := normalizeNumbers(obj); err != nil {
		return nil, err
	}
	kind, ok := obj["kind"].(string)
	if !ok || kind == "" {
		return nil, fmt.Errorf("not a Kubernetes object: it has no \"kind\"")
	}
	if av, ok := obj["apiVersion"]; ok {
		if _, isStr := av.(string); !isStr {
			return nil, fmt.Errorf("\"apiVersion\" must be a string, not %s", jsonKind(av))
		}
	}
	if md, ok := obj["metadata"]; ok && md != nil {
		if _, isMap := md.(map[string]any); !isMap {
			return nil, fmt.Errorf("\"metadata\" must be a mapping, not %s", jsonKind(md))
		}
	}
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return &kubeObject{Object: obj, JSON: j}, nil
}

// normalizeNumbers converts json.Numbers in place: int64 when the text is an
// integer that fits, float64 otherwise.
func normalizeNumbers(v any) error {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			n, err := normalizeValue(e)
			if err != nil {
				return err
			}
			t[k] = n
		}
	case []any:
		for i, e := range t {
			n, err := normalizeValue(e)
			if err != nil {
				return err
			}
			t[i] = n
		}
	}
	return nil
}

func normalizeValue(v any) (any, error) {
	n, ok := v.(json.Number)
	if !ok {
		return v, normalizeNumbers(v)
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %s is out of range", n)
	}
	return f, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func (o *kubeObject) kind() string { s, _ := o.Object["kind"].(string); return s }

func (o *kubeObject) apiVersion() string { s, _ := o.Object["apiVersion"].(string); return s }

// name is metadata.name.
func (o *kubeObject) name() string {
	md, _ := o.Object["metadata"].(map[string]any)
	s, _ := md["name"].(string)
	return s
}
