package imagetest

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEntries(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.yaml"), []byte("kind: X\n"), 0o644)
	got, err := ParseEntries(`
# comment
file configs/a.json {"a": 1}
file configs/b.yaml @body.yaml
file configs/empty
big configs/big 2K
dir configs/d
symlink configs/l a.json
hardlink configs/h configs/a.json
fifo configs/p
whiteout configs/old.json
opaque configs/d
`, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Name: "configs/a.json", Body: []byte(`{"a": 1}`)},
		{Name: "configs/b.yaml", Body: []byte("kind: X\n")},
		{Name: "configs/empty", Body: []byte{}},
		{Name: "configs/big", Size: 2048},
		{Name: "configs/d", Type: tar.TypeDir},
		{Name: "configs/l", Type: tar.TypeSymlink, Linkname: "a.json"},
		{Name: "configs/h", Type: tar.TypeLink, Linkname: "configs/a.json"},
		{Name: "configs/p", Type: tar.TypeFifo},
		{Name: "configs/.wh.old.json"},
		{Name: "configs/d/.wh..wh..opq"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries: %+v", len(got), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Type != w.Type || g.Linkname != w.Linkname || g.Size != w.Size || string(g.Body) != string(w.Body) {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	for _, bad := range []struct{ text, want string }{
		{"file", "want KIND NAME"},
		{"blob x", "unknown entry kind blob"},
		{"big x lots", `bad size "lots"`},
		{"symlink x", "want symlink NAME TARGET"},
		{"file x @missing", "no such file"},
	} {
		_, err := ParseEntries(bad.text, dir)
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: err = %v, want %q", bad.text, err, bad.want)
		}
	}
}

func TestStartDistributionMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("FBC_TOOLS", t.TempDir())
	_, err := StartDistribution(t.TempDir(), "127.0.0.1", "")
	if err != ErrNoDistribution || !strings.Contains(err.Error(), "make test-deps") {
		t.Errorf("err = %v", err)
	}
}

// TestDistributionBinaryInToolsCache: the binary test-deps unpacks into the
// tools cache is found there first, without being on $PATH.
func TestDistributionBinaryInToolsCache(t *testing.T) {
	tools := t.TempDir()
	t.Setenv("FBC_TOOLS", tools)
	t.Setenv("PATH", t.TempDir())
	if got := DistributionBinary(); got != "" {
		t.Fatalf("found %q in an empty cache", got)
	}
	bin := filepath.Join(tools, "docker-registry", "docker-registry")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := DistributionBinary(); got != bin {
		t.Errorf("DistributionBinary() = %q, want %q", got, bin)
	}
}
