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

// CheckoutPackage writes a commit's operators/<pkg>, catalogs/*/<pkg> and
// config.yaml of an operator repository's git directory (Mirror) into
// dest, as `git archive` gives them. Each subtree is archived on its own
// (COMMIT:PATH): a fetched copy lacks a few old blobs, and an archive of
// paths would stop at one of another package.
func CheckoutPackage(t testing.TB, git, commit, pkg, dest string) {
	t.Helper()
	paths := []string{"operators/" + pkg}
	for _, c := range strings.Fields(gitOut(t, git, "ls-tree", "--name-only", commit, "catalogs/")) {
		paths = append(paths, c+"/"+pkg)
	}
	for _, p := range paths {
		if exec.Command("git", "--git-dir", git, "cat-file", "-e", commit+":"+p).Run() != nil {
			continue // not at this commit
		}
		cmd := exec.Command("git", "--git-dir", git, "archive", "--format=tar", "--prefix="+p+"/", commit+":"+p)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		tarball, err := cmd.Output()
		if err != nil {
			t.Fatalf("git archive %s:%s: %v\n%s", commit, p, err, stderr.String())
		}
		untar(t, tarball, dest)
	}
	if data, err := exec.Command("git", "--git-dir", git, "show", commit+":config.yaml").Output(); err == nil {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dest, "config.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// untar writes a tar stream's folders and regular files into dest.
func untar(t testing.TB, tarball []byte, dest string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
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
