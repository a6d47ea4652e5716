package declcfg

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

func TestCheckPackageName(t *testing.T) {
	for name, ok := range map[string]bool{
		"etcd": true, "my-operator": true, "0x1": true, "a": true,
		"": false, "Foo": false, "foo_bar": false, "-foo": false, "foo-": false, "foo.bar": false,
		"a123456789012345678901234567890123456789012345678901234567890123": false, // 64
	} {
		err := CheckPackageName(name)
		assert.Equal(t, ok, err == nil, "%q: %v", name, err)
	}
}

func TestCheckDescription(t *testing.T) {
	tests := []struct{ name, text, err string }{
		{"markdown", "# Acme\n\nIt *runs* things.\r\n\tIndented.\n", ""},
		{"empty", "", ""},
		{"unicode, BOM, replacement character", "\ufeffcafé \u2014 \ufffd ok", ""},
		{"binary", "\x01\x02\x03\x04\xff", "description is not text: control character U+0001 at byte 0"},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00", "description is not text (it is an image, image/png)"},
		{"pdf", "%PDF-1.4\n\x80\x81", "description is not text (it is a PDF document)"},
		{"gzip", "\x1f\x8b\x08\x00", "description is not text (it is gzip-compressed)"},
		{"text with a NUL", "hello\x00world", "description is not text (unrecognised binary content)"},
		{"latin-1", "caf\xe9 au lait", "description is not text: invalid UTF-8 at byte 3"},
		{"escape sequence late in the text", strings.Repeat("a", 600) + "\x1b[31mred", "description is not text: control character U+001B at byte 600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDescription(tt.text)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestIconMediaType(t *testing.T) {
	tests := []struct {
		name, data, want, err string
	}{
		{"png", "\x89PNG\r\n\x1a\n\x00\x00", "image/png", ""},
		{"jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg", ""},
		{"gif87", "GIF87a\x01\x00", "image/gif", ""},
		{"webp", "RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp", ""},
		{"riff but not webp", "RIFF\x10\x00\x00\x00WAVEfmt ", "", "not an image"},
		{"bmp", "BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00", "image/bmp", ""},
		{"bmp, OS/2 header", "BM\x1a\x00\x00\x00\x00\x00\x00\x00\x1a\x00\x00\x00\x0c\x00\x00\x00", "image/bmp", ""},
		{"text starting with BM", "BMW is a car, not a bitmap\n", "", "it is text"},
		{"BM and nothing else", "BM", "", "it is text"},
		{"ico", "\x00\x00\x01\x00\x01\x00", "image/vnd.microsoft.icon", ""},
		{"avif", "\x00\x00\x00\x1cftypavif\x00\x00", "image/avif", ""},
		{"svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`, "image/svg+xml", ""},
		{"svg with prolog, doctype, comment, BOM", "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<!-- c -->\n<svg></svg>", "image/svg+xml", ""},
		{"html", "<html><svg/></html>", "", "markup, but not an SVG document"},
		{"text", "hello", "", "it is text"},
		{"empty", "", "", "the file is empty"},
		{"pdf", "%PDF-1.4", "", "PDF document"},
		{"tiff", "MM\x00*\x00\x00", "", "TIFF image, which consoles do not display"},
		{"heif", "\x00\x00\x00\x18ftypheic", "", "HEIF image"},
		{"binary", "\x01\x02\x03\x04", "", "unrecognised binary content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := IconMediaType([]byte(tt.data))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestIconMediaTypeCorpus reads every package icon of the real catalogs and
// expects the media type their authors declared.
func TestIconMediaTypeCorpus(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	roots, err := filepath.Glob(filepath.Join(corpus, "*", "catalogs", "v4.18"))
	require.NoError(t, err)
	n := 0
	for _, root := range roots {
		cfg, err := Load(context.Background(), []string{root}, LoadOptions{})
		require.NoError(t, err)
		for _, p := range cfg.Packages {
			if p.Icon == nil || len(p.Icon.Data) == 0 {
				continue
			}
			n++
			got, err := IconMediaType(p.Icon.Data)
			if assert.NoError(t, err, "%s: %s", p.Pos, p.Name) {
				assert.Equal(t, p.Icon.MediaType, got, "%s: %s", p.Pos, p.Name)
			}
		}
	}
	t.Logf("%d icons", n)
	assert.Greater(t, n, 50)
}
