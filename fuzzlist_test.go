package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFuzzTargetsListed keeps `make fuzz` honest: every func Fuzz* in the
// tree is in the Makefile's FUZZ_TARGETS, and every listed target exists.
func TestFuzzTargetsListed(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?ms)^FUZZ_TARGETS :=(.*?)^\S`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no FUZZ_TARGETS")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	slices.Sort(listed)

	var found []string
	re := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	err = filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(src, -1) {
			found = append(found, filepath.ToSlash(filepath.Dir(p))+":"+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	if !slices.Equal(listed, found) {
		t.Errorf("Makefile FUZZ_TARGETS = %v\nfunc Fuzz* in the tree = %v", listed, found)
	}
}
