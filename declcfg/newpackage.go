package declcfg

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// dns1123Label is the rule opm applies to package names (Kubernetes'
// IsDNS1123Label): lowercase alphanumerics and '-', starting and ending
// with an alphanumeric, at most 63 characters.
var dns1123Label = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

// CheckPackageName reports whether name is a valid package name.
func CheckPackageName(name string) error {
	switch {
	case name == "":
		return errors.New("package name is empty")
	case len(name) > 63:
		return fmt.Errorf("package name %q is %d characters long; at most 63 are allowed", name, len(name))
	case !dns1123Label().MatchString(name):
		return fmt.Errorf("package name %q is not a lowercase RFC 1123 label: use lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. my-operator)", name)
	}
	return nil
}

// NewPackage builds an olm.package blob. The description must be text
// (CheckDescription); the icon's media type is read from its content
// (IconMediaType).
func NewPackage(name, defaultChannel, description string, icon []byte) (*Package, error) {
	if err := CheckPackageName(name); err != nil {
		return nil, err
	}
	if err := CheckDescription(description); err != nil {
		return nil, err
	}
	p := &Package{Schema: SchemaPackage, Name: name, DefaultChannel: defaultChannel, Description: description}
	if icon != nil {
		mt, err := IconMediaType(icon)
		if err != nil {
			return nil, err
		}
		p.Icon = &Icon{Data: icon, MediaType: mt}
	}
	return p, nil
}

// CheckDescription reports whether a package description is text: UTF-8
// without control characters other than tabs and line breaks. Consoles
// show it as markdown; a binary file given by mistake would be stored as
// an unreadable string in every catalog that carries the package.
func CheckDescription(description string) error {
	for i := 0; i < len(description); {
		r, size := utf8.DecodeRuneInString(description[i:])
		var bad string
		switch {
		case r == utf8.RuneError && size == 1:
			bad = "invalid UTF-8"
		case r == 0x7f || r < 0x20 && r != '\n' && r != '\r' && r != '\t':
			bad = fmt.Sprintf("control character %U", r)
		}
		if bad != "" {
			if what := describeBinary([]byte(description)); what != "" {
				return fmt.Errorf("description is not text (%s): use a text or markdown file", what)
			}
			return fmt.Errorf("description is not text: %s at byte %d: use a text or markdown file", bad, i)
		}
		i += size
	}
	return nil
}

// describeBinary says what a file that is clearly not text is (an image, a
// PDF, an archive, or NUL bytes near the start), or "" when it may be text
// with a stray byte.
func describeBinary(data []byte) string {
	if mt, err := IconMediaType(data); err == nil && mt != "image/svg+xml" {
		return "it is an image, " + mt
	}
	for _, s := range unshownImages {
		if len(data) >= s.offset+len(s.magic) && string(data[s.offset:s.offset+len(s.magic)]) == s.magic {
			return "it is " + s.what
		}
	}
	if what := describeContent(data); strings.HasPrefix(what, "it is a") && what != "it is text" || bytes.IndexByte(data[:min(len(data), 512)], 0) >= 0 {
		return what
	}
	return ""
}

// iconSignatures are the image formats a console can show, by leading bytes,
// with the media type names opm (h2non/filetype) gives them.
var iconSignatures = []struct {
	offset    int
	magic     string
	mediaType string
}{
	{0, "\x89PNG\r\n\x1a\n", "image/png"},
	{0, "\xff\xd8\xff", "image/jpeg"},
	{0, "GIF87a", "image/gif"},
	{0, "GIF89a", "image/gif"},
	{8, "WEBP", "image/webp"}, // after "RIFF" and a length
	{0, "BM", "image/bmp"},
	{0, "\x00\x00\x01\x00", "image/vnd.microsoft.icon"},
	{4, "ftypavif", "image/avif"},
	{4, "ftypavis", "image/avif"},
}

// unshownImages are image formats that opm accepts as icons but consoles do
// not display; fbc refuses them by name.
var unshownImages = []struct {
	offset int
	magic  string
	what   string
}{
	{0, "II*\x00", "a TIFF image"},
	{0, "MM\x00*", "a TIFF image"},
	{0, "8BPS", "a Photoshop document"},
	{4, "ftypheic", "a HEIF image"},
	{4, "ftypheix", "a HEIF image"},
	{4, "ftypmif1", "a HEIF image"},
	{0, "\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"},
	{0, "II\xbc", "a JPEG XR image"},
	{0, "v/1\x01", "an OpenEXR image"},
	{0, "AC10", "a DWG drawing"},
}

// IconMediaType returns the media type of an icon from its content: PNG,
// JPEG, GIF, WebP, BMP, ICO, AVIF or SVG. Anything else is an error that
// says what the content looks like.
func IconMediaType(data []byte) (string, error) {
	has := func(off int, magic string) bool {
		return len(data) >= off+len(magic) && string(data[off:off+len(magic)]) == magic
	}
	for _, s := range iconSignatures {
		if has(s.offset, s.magic) && (s.magic != "WEBP" || has(0, "RIFF")) && (s.magic != "BM" || isBMP(data)) {
			return s.mediaType, nil
		}
	}
	if isSVG(data) {
		return "image/svg+xml", nil
	}
	for _, s := range unshownImages {
		if has(s.offset, s.magic) {
			return "", fmt.Errorf("icon is %s, which consoles do not display: use PNG, JPEG, GIF, SVG, WebP, BMP, ICO or AVIF", s.what)
		}
	}
	return "", fmt.Errorf("icon is not an image (%s): use PNG, JPEG, GIF, SVG, WebP, BMP, ICO or AVIF", describeContent(data))
}

// isBMP checks more than BMP's two-letter signature, which plain text
// starts with too ("BMW", "BMI"): the DIB header that follows the 14-byte
// file header starts with its own size, one of a few fixed values.
func isBMP(data []byte) bool {
	if len(data) < 18 {
		return false
	}
	switch binary.LittleEndian.Uint32(data[14:18]) {
	case 12, 16, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

// isSVG reports whether data is an XML document whose root element is svg.
func isSVG(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '<' {
		return false
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	// Only the root element's name matters; any declared encoding will do.
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for range 1000 {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local == "svg"
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return false
			}
		}
	}
	return false
}

// describeContent names what non-image content looks like, for errors.
func describeContent(data []byte) string {
	switch {
	case len(data) == 0:
		return "the file is empty"
	case bytes.HasPrefix(data, []byte("%PDF")):
		return "it is a PDF document"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "it is a zip archive"
	case bytes.HasPrefix(data, []byte("\x1f\x8b")):
		return "it is gzip-compressed"
	}
	head := data[:min(len(data), 512)]
	if bytes.IndexByte(head, 0) < 0 && isText(head) {
		if t := bytes.TrimSpace(head); len(t) > 0 && t[0] == '<' {
			return "it is markup, but not an SVG document"
		}
		return "it is text"
	}
	return "unrecognised binary content"
}

func isText(b []byte) bool {
	r := bytes.NewReader(b)
	for {
		c, _, err := r.ReadRune()
		if err == io.EOF {
			return true
		}
		if c == 0xfffd || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
			return false
		}
	}
}
