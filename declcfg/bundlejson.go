package declcfg

import (
	"bytes"

	"github.com/fbc-project/fbc/internal/textscan"
)

// appendBundleJSON appends b as encoding/json encodes it compact (with HTML
// escaping off) followed by a newline, as json.Encoder writes it, and
// reports whether it could: encoding/json compacts every property value
// again, stepping its scanner through every byte of the base64 manifests
// that are most of a catalog; values that are already compact are copied
// here instead. A value that is not (whitespace outside its strings, or
// empty) is left to encoding/json (ok false).
func appendBundleJSON(dst []byte, b *Bundle) ([]byte, bool) {
	buf := bytes.NewBuffer(dst)
	first := true
	field := func(name, value string, omitEmpty bool) {
		if omitEmpty && value == "" {
			return
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.WriteByte('"')
		buf.WriteString(name)
		buf.WriteString(`":`)
		writeJSONString(buf, value)
	}
	buf.WriteByte('{')
	field("schema", b.Schema, false)
	field("name", b.Name, true)
	field("package", b.Package, true)
	field("image", b.Image, false)
	if len(b.Properties) > 0 {
		buf.WriteString(`,"properties":[`)
		for i, p := range b.Properties {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"type":`)
			writeJSONString(buf, p.Type)
			buf.WriteString(`,"value":`)
			switch {
			case p.Value == nil:
				buf.WriteString("null")
			case compactJSON(p.Value):
				buf.Write(p.Value)
			default:
				return dst, false
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	if len(b.RelatedImages) > 0 {
		buf.WriteString(`,"relatedImages":[`)
		for i, ri := range b.RelatedImages {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"name":`)
			writeJSONString(buf, ri.Name)
			buf.WriteString(`,"image":`)
			writeJSONString(buf, ri.Image)
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), true
}

// compactJSON reports whether raw, a JSON value, has nothing encoding/json's
// compacting would remove: no whitespace outside its strings. Strings are
// skipped in runs.
func compactJSON(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
			return false
		case '"':
			if i = textscan.StringEnd(raw, i); i < 0 {
				return false
			}
		}
	}
	return true
}
