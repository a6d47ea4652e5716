package declcfg

import (
	"encoding/json"
	"fmt"
)

// BlobDocument is the document a typed blob would be read from: its JSON
// encoding, parsed. In-memory catalogs (a template's or compose's result, a
// bundle rendered from a directory) are checked on these trees like files
// are. The tree has no file, and its positions are those of the encoding
// (which writes HTML characters as they are, where encoding/json escapes
// them), of use to nobody; long scalar values share the encoding's bytes,
// which nothing else holds.
func BlobDocument(b Blob) (Document, error) {
	var (
		data []byte
		err  error
	)
	switch {
	case b.Bundle != nil:
		var ok bool
		if data, ok = appendBundleJSON(nil, b.Bundle); !ok {
			data, err = json.Marshal(b.Bundle)
		}
	case b.Package != nil:
		data, err = json.Marshal(b.Package)
	case b.Channel != nil:
		data, err = json.Marshal(b.Channel)
	case b.Deprecation != nil:
		data, err = json.Marshal(b.Deprecation)
	case b.Meta != nil:
		data, err = json.Marshal(b.Meta)
	default:
		return Document{}, fmt.Errorf("encoding %s blob: the blob is empty", b.Schema)
	}
	if err != nil {
		return Document{}, fmt.Errorf("encoding %s blob: %w", b.Schema, err)
	}
	f := parseFile("", data, true)
	if len(f.Docs) != 1 {
		return Document{}, fmt.Errorf("encoding %s blob: %v", b.Schema, LoadErrors(f.Errors))
	}
	return f.Docs[0], nil
}
