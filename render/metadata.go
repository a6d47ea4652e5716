package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Annotation keys of metadata/annotations.yaml (and bundle image labels).
const (
	AnnotationPackage        = "operators.operatorframework.io.bundle.package.v1"
	AnnotationChannels       = "operators.operatorframework.io.bundle.channels.v1"
	AnnotationDefaultChannel = "operators.operatorframework.io.bundle.channel.default.v1"
)

// annotationString is a string field of annotations.yaml. sigs.k8s.io/yaml
// turns numbers and booleans into strings when the target is a string, so
// `channels.v1: 1.0` is the channel "1"; this reproduces that.
type annotationString string

func (s *annotationString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = annotationString(v)
	case string(b) == "true" || string(b) == "false":
		*s = annotationString(b)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		if _, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			*s = annotationString(b)
			return nil
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("bad number %s", b)
		}
		*s = annotationString(strconv.FormatFloat(f, 'g', -1, 32))
	default:
		return fmt.Errorf("must be a string, not %s", describeJSON(b))
	}
	return nil
}

func describeJSON(b []byte) string {
	switch b[0] {
	case '{':
		return "a mapping"
	case '[':
		return "a list"
	}
	return string(b)
}

// annotationsFile is metadata/annotations.yaml. Field names match
// case-insensitively, as encoding/json (and so opm) matches them.
type annotationsFile struct {
	Annotations struct {
		Package        annotationString `json:"operators.operatorframework.io.bundle.package.v1"`
		Channels       annotationString `json:"operators.operatorframework.io.bundle.channels.v1"`
		DefaultChannel annotationString `json:"operators.operatorframework.io.bundle.channel.default.v1"`
	} `json:"annotations"`
}

func (a *annotationsFile) empty() bool {
	x := a.Annotations
	return x.Package == "" && x.Channels == "" && x.DefaultChannel == ""
}

// typedProperty is one item of dependencies.yaml or properties.yaml. Value
// keeps the JSON as opm does (the raw text of a JSON file, or the sorted,
// compact conversion of YAML), because opm orders properties by that text.
type typedProperty struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type dependenciesFile struct {
	Dependencies []typedProperty `json:"dependencies"`
}

type propertiesFile struct {
	Properties []typedProperty `json:"properties"`
}

// metadataKinds decodes one metadata file as each of the three kinds opm
// tries. A kind the file does not hold comes back empty; a kind whose key is
// there but has the wrong shape is an error (opm silently skips the file).
func metadataKinds(doc []byte) (*annotationsFile, *dependenciesFile, *propertiesFile, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, nil, nil, fmt.Errorf("not a mapping: a metadata file holds annotations, dependencies or properties")
	}
	var (
		af annotationsFile
		df dependenciesFile
		pf propertiesFile
	)
	if err := json.Unmarshal(doc, &af); err != nil {
		return nil, nil, nil, fieldError("annotations", err)
	}
	if err := json.Unmarshal(doc, &df); err != nil {
		return nil, nil, nil, fieldError("dependencies", err)
	}
	if err := json.Unmarshal(doc, &pf); err != nil {
		return nil, nil, nil, fieldError("properties", err)
	}
	for i, d := range df.Dependencies {
		if d.Type == "" {
			return nil, nil, nil, itemError("dependencies", i, "", fmt.Errorf("dependencies[%d]: \"type\" is missing", i))
		}
	}
	for i, p := range pf.Properties {
		if p.Type == "" {
			return nil, nil, nil, itemError("properties", i, "", fmt.Errorf("properties[%d]: \"type\" is missing", i))
		}
		if len(p.Value) == 0 {
			return nil, nil, nil, itemError("properties", i, "", fmt.Errorf("properties[%d] (%s): \"value\" is missing", i, p.Type))
		}
	}
	return &af, &df, &pf, nil
}

// fieldError rewords encoding/json's type errors ("json: cannot unmarshal
// string into Go struct field .dependencies of type []render.typedProperty").
func fieldError(key string, err error) error {
	var te *json.UnmarshalTypeError
	if ok := asTypeError(err, &te); ok {
		field := te.Field
		if field == "" {
			field = key
		}
		return &metadataError{Key: key, Index: -1, Field: strings.TrimPrefix(strings.TrimPrefix(field, key), "."),
			Err: fmt.Errorf("%q: expected %s, found a JSON %s", field, goTypeWords(te.Type.String()), te.Value)}
	}
	return &metadataError{Key: key, Index: -1, Err: fmt.Errorf("%q: %v", key, strings.TrimPrefix(err.Error(), "json: "))}
}

// metadataError is a problem with a top-level key of a metadata file
// (annotations, dependencies, properties), with what locates it in the
// file's text: an item of the key's list (Index), a field of that item or
// of the key's mapping (Field), or the key itself.
type metadataError struct {
	Key string
	// Index is the item of the list at fault; -1 when the error does not
	// say, and then the first item whose Field (or which itself) is not
	// what decoding wants is taken.
	Index int
	Field string
	Err   error
}

func (e *metadataError) Error() string { return e.Err.Error() }
func (e *metadataError) Unwrap() error { return e.Err }

// itemError is a metadataError at item i of key's list, or at one of its
// fields.
func itemError(key string, i int, field string, err error) error {
	return &metadataError{Key: key, Index: i, Field: field, Err: err}
}

// locate finds the error in the metadata file's text: the line and column
// of the field's value, the item or the key; 0, 0 when the text does not
// parse as fbc reads YAML, or does not hold the key. Errors are rare, so
// the file is parsed into a tree only for them.
func (e *metadataError) locate(data []byte) (line, col int) {
	f := declcfg.ParseFile("", data)
	if len(f.Docs) == 0 {
		return 0, 0
	}
	k, v := declcfg.CatalogKeys.Lookup(f.Docs[0].Node, e.Key)
	if k == nil {
		return 0, 0
	}
	at := k
	switch {
	case v != nil && v.Kind == declcfg.SequenceNode:
		item := e.item(v)
		if item == nil {
			break
		}
		at = item
		if f := fieldOf(item, e.Field); f != nil {
			at = f
		}
	case v != nil:
		if f := fieldOf(v, e.Field); f != nil {
			at = f
		}
	}
	return at.Line, at.Column
}

// fieldOf is where field of mapping n is written: its value, else its key;
// nil for no field, or one n does not have.
func fieldOf(n *declcfg.Node, field string) *declcfg.Node {
	if field == "" {
		return nil
	}
	if fk, fv := declcfg.CatalogKeys.Lookup(n, field); fv != nil {
		return fv
	} else if fk != nil {
		return fk
	}
	return nil
}

// item is the list item the error is about: Index, or the first item that
// is not a mapping or whose Field is not a string.
func (e *metadataError) item(list *declcfg.Node) *declcfg.Node {
	if e.Index >= 0 {
		if e.Index < len(list.Content) {
			return declcfg.Deref(list.Content[e.Index])
		}
		return nil
	}
	for _, it := range list.Content {
		it = declcfg.Deref(it)
		if it == nil || it.Kind != declcfg.MappingNode {
			return it
		}
		if e.Field == "" {
			continue
		}
		if _, fv := declcfg.CatalogKeys.Lookup(it, e.Field); fv != nil && (fv.Kind != declcfg.ScalarNode || fv.Tag != "!!str") {
			return it
		}
	}
	return nil
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*target = te
	}
	return ok
}

func goTypeWords(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "string" || strings.HasSuffix(t, "annotationString"):
		return "a string"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), strings.HasPrefix(t, "render."), strings.HasPrefix(t, "declcfg."):
		return "a mapping"
	}
	return t
}

// splitChannels parses the channels annotation: comma separated, spaces
// trimmed, empty items dropped.
func splitChannels(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}
