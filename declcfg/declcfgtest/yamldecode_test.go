package declcfgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder keeps the errors DecodeYAMLNodes reports (from several goroutines).
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.Error(args...) }
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprint(args...))
}

// TestDecodeYAMLNodes checks that the baseline really decodes: a file that is
// not YAML is reported, naming it, and valid multi-document files are not.
func TestDecodeYAMLNodes(t *testing.T) {
	dir := t.TempDir()
	good := "schema: olm.package\nname: a\n---\nschema: olm.channel\nname: b\n"
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	DecodeYAMLNodes(r, dir, 2)
	if len(r.errs) != 0 {
		t.Fatalf("valid YAML reported: %v", r.errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("a: [b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	DecodeYAMLNodes(r, dir, 2)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "bad.yaml: ") {
		t.Fatalf("want one error naming bad.yaml, got %v", r.errs)
	}
}
