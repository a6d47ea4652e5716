package page

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// The page is one HTML file: the template below with the style sheet, the
// script and the document inlined. The script and the style are fbc's own;
// nothing is fetched when the page opens.
var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.js
	pageJS string
)

// WriteHTML writes the page of doc. The document is embedded as JSON in a
// script element of type application/json; encoding/json escapes <, > and
// &, so no text of the catalog can end that element or the page's markup.
func WriteHTML(w io.Writer, doc *Document) error {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding the page's data: %w", err)
	}
	out := strings.NewReplacer(
		"{{.Title}}", html.EscapeString(doc.Title),
		"{{.CSS}}", pageCSS,
		"{{.JS}}", pageJS,
		"{{.Data}}", strings.TrimSuffix(data.String(), "\n"),
	).Replace(pageHTML)
	_, err := io.WriteString(w, out)
	return err
}

// WriteJSON writes the document the page embeds, indented: what the
// goldens hold.
func WriteJSON(w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
