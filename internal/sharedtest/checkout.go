package sharedtest

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CheckoutPackage writes a commit's operators/<pkg> and catalogs/*/<pkg> of
// an operator repository's git directory (Mirror) into dest, as `git
// archive` gives them.
func CheckoutPackage(t testing.TB, git, commit, pkg, dest string) {
	t.Helper()
	out := gitOut(t, git, "ls-tree", "--name-only", commit, "catalogs/")
	var cands []string
	for _, c := range strings.Fields(out) {
		cands = append(cands, c+"/"+pkg)
	}
	paths := []string{"operators/" + pkg}
	if len(cands) > 0 {
		paths = append(paths, strings.Fields(gitOut(t, git, append([]string{"ls-tree", "--name-only", commit, "--"}, cands...)...))...)
	}
	cmd := exec.Command("git", append([]string{"--git-dir", git, "archive", "--format=tar", commit, "--"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	tarball, err := cmd.Output()
	if err != nil {
		t.Fatalf("git archive %s: %v\n%s", commit, err, stderr.String())
	}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dest, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func gitOut(t testing.TB, git string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", git}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
