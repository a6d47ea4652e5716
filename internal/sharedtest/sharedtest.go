// Package sharedtest finds the team's shared folder (real catalogs and
// bundles in corpus/, verified scenarios in vectors/) and fetched copies of
// public repositories (Mirror) for tests and benchmarks that read them. It
// is used by tests only.
package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Missing ends a test that needs something of the shared folder that is not
// there: it is skipped on a developer's machine, and fails where the
// environment variable CI is set, so that CI cannot pass without running it.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatalf("%s (CI is set: tests that need the shared folder must run there)", msg)
	}
	tb.Skip(msg)
}

// InCI reports whether the tests run in CI (the environment variable CI is
// set to anything but "" or "false"), where nothing they need may be
// missing.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Find returns the shared folder, or "" when there is none: $FBC_SHARED,
// else the first folder named "shared" with a corpus beside the working
// directory or one of its parents (../shared next to a checkout).
func Find() string {
	if d := os.Getenv("FBC_SHARED"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		d := filepath.Join(dir, "shared")
		if st, err := os.Stat(filepath.Join(d, "corpus")); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Dir returns the shared folder (Find); when there is none the test is
// Missing.
func Dir(tb testing.TB) string {
	tb.Helper()
	d := Find()
	if d == "" {
		wd, _ := os.Getwd()
		Missing(tb, "shared folder not found above %s (set FBC_SHARED)", wd)
	}
	return d
}

// Path returns a file or folder of the shared folder, elem joined below it;
// when it is not there the test is Missing.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "%s not found (set FBC_SHARED to the shared folder)", p)
	}
	return p
}

// ReadVector reads vectors/name of the shared folder; when it is not there
// the test is Missing.
func ReadVector(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(Path(tb, "vectors", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Corpus returns the shared corpus of real catalogs and bundles; when it is
// not there the test is Missing.
func Corpus(tb testing.TB) string {
	tb.Helper()
	c := filepath.Join(Dir(tb), "corpus")
	if _, err := os.Stat(filepath.Join(c, "README.md")); err != nil {
		Missing(tb, "corpus not found at %s", c)
	}
	return c
}

// ReadCorpus reads the corpus files matching each pattern (a filepath.Glob
// pattern relative to the corpus), for benchmarks that parse real data;
// size is their total length. It skips the test when a pattern matches
// nothing.
func ReadCorpus(tb testing.TB, patterns ...string) (files [][]byte, size int64) {
	tb.Helper()
	corpus := Corpus(tb)
	for _, pattern := range patterns {
		matches, err := filepath.Glob(filepath.Join(corpus, pattern))
		if err != nil || len(matches) == 0 {
			Missing(tb, "no corpus file matches %s: %v", pattern, err)
		}
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				tb.Fatal(err)
			}
			files = append(files, data)
			size += int64(len(data))
		}
	}
	return files, size
}

// Mirror returns the git directory of a fetched GitHub repository
// ("owner/name"): $FBC_MIRRORS/owner+name/repo, else the same under the
// first folder named .mirror beside the working directory or one of its
// parents (where the fetch tool puts them). It skips the test, saying how
// to fetch it, when the repository is not there.
func Mirror(tb testing.TB, repo string) string {
	tb.Helper()
	name := strings.Replace(repo, "/", "+", 1)
	var tried []string
	if d := os.Getenv("FBC_MIRRORS"); d != "" {
		p := filepath.Join(d, name, "repo")
		if isGitDir(p) {
			return p
		}
		tried = append(tried, p)
	} else if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			p := filepath.Join(dir, ".mirror", name, "repo")
			if isGitDir(p) {
				return p
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		tried = append(tried, ".mirror/"+name+"/repo above "+wd)
	}
	tb.Skipf("repository %s is not fetched (looked in %s): fetch github:%s, or set FBC_MIRRORS to a folder holding %s/repo (a git directory)", repo, strings.Join(tried, ", "), repo, name)
	return ""
}

func isGitDir(p string) bool {
	st, err := os.Stat(filepath.Join(p, "HEAD"))
	return err == nil && !st.IsDir()
}
