package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// workDir is the pretend working directory of the sample run.
const workDir = "/src/catalogs"

// sampleResult exercises every shape of diagnostic the writers handle:
// positions with and without line and column, no file at all, standard
// input, absolute paths in and outside the working directory, and messages
// with characters each format must escape.
func sampleResult() *validate.Result {
	return &validate.Result{
		Stats: validate.Stats{Files: 4, Packages: 2, Channels: 3, Bundles: 5},
		Diagnostics: []declcfg.Finding{
			{Rule: "io-error", Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: "/elsewhere/locked.yaml"},
				Message: "cannot open: permission denied"},
			{Rule: "syntax", Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: "/src/catalogs/etcd/catalog.json", Line: 7, Col: 3},
				Message: "invalid character '}' looking for beginning of object key string"},
			{Rule: "unknown-field", Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: "dir with space/100%.yaml", Line: 12, Col: 5},
				Package: "etcd", Channel: "stable", Bundle: "etcd.v0.9.2",
				Message: "unknown field \"replace\" in olm.channel entry: did you mean \"replaces\"?"},
			{Rule: "release", Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: "etcd/catalog.yaml", Line: 40},
				Package: "etcd", Bundle: "etcd.v1",
				Message: "bundle name must be <pkg>-v<version>-<release>, got \"etcd.v1\"; rename it | or drop the release: 100% needed, a,b:c"},
			{Rule: "channel-head", Severity: declcfg.SeverityError,
				Package: "etcd", Channel: "alpha",
				Message: "channel has 2 heads (etcd.v2, etcd.v3)\nevery channel needs exactly one: add a replaces edge between them"},
			{Rule: "missing-schema", Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: "-", Line: 1, Col: 1},
				Message: "document has no \"schema\" field"},
			{Rule: "key-case", Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: "/src/catalogs/é/ü.yaml", Line: 2, Col: 1},
				Message: "key \"Name\" is read as \"name\"; write \"name\""},
		},
	}
}

func sampleOptions() Options {
	return Options{
		Tool:    Tool{Name: "fbc", Version: "v1.2.3", InformationURI: "https://github.com/fbc-project/fbc"},
		WorkDir: workDir,
		Anchor:  "etcd",
		Rules: []validate.Rule{
			{ID: "syntax", Severity: declcfg.SeverityError, Summary: "file is not valid JSON or YAML", Help: "Fix the syntax at the position shown."},
			{ID: "channel-head", Severity: declcfg.SeverityError, Summary: "channel has no single head", Help: "Link the heads with replaces or skips."},
			{ID: "unknown-field", Severity: declcfg.SeverityWarning, Summary: "field is not part of the schema"},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./validate/report -update to create it")
	assert.Equal(t, string(want), string(got), "%s differs; if the change is intended, run go test ./validate/report -update", path)
}

func TestWriteGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		write  func(*bytes.Buffer) error
	}{
		{"sample.txt", func(b *bytes.Buffer) error { return Write(b, "text", sampleResult(), sampleOptions()) }},
		{"sample.color.txt", func(b *bytes.Buffer) error {
			o := sampleOptions()
			o.Color = true
			return Write(b, "text", sampleResult(), o)
		}},
		{"sample.json", func(b *bytes.Buffer) error { return Write(b, "json", sampleResult(), sampleOptions()) }},
		{"sample.sarif", func(b *bytes.Buffer) error { return Write(b, "sarif", sampleResult(), sampleOptions()) }},
		{"sample.github", func(b *bytes.Buffer) error { return Write(b, "github", sampleResult(), sampleOptions()) }},
		{"sample.summary.md", func(b *bytes.Buffer) error { return WriteStepSummary(b, sampleResult(), sampleOptions()) }},
		{"empty.json", func(b *bytes.Buffer) error { return Write(b, "json", &validate.Result{}, sampleOptions()) }},
		{"empty.sarif", func(b *bytes.Buffer) error { return Write(b, "sarif", &validate.Result{}, Options{}) }},
		{"empty.summary.md", func(b *bytes.Buffer) error { return WriteStepSummary(b, &validate.Result{}, Options{}) }},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var first, second bytes.Buffer
			require.NoError(t, tc.write(&first))
			require.NoError(t, tc.write(&second))
			assert.Equal(t, first.String(), second.String(), "output differs between two runs")
			golden(t, tc.golden, first.Bytes())
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	var b bytes.Buffer
	err := Write(&b, "xml", sampleResult(), Options{})
	assert.ErrorContains(t, err, `unknown report format "xml"`)
	assert.Zero(t, b.Len())
}

func TestTextWithoutColorHasNoEscapes(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, sampleResult(), Options{}))
	assert.NotContains(t, b.String(), "\x1b")
	o := Options{Color: true}
	b.Reset()
	require.NoError(t, WriteText(&b, sampleResult(), o))
	assert.Contains(t, b.String(), "\x1b[1;31merror:\x1b[0m")
}

func TestSummary(t *testing.T) {
	assert.Equal(t, "5 errors, 2 warnings in 4 files (2 packages, 3 channels, 5 bundles)", Summary(sampleResult()))
	one := &validate.Result{Stats: validate.Stats{Files: 1, Packages: 1, Channels: 1, Bundles: 1},
		Diagnostics: []declcfg.Finding{{Severity: declcfg.SeverityError}, {Severity: declcfg.SeverityWarning}}}
	assert.Equal(t, "1 error, 1 warning in 1 file (1 package, 1 channel, 1 bundle)", Summary(one))
}

func TestStepSummaryIsBounded(t *testing.T) {
	res := &validate.Result{}
	for range maxSummaryRows + 7 {
		res.Diagnostics = append(res.Diagnostics, declcfg.Finding{Rule: "r", Severity: declcfg.SeverityWarning, Message: "m"})
	}
	var b bytes.Buffer
	require.NoError(t, WriteStepSummary(&b, res, Options{}))
	assert.Equal(t, maxSummaryRows, bytes.Count(b.Bytes(), []byte("| warning |")))
	assert.Contains(t, b.String(), "7 more diagnostics are not shown")
}
