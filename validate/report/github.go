package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// WriteGitHub writes one GitHub Actions workflow command per diagnostic,
//
//	::error file=F,line=L,col=C,title=RULE::MESSAGE
//
// (::warning for warnings), which the runner turns into annotations on the
// pull request. File paths are made relative to opts.WorkDir, the checkout,
// as annotations require.
func WriteGitHub(w io.Writer, res *validate.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	for _, d := range res.Diagnostics {
		cmd := "warning"
		if d.Severity == declcfg.SeverityError {
			cmd = "error"
		}
		var props []string
		if d.File != "" {
			file := d.File
			if rel, ok := relativeTo(file, opts.WorkDir); ok {
				file = rel
			}
			props = append(props, "file="+escapeProperty(file))
			if d.Line > 0 {
				props = append(props, "line="+strconv.Itoa(d.Line))
				if d.Col > 0 {
					props = append(props, "col="+strconv.Itoa(d.Col))
				}
			}
		}
		if d.Rule != "" {
			props = append(props, "title="+escapeProperty(d.Rule))
		}
		msg := d.Message
		if c := context(d); c != "" && d.File == "" {
			msg = c + ": " + msg
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
	}
	return bw.Flush()
}

// escapeData escapes a workflow command's message the way the runner
// unescapes it: '%', CR and LF.
func escapeData(s string) string { return dataEscaper.Replace(s) }

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// escapeProperty escapes a workflow command property value: as data, plus
// ':' and ',', which delimit properties.
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// maxSummaryRows bounds the step summary table: GitHub accepts at most
// 1 MiB of summary per step, and the log has every diagnostic anyway.
const maxSummaryRows = 500

// AppendStepSummary adds the Markdown summary (WriteStepSummary) to the job
// summary file the GitHub runner names in $GITHUB_STEP_SUMMARY. Earlier
// steps' summaries in the same file are kept: the section is appended in
// one write.
func AppendStepSummary(path string, res *validate.Result, opts Options) error {
	var buf bytes.Buffer
	if err := WriteStepSummary(&buf, res, opts); err != nil {
		return fmt.Errorf("writing step summary: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("writing step summary: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing step summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing step summary %s: %w", path, err)
	}
	return nil
}

// WriteStepSummary writes a Markdown account of res for a job summary page
// ($GITHUB_STEP_SUMMARY): a heading with the verdict and a table of
// diagnostics.
func WriteStepSummary(w io.Writer, res *validate.Result, opts Options) error {
	bw := bufio.NewWriter(w)
	verdict := "passed"
	if !res.Valid() {
		verdict = "failed"
	}
	fmt.Fprintf(bw, "### fbc validate %s\n\n%s\n\n", verdict, markdownEscape(Summary(res)))
	if len(res.Diagnostics) > 0 {
		bw.WriteString("| severity | location | rule | message |\n|---|---|---|---|\n")
		for i, d := range res.Diagnostics {
			if i == maxSummaryRows {
				fmt.Fprintf(bw, "\n%d more diagnostics are not shown; the job log has all of them.\n", len(res.Diagnostics)-i)
				break
			}
			loc := d.Pos.String()
			if d.File != "" {
				if rel, ok := relativeTo(d.File, opts.WorkDir); ok {
					p := d.Pos
					p.File = rel
					loc = p.String()
				}
			} else {
				loc = context(d)
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", d.Severity, markdownEscape(loc), markdownEscape(d.Rule), markdownEscape(d.Message))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// markdownEscape makes s literal text inside a GitHub Markdown table cell:
// punctuation that formats is backslash-escaped, HTML is neutralised and
// line breaks become <br>.
func markdownEscape(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimRight(s, "\n") {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\r':
		case '\n':
			b.WriteString("<br>")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
