package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestImportRules enforces ARCHITECTURE.md's import direction: declcfg is the
// floor, model (the catalog as OLM sees it) stands on declcfg alone, cobra
// stays in cmd, CUE in validate, go-containerregistry in image and the SAT
// solver in resolve.
func TestImportRules(t *testing.T) {
	const mod = "github.com/fbc-project/fbc"
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// allowed lists, per top-level package, which of our packages it may
	// import (directly or not); its own subpackages are always allowed.
	allowed := map[string][]string{
		"internal": {},
		"declcfg":  {"internal"},
		"model":    {"declcfg", "internal"},
		"validate": {"declcfg", "model", "internal"},
		"graph":    {"declcfg", "model", "internal"},
		"image":    {"declcfg", "internal"},
		"render":   {"declcfg", "image", "internal"},
		"template": {"declcfg", "image", "render", "model", "validate", "internal"},
		"compose":  {"declcfg", "image", "render", "model", "internal"},
		"resolve":  {"declcfg", "image", "render", "model", "internal"},
		"serve":    {"declcfg", "image", "render", "model", "internal"},
	}
	// exclusive lists third-party module prefixes only one of our top-level
	// packages (and cmd, which wires it) may import.
	exclusive := map[string]string{
		"github.com/spf13/cobra":                 "cmd",
		"cuelang.org/go":                         "validate",
		"github.com/google/go-containerregistry": "image",
		"github.com/Masterminds/semver":          "graph",
		"github.com/go-air/gini":                 "resolve",
		"google.golang.org/grpc":                 "serve",
	}
	top := func(pkg string) string {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
		return strings.SplitN(rel, "/", 2)[0]
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Deps       []string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		self := top(p.ImportPath)
		for _, d := range p.Deps {
			if strings.HasPrefix(d, mod+"/") {
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
		}
		// Exclusivity is about direct imports: render may use image, which
		// uses go-containerregistry, without importing it itself.
		for _, d := range p.Imports {
			for prefix, owner := range exclusive {
				if strings.HasPrefix(d, prefix) && self != owner && self != "cmd" && self != "" {
					t.Errorf("%s imports %s: only %s may", p.ImportPath, d, owner)
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
