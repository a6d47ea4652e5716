package profile

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSniffImage(t *testing.T) {
	for want, data := range map[string]string{
		"image/png":     "\x89PNG\r\n\x1a\n....",
		"image/jpeg":    "\xff\xd8\xff\xe0..",
		"image/gif":     "GIF89a...",
		"image/svg+xml": "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
		"":              "<svgx/>",
	} {
		if got := sniffImage([]byte(data)); got != want {
			t.Errorf("sniffImage(%q) = %q, want %q", data, got, want)
		}
	}
	for _, data := range []string{"<html><svg/></html>", "<?xml version=\"1.0\"", "\x00\x00\x01\x00icon"} {
		if got := sniffImage([]byte(data)); got != "" {
			t.Errorf("sniffImage(%q) = %q, want nothing", data, got)
		}
	}
	if got := otherFormat([]byte("\x00\x00\x01\x00icon")); !strings.Contains(got, ".ico") {
		t.Errorf("otherFormat(ico) = %q", got)
	}
}

func TestDecodeIcon(t *testing.T) {
	raw := []byte("\x89PNG\r\n\x1a\nabcdefgh")
	enc := base64.StdEncoding.EncodeToString(raw)
	for _, in := range []string{enc, strings.TrimRight(enc, "="), enc[:8] + "\n  " + enc[8:]} {
		got, err := decodeIcon(in)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("decodeIcon(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := decodeIcon("not*base64"); err == nil {
		t.Error("decodeIcon accepted *")
	}
}

// TestCompressedBound checks that the bound the size check relies on is
// never below what gzip and base64 make, for the worst input
// (incompressible bytes) and for ordinary text.
func TestCompressedBound(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, 65535, 65536, 200000, 1 << 20} {
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(rnd.Uint32())
		}
		text := bytes.Repeat([]byte("spec: {replicas: 1}\n"), n/20+1)[:n]
		for _, data := range [][]byte{random, text} {
			if got, bound := gzipBase64Len(data), compressedBound(len(data)); got > bound {
				t.Errorf("%d bytes: base64(gzip) is %d, above the bound %d", n, got, bound)
			}
		}
	}
}

func TestConciseCrdifyError(t *testing.T) {
	raw := "unhandled changes found :\n  &v1.JSONSchemaProps{\n  \t... // 12 identical fields\n  \tMaxLength: nil,\n  \tPattern: strings.Join({\n  \t\t\"^([a-z0-9]+\",\n- \t\t\"a-z0-9]+\",\n+ \t\t\"$a-zA-Z0-9_]+\",\n  \t}, \"\"),\n- \tXMapType: &\"granular\",\n+ \tXMapType: nil,\n  \tMaxItems: nil,\n  }\n"
	if got, want := conciseCrdifyError("unhandled", raw), "a change crdify does not judge (Pattern, XMapType)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := conciseCrdifyError("unhandled", strings.NewReplacer("- \t", "-\u00a0\t", "+ \t", "+\u00a0\t", "  \t", "\u00a0\u00a0\t").Replace(raw)), "a change crdify does not judge (Pattern, XMapType)"; got != want {
		t.Errorf("with no-break spaces: got %q, want %q", got, want)
	}
	if got := conciseCrdifyError("type", "type changed"); got != "type changed" {
		t.Errorf("other validations keep their message: %q", got)
	}
}

func TestSortedLists(t *testing.T) {
	if got := sortedLists("new required fields: [users archiver nodePort] and [b a]"); got != "new required fields: [archiver nodePort users] and [a b]" {
		t.Errorf("got %q", got)
	}
}
