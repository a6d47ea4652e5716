package declcfg

import (
	"bytes"
	"unicode"

	"sigs.k8s.io/yaml"
)

// LooksJSON reports whether data starts, after white space (as
// unicode.IsSpace defines it), with '{': the rule by which Kubernetes'
// YAMLOrJSONDecoder and its yaml.ToJSON, which opm and OLM read manifests
// and olm.bundle.object data with, take a text for JSON rather than YAML.
func LooksJSON(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{"))
}

// ObjectJSON is a manifest as JSON, as opm reads an olm.bundle.object's
// decoded data (apimachinery's yaml.ToJSON): data that LooksJSON is
// returned as it is (not checked, not compacted); anything else is YAML
// 1.1, converted as sigs.k8s.io/yaml converts it (keys sorted, `yes` is
// true). It is the one place fbc turns a manifest from YAML into JSON:
// rendering a bundle's files, loading and checking its olm.bundle.object
// properties, finding its CSV.
func ObjectJSON(data []byte) ([]byte, error) {
	if LooksJSON(data) {
		return data, nil
	}
	// What the parsers here refuse for its size or nesting (limits.go)
	// is not handed to the YAML library either, which would take its time
	// over it: a *LimitError, in data's lines.
	if err := CheckYAMLText(data); err != nil {
		return nil, err
	}
	return yaml.YAMLToJSON(data)
}
