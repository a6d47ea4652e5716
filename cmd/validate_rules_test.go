package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/validate"
)

// TestValidateRuleCatalogs runs `fbc validate` on every catalog under
// testdata/validate: invalid/<rule>/catalog must report rule <rule> (golden
// output in invalid/<rule>/want.txt; `go test ./cmd -update` rewrites it),
// valid/<name>/catalog must report nothing. An optional args file holds
// extra arguments, one per line, with $CASE standing for the case directory.
func TestValidateRuleCatalogs(t *testing.T) {
	root := filepath.Join(repoRoot(t), "testdata", "validate")
	for _, kind := range []string{"invalid", "valid"} {
		cases, err := os.ReadDir(filepath.Join(root, kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if !c.IsDir() {
				continue
			}
			dir := filepath.Join(root, kind, c.Name())
			t.Run(kind+"/"+c.Name(), func(t *testing.T) {
				code, out := runValidateCase(t, dir)
				if kind == "valid" {
					if code != ExitOK || out != "" {
						t.Fatalf("exit %d, want 0 and no diagnostics:\n%s", code, out)
					}
					return
				}
				if !strings.Contains(out, "["+c.Name()+"]\n") {
					t.Errorf("no diagnostic of rule %s:\n%s", c.Name(), out)
				}
				want := ExitOK
				if strings.Contains(out, ": error: ") {
					want = ExitFindings
				}
				if code != want {
					t.Errorf("exit %d, want %d", code, want)
				}
				golden := filepath.Join(dir, "want.txt")
				if *updateScripts {
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				wantOut, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./cmd -run TestValidateRuleCatalogs -update)", err)
				}
				if out != string(wantOut) {
					t.Errorf("output differs from %s (-update rewrites it)\n--- got\n%s--- want\n%s", golden, out, wantOut)
				}
			})
		}
	}
}

// runValidateCase runs the real command line in process, in the case
// directory's terms: positions are printed relative to it.
func runValidateCase(t *testing.T, dir string) (int, string) {
	t.Helper()
	rel, err := filepath.Rel(mustGetwd(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"validate"}
	if data, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		for _, a := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			args = append(args, strings.ReplaceAll(a, "$CASE", rel))
		}
	}
	args = append(args, filepath.Join(rel, "catalog"))
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	if code == ExitTrouble {
		t.Fatalf("fbc %s: exit 2: %s", strings.Join(args, " "), stderr.String())
	}
	return code, strings.ReplaceAll(stdout.String(), rel+string(filepath.Separator), "")
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestEveryRuleHasACatalog keeps testdata/validate/invalid in step with the
// rule catalogue.
func TestEveryRuleHasACatalog(t *testing.T) {
	elsewhere := map[string]string{
		"io-error":                  "needs an unreadable file, which cannot be committed: validate_badinput.txtar makes one",
		"bundle-size":               "needs a mebibyte of incompressible manifests, made when the test runs: validate_bundle_size.txtar",
		"konflux-empty-package-dir": "needs an empty folder, which git does not keep: validate_konflux.txtar makes one",
		// The repository rules take an operator repository, not a catalog.
		"ci-yaml-schema":                 "validate_repository.txtar",
		"ci-yaml-catalog-mapping":        "validate_repository.txtar",
		"release-config-schema":          "validate_repository.txtar",
		"release-config-fbc":             "validate_repository.txtar",
		"release-config-template":        "validate_repository.txtar",
		"release-config-semver-channels": "validate_repository.txtar",
		"release-config-default-channel": "validate_repository.txtar",
		"yamllint":                       "validate_repository_yamllint.txtar",
		"operator-graph-loop":            "validate_repository_graph.txtar",
		"operator-dangling-bundle":       "validate_repository_graph.txtar",
		"allowed-bundle-registry":        "validate_repository_catalogs.txtar",
		"catalog-file":                   "validate_repository_catalogs.txtar",
		"catalog-yaml":                   "validate_repository_catalogs.txtar",
		// The shape of a change, judged against a base.
		"pr-extra-files":        "validate_base_shape.txtar",
		"pr-operators":          "validate_base_shape.txtar",
		"pr-modified-bundle":    "validate_base_shape.txtar",
		"pr-deleted-bundle":     "validate_base_shape.txtar",
		"pr-added-bundles":      "validate_base_shape.txtar",
		"pr-bundle-and-catalog": "validate_base_shape.txtar",
		// Warnings of the run, not of a catalog.
		"run-warning": "validate_profile_plugin.txtar, validate_removed_api.txtar",
	}
	root := filepath.Join(repoRoot(t), "testdata", "validate", "invalid")
	for _, r := range validate.Rules() {
		if _, ok := elsewhere[r.ID]; ok {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, r.ID, "catalog")); err != nil {
			t.Errorf("rule %s has no catalog in testdata/validate/invalid/%s", r.ID, r.ID)
		}
	}
}
