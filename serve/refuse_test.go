package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// What serve refuses in a bundle is found by validate's own checks: each
// of serve's findings is one fbc validate reports for the same catalog,
// rule id, severity, position, package, bundle and message alike. The
// catalog is the one serve_validate_same.txtar runs both commands on; a
// second copy, written as JSON, holds them to the same over the other
// parser.
func TestRefusalsAreValidates(t *testing.T) {
	t.Parallel()
	ar, err := txtar.ParseFile("../testdata/script/serve_validate_same.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var catalog []byte
	for _, f := range ar.Files {
		if f.Name == "bad/catalog.yaml" {
			catalog = f.Data
		}
	}
	if catalog == nil {
		t.Fatal("serve_validate_same.txtar has no bad/catalog.yaml")
	}
	var stream []byte
	for _, doc := range strings.Split(string(catalog), "\n---\n") {
		j, err := sigsyaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		stream = append(append(stream, j...), '\n')
	}
	for name, data := range map[string][]byte{"catalog.yaml": catalog, "catalog.json": stream} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Load(context.Background(), dirSource(dir), LoadOptions{TempDir: t.TempDir()})
		var ie *InvalidError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: the catalog loaded: %v", name, err)
		}
		res, err := validate.Validate(context.Background(), []string{dir}, validate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rules := map[string]bool{}
		for _, f := range ie.Problems {
			rules[f.Rule] = true
			if !slices.Contains(res.Diagnostics, f) {
				t.Errorf("%s: serve refuses with a finding fbc validate does not report: %+v", name, f)
			}
		}
		for _, r := range []string{validate.RuleBundleVersion, validate.RuleBundleObject, validate.RulePackageProperty, declcfg.RuleFieldType, validate.RuleInvalidValue} {
			if !rules[r] {
				t.Errorf("%s: serve reports no %s finding; the catalog has one", name, r)
			}
		}
	}
}
