package report

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// JSONReport is the document `fbc validate -o json` writes. Its field names
// are a stable interface (docs/validate.md, docs/validate.schema.json): fields
// may be added, never renamed or removed.
type JSONReport struct {
	// Valid is true when no diagnostic is an error.
	Valid   bool        `json:"valid"`
	Summary JSONSummary `json:"summary"`
	// Diagnostics is always an array, empty when there is nothing to say.
	Diagnostics []declcfg.Finding `json:"diagnostics"`
}

// JSONSummary counts diagnostics by severity and what the run looked at.
type JSONSummary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	validate.Stats
}

// NewJSONReport builds the JSON document for res.
func NewJSONReport(res *validate.Result) JSONReport {
	errs, warns := res.Count()
	ds := res.Diagnostics
	if ds == nil {
		ds = []declcfg.Finding{}
	}
	return JSONReport{
		Valid:       res.Valid(),
		Summary:     JSONSummary{Errors: errs, Warnings: warns, Stats: res.Stats},
		Diagnostics: ds,
	}
}

// WriteJSON writes res as one indented JSON document. It is encoded in full
// before the first byte is written, so a failure never leaves half a
// document behind.
func WriteJSON(w io.Writer, res *validate.Result) error {
	return writeJSONDoc(w, NewJSONReport(res))
}

func writeJSONDoc(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // messages quote things like <pkg>-v<version>
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
