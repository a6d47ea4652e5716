package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// ANSI SGR sequences for text output on a terminal.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[1;31m"
	sgrYellow = "\x1b[1;33m"
)

// WriteText writes one line per diagnostic in the form compilers use, so
// editors and terminals can jump to the position:
//
//	file:line:col: severity: message [rule]
//
// Unknown line or column parts are left out. A diagnostic without a file
// names its package, channel and bundle instead:
//
//	severity: package "p", channel "c": message [rule]
//
// Continuation lines of a multi-line message are indented by two spaces.
func WriteText(w io.Writer, res *validate.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	paint := func(sgr, s string) string {
		if !opts.Color || s == "" {
			return s
		}
		return sgr + s + sgrReset
	}
	for _, d := range res.Diagnostics {
		if pos := d.Pos.String(); pos != "" {
			bw.WriteString(paint(sgrBold, pos+":"))
			bw.WriteByte(' ')
		}
		sev := string(d.Severity)
		switch d.Severity {
		case declcfg.SeverityError:
			sev = paint(sgrRed, sev+":")
		case declcfg.SeverityWarning:
			sev = paint(sgrYellow, sev+":")
		default:
			sev = paint(sgrBold, sev+":")
		}
		bw.WriteString(sev)
		bw.WriteByte(' ')
		if !d.Pos.IsValid() {
			if c := context(d); c != "" {
				bw.WriteString(c)
				bw.WriteString(": ")
			}
		}
		bw.WriteString(strings.ReplaceAll(strings.TrimRight(d.Message, "\n"), "\n", "\n  "))
		if d.Rule != "" {
			bw.WriteByte(' ')
			bw.WriteString(paint(sgrDim, "["+d.Rule+"]"))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
