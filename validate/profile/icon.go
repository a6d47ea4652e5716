package profile

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// iconFindings checks what operator-framework/api does not: that each icon
// decodes, and that its bytes are an image of the media type it claims
// (consoles render it as a data: URL of that type). OLM installs the bundle
// whatever its icon holds, and operator-sdk and the pipelines pass it, so
// these are warnings: a console shows a broken image, nothing fails.
func iconFindings(b *bundle) []finding {
	var out []finding
	if b.csv.Spec.Icon != nil && len(b.csv.Spec.Icon) == 0 {
		out = append(out, finding{rule: validate.RuleHubIcon, sev: declcfg.SeverityError, at: b.fieldPos(b.csvObj, "spec", "icon"),
			msg: "spec.icon is an empty list; give it one icon (base64data and mediatype) or remove it"})
	}
	for i, icon := range b.csv.Spec.Icon {
		at := b.fieldPos(b.csvObj, "spec", "icon", strconv.Itoa(i), "base64data")
		if icon.Data == "" {
			continue // the OperatorHub validator reports it
		}
		data, err := decodeIcon(icon.Data)
		if err != nil {
			out = append(out, finding{rule: validate.RuleHubIconData, sev: declcfg.SeverityWarning, at: at,
				msg: fmt.Sprintf("spec.icon[%d].base64data is not base64: %v", i, err)})
			continue
		}
		got := sniffImage(data)
		want := strings.ToLower(strings.TrimSpace(icon.MediaType))
		switch {
		case got == "":
			out = append(out, finding{rule: validate.RuleHubIconData, sev: declcfg.SeverityWarning, at: at,
				msg: fmt.Sprintf("spec.icon[%d].base64data decodes to %d bytes that are not a PNG, JPEG, GIF or SVG image%s", i, len(data), otherFormat(data))})
		case want != "" && got != want:
			out = append(out, finding{rule: validate.RuleHubIconData, sev: declcfg.SeverityWarning, at: at,
				msg: fmt.Sprintf("spec.icon[%d] says its mediatype is %s, but its data is %s; consoles show a broken image", i, icon.MediaType, imageName(got))})
		}
	}
	return out
}

// decodeIcon reads base64 as browsers do for data: URLs: standard
// alphabet, padding optional, line breaks and spaces ignored.
func decodeIcon(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// sniffImage says which image type bytes are, by their signature.
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case isSVG(data):
		return "image/svg+xml"
	}
	return ""
}

// isSVG looks for an <svg element at the start of a text document, after
// an optional byte order mark, XML declaration, doctype and comments.
func isSVG(data []byte) bool {
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	for {
		head = bytes.TrimLeft(head, " \t\r\n")
		switch {
		case bytes.HasPrefix(head, []byte("<?")):
			i := bytes.Index(head, []byte("?>"))
			if i < 0 {
				return false
			}
			head = head[i+2:]
		case bytes.HasPrefix(head, []byte("<!--")):
			i := bytes.Index(head, []byte("-->"))
			if i < 0 {
				return false
			}
			head = head[i+3:]
		case bytes.HasPrefix(head, []byte("<!")):
			i := bytes.IndexByte(head, '>')
			if i < 0 {
				return false
			}
			head = head[i+1:]
		default:
			return bytes.HasPrefix(head, []byte("<svg")) && len(head) > 4 && strings.ContainsRune(" \t\r\n>/", rune(head[4]))
		}
	}
}

func imageName(mediaType string) string {
	switch mediaType {
	case "image/png":
		return "a PNG image"
	case "image/jpeg":
		return "a JPEG image"
	case "image/gif":
		return "a GIF image"
	}
	return "an SVG image"
}

// otherFormat names image formats consoles may not show, for messages.
func otherFormat(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x00\x00\x01\x00")):
		return " (it is a Windows icon, .ico)"
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return " (it is a WebP image)"
	case bytes.HasPrefix(data, []byte("BM")):
		return " (it looks like a BMP image)"
	}
	return ""
}
