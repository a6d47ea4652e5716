package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

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

// yamlChunk is one "---"-separated part of a YAML file.
type yamlChunk struct {
	text      []byte
	line      int  // first line of the chunk
	blank     bool // only whitespace and comments
	separator bool // the chunk was preceded by a separator line
}

// splitYAML splits a file the way Kubernetes' YAMLReader does: a line that
// starts with "---" and has nothing but spaces or a comment after it ends a
// document. Unlike YAMLReader, it keeps going so that fbc can report what
// opm would silently drop.
func splitYAML(data []byte) ([]yamlChunk, error) {
	var (
		chunks []yamlChunk
		cur    bytes.Buffer
		start  = 1
		line   = 0
		sep    = false
	)
	flush := func() {
		if cur.Len() > 0 {
			text := append([]byte(nil), cur.Bytes()...)
			chunks = append(chunks, yamlChunk{text: text, line: start, blank: isBlankYAML(text), separator: sep})
		}
		cur.Reset()
	}
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		l, err := r.ReadBytes('\n')
		if len(l) > 0 {
			line++
			if bytes.HasPrefix(l, []byte("---")) {
				rest := strings.TrimSpace(string(l[3:]))
				if rest != "" && rest[0] != '#' {
					return nil, &docError{Line: line, Msg: fmt.Sprintf("invalid YAML document separator %q: only spaces or a comment may follow \"---\"", strings.TrimRight(string(l), "\r\n"))}
				}
				flush()
				start, sep = line+1, true
			} else {
				if cur.Len() == 0 {
					start = line
				}
				cur.Write(l)
			}
		}
		if err == io.EOF {
			break
		}
	}
	flush()
	return chunks, nil
}

// isBlankYAML reports text with nothing but whitespace, comments and "..."
// document end markers.
func isBlankYAML(text []byte) bool {
	for _, l := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("...")) {
			continue
		}
		return false
	}
	return true
}

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
	chunks, err := splitYAML(data)
	if err != nil {
		return document{}, err
	}
	var content []yamlChunk
	for _, c := range chunks {
		if !c.blank {
			content = append(content, c)
		}
	}
	if len(content) == 0 {
		return document{Empty: true}, nil
	}
	if len(content) > 1 {
		return document{}, &docError{Line: content[1].line, Msg: fmt.Sprintf("more than one YAML document (the second starts at line %d): opm and OLM read only the first and silently ignore the rest; put each object in its own file", content[1].line)}
	}
	if first := chunks[0]; first.blank {
		return document{}, &docError{Line: content[0].line, Msg: fmt.Sprintf("the file's first document holds only comments, so opm and OLM ignore the whole file (including the object at line %d): remove the \"---\" before it", content[0].line)}
	}
	doc := content[0]
	j, err := yaml.YAMLToJSON(doc.text)
	if err != nil {
		return document{}, yamlError(err, doc.line-1)
	}
	return document{JSON: j, Line: doc.line}, nil
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
