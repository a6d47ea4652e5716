package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const mod = "github.com/fbc-project/fbc"

// goPackage is what TestImportRules reads of `go list -json`.
type goPackage struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Deps       []string
	Imports    []string
}

// top is the top-level package of one of ours ("" for the module root).
func top(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
	return strings.SplitN(rel, "/", 2)[0]
}

// library reports whether p is library code the rules of
// docs/architecture.md bind: not the CLI, not a program, not a test helper.
func (p goPackage) library() bool {
	t := top(p.ImportPath)
	return t != "" && t != "cmd" && p.Name != "main" && !strings.HasSuffix(p.ImportPath, "test")
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules enforces the import rules docs/architecture.md states:
// declcfg is the floor, model stands on declcfg alone, capabilities reach
// images only through render, internal imports nothing of ours, and each
// heavy third-party library stays in the one package that owns it.
func TestImportRules(t *testing.T) {
	// allowed lists, per top-level package, which of our packages it may
	// depend on (directly or not); its own subpackages are always allowed.
	capability := []string{"declcfg", "model", "graph", "validate", "repo", "render", "image", "internal"}
	allowed := map[string][]string{
		"internal": {},
		"declcfg":  {"internal"},
		"model":    {"declcfg", "internal"},
		"validate": {"declcfg", "model", "repo", "internal"},
		"graph":    {"declcfg", "model", "internal"},
		"image":    {"internal"},
		"render":   {"declcfg", "image", "repo", "internal"},
		"compose":  capability,
		"template": capability,
		"resolve":  capability,
		"serve":    capability,
		"repo":     {"declcfg", "internal"},
		"pipeline": append([]string{"repo", "template"}, capability...),
		"images":   {"declcfg", "model", "graph", "validate", "repo", "render", "image", "template", "serve", "internal"},
		"mirror":   append([]string{"compose", "images", "template", "serve"}, capability...),
		"review":   append([]string{"repo", "template", "serve", "pipeline", "images"}, capability...),
		// build validates a catalog, then has image pack and send it.
		"build": {"declcfg", "model", "validate", "repo", "image", "internal"},
	}
	// direct lists packages of ours that only these top-level packages may
	// import directly: capabilities read images through render.
	direct := map[string][]string{
		"image": {"render", "images", "build", "cmd"},
	}
	// directPath lists packages of ours, by path, that only these
	// top-level packages may import: the upgrade-graph page draws what
	// graph computes, for the CLI, and nothing computes with it.
	directPath := map[string][]string{
		"graph/page": {"cmd"},
	}
	// exclusive lists third-party module prefixes only one of our top-level
	// packages (and cmd, which wires it) may import; shared names the few
	// that a second package may import too, and why.
	exclusive := map[string]string{
		"github.com/spf13/cobra":                 "cmd",
		"github.com/spf13/pflag":                 "cmd",
		"cuelang.org/go":                         "validate",
		"github.com/google/go-containerregistry": "image",
		"github.com/sabhiram/go-gitignore":       "declcfg",
		"go.yaml.in/yaml/v3":                     "declcfg",
		"gopkg.in/yaml.v3":                       "declcfg",
		"github.com/Masterminds/semver":          "graph",
		"github.com/go-air/gini":                 "resolve",
		"google.golang.org/grpc":                 "serve",
		"github.com/operator-framework/api":      "validate",
		"sigs.k8s.io/crdify":                     "validate",
		"k8s.io/":                                "validate",
	}
	shared := map[string]string{
		// oc-mirror's catalog filter reads versions and ranges with
		// Masterminds; mirror cuts catalogs by its rules.
		"github.com/Masterminds/semver": "mirror",
	}
	// heavy lists libraries that take long to build and load; only the
	// bundle-content checks (validate/profile) and the executable that
	// runs them (cmd/fbc-profile) may depend on them, directly or not, so
	// that fbc and the rest of the libraries stay quick to build, load and
	// test (TestLeanFBC holds the fbc executable to it).
	heavy := []string{"github.com/operator-framework/api", "sigs.k8s.io/crdify", "k8s.io/"}
	mayBeHeavy := func(pkg string) bool {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
		return rel == "cmd/fbc-profile" || rel == "validate/profile" || strings.HasPrefix(rel, "validate/profile/")
	}
	for _, p := range listPackages(t) {
		self := top(p.ImportPath)
		if !mayBeHeavy(p.ImportPath) {
			for _, d := range p.Deps {
				for _, h := range heavy {
					if strings.HasPrefix(d, h) {
						t.Errorf("%s depends on %s: only validate/profile (and cmd/fbc-profile) may pull in the Kubernetes libraries", p.ImportPath, d)
					}
				}
			}
		}
		for _, d := range p.Deps {
			if !strings.HasPrefix(d, mod+"/") {
				continue
			}
			dt := top(d)
			if dt == self {
				continue
			}
			if dt == "cmd" && self != "" {
				t.Errorf("%s imports %s: nothing may import cmd", p.ImportPath, d)
			}
			if rules, ok := allowed[self]; ok && !contains(rules, dt) {
				t.Errorf("%s depends on %s: %s may only use %v", p.ImportPath, d, self, rules)
			}
		}
		// Exclusivity is about direct imports: render may use image, which
		// uses go-containerregistry, without importing it itself.
		for _, d := range p.Imports {
			for prefix, owner := range exclusive {
				if strings.HasPrefix(d, prefix) && self != owner && self != shared[prefix] && self != "cmd" && self != "" {
					t.Errorf("%s imports %s: only %s may", p.ImportPath, d, owner)
				}
			}
			if strings.HasPrefix(d, mod+"/") && top(d) != self {
				if who, ok := direct[top(d)]; ok && !contains(who, self) && !strings.HasSuffix(p.ImportPath, "test") {
					t.Errorf("%s imports %s: only %v may import it directly", p.ImportPath, d, who)
				}
			}
			if who, ok := directPath[strings.TrimPrefix(d, mod+"/")]; ok && !contains(who, self) && !strings.HasSuffix(p.ImportPath, "test") {
				t.Errorf("%s imports %s: only %v may import it", p.ImportPath, d, who)
			}
		}
	}
}

// TestLeanFBC holds the fbc executable (the module's main package) to what
// issue "A lean fbc" decided: none of the Kubernetes server stack, the
// validators of operator-framework/api or crdify, which only fbc-profile
// links. Their packages initialise on every run of every command, and fbc
// build --server fbc ships this executable in every catalog image.
func TestLeanFBC(t *testing.T) {
	forbidden := []string{
		"k8s.io/apiserver", "k8s.io/apiextensions-apiserver", "k8s.io/client-go",
		"sigs.k8s.io/controller-runtime", "go.opentelemetry.io/", "github.com/prometheus/",
		"github.com/operator-framework/api/pkg/validation", "sigs.k8s.io/crdify",
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps . listed %d packages: not the fbc executable's dependencies", len(deps))
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(d, f) {
				t.Errorf("fbc links %s: the fbc executable must not link %s (validate/profile's checks run in fbc-profile)", d, f)
			}
		}
	}
}

// TestLibrariesLeaveTheRunToMain enforces that options come in as structs
// and only cmd.Main ends the run: no library package calls os.Exit or
// log.Fatal, or reads the environment.
func TestLibrariesLeaveTheRunToMain(t *testing.T) {
	forbidden := regexp.MustCompile(`\b(os\.Exit|log\.Fatal\w*|log\.Panic\w*|os\.Getenv|os\.LookupEnv|os\.Environ)\(`)
	for _, p := range listPackages(t) {
		if !p.library() {
			continue
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(data), "\n") {
				if code, _, _ := strings.Cut(line, "//"); forbidden.MatchString(code) {
					t.Errorf("%s:%d: %s: libraries leave exits and the environment to cmd", filepath.Join(top(p.ImportPath), f), i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
