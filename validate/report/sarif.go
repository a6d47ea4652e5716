package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// The subset of SARIF 2.1.0 (OASIS) that fbc writes, shaped for GitHub code
// scanning: every result carries a physical location when one is known, and
// columns count Unicode code points, as fbc's positions do.

const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	// sarifSrcRoot is the uriBaseId of locations relative to the working
	// directory; code-scanning uploads resolve it to the checkout.
	sarifSrcRoot = "%SRCROOT%"
	// fingerprintKey names fbc's line-independent result fingerprint, so
	// that an alert survives edits that only move it.
	fingerprintKey = "fbcDiagnostic/v1"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []sarifReportingDescr `json:"rules"`
}

type sarifReportingDescr struct {
	ID                   string             `json:"id"`
	ShortDescription     *sarifMessage      `json:"shortDescription,omitempty"`
	Help                 *sarifMessage      `json:"help,omitempty"`
	HelpURI              string             `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifRuleDefaults `json:"defaultConfiguration,omitempty"`
}

type sarifRuleDefaults struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// WriteSARIF writes res as a SARIF 2.1.0 log with one run. Rule metadata
// comes from opts.Rules; locations are relative to opts.WorkDir under the
// %SRCROOT% base, or absolute file: URIs for files outside it. A diagnostic
// without a file is anchored at opts.Anchor (GitHub rejects a whole upload
// if any result has no location); with no anchor it has no location.
func WriteSARIF(w io.Writer, res *validate.Result, opts Options) error {
	driver := sarifDriver{
		Name:           opts.Tool.Name,
		Version:        opts.Tool.Version,
		InformationURI: opts.Tool.InformationURI,
		Rules:          []sarifReportingDescr{},
	}
	if driver.Name == "" {
		driver.Name = "fbc"
	}
	index := map[string]int{}
	addRule := func(r sarifReportingDescr) {
		if _, ok := index[r.ID]; !ok {
			index[r.ID] = len(driver.Rules)
			driver.Rules = append(driver.Rules, r)
		}
	}
	for _, r := range opts.Rules {
		d := sarifReportingDescr{ID: r.ID, HelpURI: ruleHelpURI(opts.Tool, r.ID)}
		if r.Summary != "" {
			d.ShortDescription = &sarifMessage{Text: r.Summary}
		}
		if r.Help != "" {
			d.Help = &sarifMessage{Text: r.Help}
		}
		if r.Severity != "" {
			d.DefaultConfiguration = &sarifRuleDefaults{Level: sarifLevel(r.Severity)}
		}
		addRule(d)
	}
	// Rules the catalogue does not know still need an entry for ruleIndex.
	for _, id := range ruleIDs(res.Diagnostics) {
		addRule(sarifReportingDescr{ID: id, HelpURI: ruleHelpURI(opts.Tool, id)})
	}

	results := make([]sarifResult, 0, len(res.Diagnostics))
	seen := map[string]int{}
	for _, d := range res.Diagnostics {
		msg := d.Message
		if c := context(d); c != "" && d.File == "" {
			msg = c + ": " + msg
		}
		r := sarifResult{
			RuleID:    d.Rule,
			RuleIndex: index[d.Rule],
			Level:     sarifLevel(d.Severity),
			Message:   sarifMessage{Text: msg},
		}
		file := d.File
		if file == "" {
			file = opts.Anchor
		}
		if file != "" {
			loc := sarifPhysicalLocation{ArtifactLocation: artifactLocation(file, opts.WorkDir)}
			if d.File != "" && d.Line > 0 {
				loc.Region = &sarifRegion{StartLine: d.Line, StartColumn: d.Col}
			}
			r.Locations = []sarifLocation{{PhysicalLocation: loc}}
		}
		// Identical diagnostics in one file are told apart by their order,
		// as GitHub's own fingerprints do.
		fp := fingerprint(d, r.Locations)
		seen[fp]++
		r.PartialFingerprints = map[string]string{fingerprintKey: fp + ":" + strconv.Itoa(seen[fp])}
		results = append(results, r)
	}
	return writeJSONDoc(w, sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: driver},
			ColumnKind: "unicodeCodePoints",
			Results:    results,
		}},
	})
}

func sarifLevel(s declcfg.Severity) string {
	switch s {
	case declcfg.SeverityError:
		return "error"
	case declcfg.SeverityWarning:
		return "warning"
	}
	return "note"
}

// ruleHelpURI points at the rule's entry in docs/validate.md.
func ruleHelpURI(t Tool, id string) string {
	if !strings.HasPrefix(t.InformationURI, "https://github.com/") {
		return ""
	}
	return strings.TrimSuffix(t.InformationURI, "/") + "/blob/main/docs/validate.md#" + id
}

// fingerprint hashes what identifies a diagnostic apart from where in the
// file it is: rule, file, package, channel, bundle and message.
func fingerprint(d declcfg.Finding, locs []sarifLocation) string {
	h := sha256.New()
	uri := ""
	if len(locs) > 0 {
		uri = locs[0].PhysicalLocation.ArtifactLocation.URI
	}
	for _, s := range []string{d.Rule, uri, d.Package, d.Channel, d.Bundle, d.Message} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// artifactLocation names file relative to the working directory under
// %SRCROOT%, or as an absolute file: URI when it lies outside it.
func artifactLocation(file, workDir string) sarifArtifactLocation {
	rel, ok := relativeTo(file, workDir)
	if ok {
		return sarifArtifactLocation{URI: escapePath(rel), URIBaseID: sarifSrcRoot}
	}
	abs := file
	if !filepath.IsAbs(abs) && workDir != "" {
		abs = filepath.Join(workDir, file)
	}
	return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()}
}

// relativeTo returns file as a clean slash-separated path relative to
// workDir, and false if it is outside workDir. With no workDir, relative
// paths are taken as they are and absolute ones are outside.
func relativeTo(file, workDir string) (string, bool) {
	if filepath.IsAbs(file) {
		if workDir == "" {
			return "", false
		}
		r, err := filepath.Rel(workDir, file)
		if err != nil {
			return "", false
		}
		file = r
	}
	file = filepath.ToSlash(filepath.Clean(file))
	if file == ".." || strings.HasPrefix(file, "../") {
		return "", false
	}
	return file, true
}

// escapePath percent-encodes each segment of a relative slash path so that
// spaces, '%', '#' and '?' survive as a URI reference.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		// PathEscape keeps ':', which in a first segment would read as a scheme.
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}
