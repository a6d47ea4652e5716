package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for the upgrade-graph page (graph_html*.txtar,
// diff_html*.txtar):
//
//	pagedata FILE      prints the JSON document the page embeds, indented
//	selfcontained FILE fails unless FILE is one HTML page that names no
//	                   other resource (no src, href, @import, url() or link
//	                   to anything but an inert link into the page)

// pageData is the document a page embeds, as its script reads it.
func pageData(page []byte) ([]byte, error) {
	const open = `<script type="application/json" id="fbc-data">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return nil, fmt.Errorf("no %s element", open)
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, fmt.Errorf("the data's script element does not end")
	}
	var out bytes.Buffer
	if err := json.Indent(&out, rest[:j], "", "  "); err != nil {
		return nil, fmt.Errorf("the page's data is not JSON: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// externalRefs lists what in a page would load something: attributes that
// name a resource, CSS imports and URLs, link elements, and scripts' ways
// of fetching.
func externalRefs(page string) []string {
	var found []string
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<[^>]*\b(src|href|srcset|action|data|poster|background)\s*=\s*["']?[^"'\s>]*`),
		regexp.MustCompile(`(?i)@import[^;]*`),
		regexp.MustCompile(`(?i)url\(\s*['"]?[a-z]+:[^)]*\)`),
		regexp.MustCompile(`(?i)<(link|iframe|object|embed|img|base)\b[^>]*>`),
		regexp.MustCompile(`\b(fetch\(|XMLHttpRequest|WebSocket|EventSource|importScripts|navigator\.sendBeacon)`),
	} {
		found = append(found, re.FindAllString(page, -1)...)
	}
	return found
}

func init() {
	scriptCmds["pagedata"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: pagedata FILE")
		}
		data, err := pageData([]byte(ts.ReadFile(args[0])))
		ts.Check(err)
		_, err = ts.Stdout().Write(data)
		ts.Check(err)
	}
	scriptCmds["selfcontained"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: selfcontained FILE")
		}
		page := ts.ReadFile(args[0])
		if !strings.HasPrefix(page, "<!doctype html>") || strings.Count(page, "<html") != 1 || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
			ts.Fatalf("%s is not one HTML page", args[0])
		}
		if n := strings.Count(page, "<script"); n != 2 {
			ts.Fatalf("%s has %d script elements, want 2 (the data and the script)", args[0], n)
		}
		if refs := externalRefs(page); len(refs) > 0 {
			ts.Fatalf("%s loads other resources: %q", args[0], refs)
		}
	}
}
