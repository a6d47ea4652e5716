package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/model"
)

// breakage is a fault injected into a merged change: it edits the merged
// tree's files under root (an operator repository holding package pkg and
// its catalog catalogs/<cat>/<pkg>) and names the file a check must name,
// or returns "" when the change has nothing to break that way.
type breakage struct {
	name string
	// oldest breaks the change's oldest catalog rather than its newest:
	// catalogs for 4.17 and later carry olm.csv.metadata, not the embedded
	// CSV a csv-renamed breakage edits.
	oldest bool
	inject func(t *testing.T, root, pkg, cat string) string
}

// breakages are the faults the pipelines refuse that a maintainer's checks
// must catch: a replaces naming no entry, a removed channel head, a bundle
// image outside config.yaml's allowed_bundle_registries, an unknown
// template type in ci.yaml, a YAML syntax error, an embedded CSV renamed
// away from its bundle's name (a csv-mismatch warning).
var breakages = []breakage{
	// The head's replaces made to name no entry: the bundle it replaced
	// becomes a second head, which opm refuses.
	{"replaces-nothing", false, func(t *testing.T, root, pkg, cat string) string {
		return editCatalog(t, root, pkg, cat, func(cfg *declcfg.DeclarativeConfig) bool {
			return onHead(cfg, func(ch *declcfg.Channel, i int) bool {
				e := &ch.Entries[i]
				if e.Replaces == "" || len(e.Skips) > 0 {
					return false
				}
				e.Replaces = pkg + ".v0.0.0-no-such-bundle"
				return true
			})
		})
	}},
	// A channel's head taken out: its users can no longer upgrade, and new
	// installs get an older version.
	{"head-removed", false, func(t *testing.T, root, pkg, cat string) string {
		return editCatalog(t, root, pkg, cat, func(cfg *declcfg.DeclarativeConfig) bool {
			return onHead(cfg, func(ch *declcfg.Channel, i int) bool {
				if len(ch.Entries) < 2 {
					return false
				}
				ch.Entries = append(ch.Entries[:i:i], ch.Entries[i+1:]...)
				return true
			})
		})
	}},
	{"registry-not-allowed", false, func(t *testing.T, root, pkg, cat string) string {
		return editCatalog(t, root, pkg, cat, func(cfg *declcfg.DeclarativeConfig) bool {
			if len(cfg.Bundles) == 0 {
				return false
			}
			cfg.Bundles[0].Image = "registry.example.com/not-allowed/" + pkg + "@sha256:" + strings.Repeat("ab", 32)
			return true
		})
	}},
	{"template-type", false, func(t *testing.T, root, pkg, cat string) string {
		ci := filepath.Join(root, "operators", pkg, "ci.yaml")
		data, err := os.ReadFile(ci)
		if err != nil || !bytes.Contains(data, []byte("type: olm.")) {
			return ""
		}
		data = bytes.Replace(data, []byte("type: olm."), []byte("type: olm.template.unknown-"), 1)
		writeFile(t, ci, data)
		return ci
	}},
	{"yaml-syntax", false, func(t *testing.T, root, pkg, cat string) string {
		f := catalogFile(root, pkg, cat)
		data, err := os.ReadFile(f)
		if err != nil || !strings.HasSuffix(f, ".yaml") {
			return ""
		}
		writeFile(t, f, append(data, []byte("---\nschema: olm.channel\nname: broken\n  entries: [\n")...))
		return f
	}},
	{"csv-renamed", true, func(t *testing.T, root, pkg, cat string) string {
		return editCatalog(t, root, pkg, cat, func(cfg *declcfg.DeclarativeConfig) bool {
			for bi := range cfg.Bundles {
				for pi, p := range cfg.Bundles[bi].Properties {
					if p.Type != declcfg.PropertyBundleObject {
						continue
					}
					var obj struct {
						Data string `json:"data"`
					}
					if json.Unmarshal(p.Value, &obj) != nil {
						continue
					}
					raw, err := base64.StdEncoding.DecodeString(obj.Data)
					if err != nil || !bytes.Contains(raw, []byte(`"kind":"ClusterServiceVersion"`)) {
						continue
					}
					name := []byte(`"name":"` + cfg.Bundles[bi].Name + `"`)
					if !bytes.Contains(raw, name) {
						continue
					}
					raw = bytes.Replace(raw, name, []byte(`"name":"renamed.v9.9.9"`), 1)
					v, _ := json.Marshal(map[string]string{"data": base64.StdEncoding.EncodeToString(raw)})
					cfg.Bundles[bi].Properties[pi].Value = v
					return true
				}
			}
			return false
		})
	}},
}

// onHead calls edit with each channel and the index of its one head (as
// opm finds it) until edit changes something.
func onHead(cfg *declcfg.DeclarativeConfig, edit func(ch *declcfg.Channel, i int) bool) bool {
	cat := model.New(cfg)
	for ci := range cfg.Channels {
		ch := &cfg.Channels[ci]
		p := cat.Package(ch.Package)
		if p == nil {
			continue
		}
		mc := p.Channel(ch.Name)
		if mc == nil || mc.Head() == nil {
			continue
		}
		for i, e := range ch.Entries {
			if e.Name == mc.Head().Name && edit(ch, i) {
				return true
			}
		}
	}
	return false
}

// catalogFile is a package's catalog file in catalog cat.
func catalogFile(root, pkg, cat string) string {
	for _, n := range []string{"catalog.yaml", "catalog.yml", "catalog.json"} {
		if p := filepath.Join(root, "catalogs", cat, pkg, n); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// editCatalog loads a package's catalog, lets edit change it, and writes it
// back as YAML; "" when edit finds nothing to change.
func editCatalog(t *testing.T, root, pkg, cat string, edit func(*declcfg.DeclarativeConfig) bool) string {
	t.Helper()
	f := catalogFile(root, pkg, cat)
	if f == "" {
		return ""
	}
	cfg, err := declcfg.Load(context.Background(), []string{f}, declcfg.LoadOptions{})
	if err != nil || !edit(cfg) {
		return ""
	}
	var buf bytes.Buffer
	if err := declcfg.Write(cfg, declcfg.FormatYAML, &buf); err != nil {
		t.Fatal(err)
	}
	yaml := strings.TrimSuffix(f, filepath.Ext(f)) + ".yaml"
	if yaml != f {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, yaml, buf.Bytes())
	return yaml
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPRReplayBreakages injects each breakage into the merged changes of
// seven packages of pr-replay.json that touched catalogs, one at a time, and checks that what
// a maintainer runs catches it: fbc validate of the operator folder, of the
// broken catalog for its release, or fbc diff from the merged catalog exits
// 1 naming the broken file (the renamed CSV through its csv-mismatch
// warning, which the pipelines' opm fails on too); and that fbc validate
// --base, judging the broken tree against the merged one, fails as well.
func TestPRReplayBreakages(t *testing.T) {
	skipReplay(t)
	var v prReplay
	if err := json.Unmarshal(sharedtest.ReadVector(t, "pr-replay.json"), &v); err != nil {
		t.Fatal(err)
	}
	// Seven packages' changes, six breakages each: the count the held-out
	// replay of the issue injects (40), a few more for the ones a change
	// has nothing to break with.
	slots := make(chan struct{}, 2)
	seen := map[string]bool{}
	for _, c := range v.Cases {
		if len(c.Catalogs) == 0 || seen[c.Pkg] || len(seen) == 7 {
			continue
		}
		seen[c.Pkg] = true
		git := sharedtest.Mirror(t, c.Repo)
		for _, b := range breakages {
			t.Run(b.name+"-"+c.Pkg+"-"+c.Commit[:8], func(t *testing.T) {
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				dir := t.TempDir()
				merged, broken := filepath.Join(dir, "merged"), filepath.Join(dir, "pr")
				sharedtest.CheckoutPackage(t, git, c.Commit, c.Pkg, merged)
				cat := c.Catalogs[len(c.Catalogs)-1]
				if b.oldest {
					cat = c.Catalogs[0]
				}
				if catalogFile(merged, c.Pkg, cat) == "" {
					t.Skip("the fetched copy lacks the catalog")
				}
				gitRepoOf(t, broken, merged, merged)
				file := b.inject(t, broken, c.Pkg, cat)
				if file == "" {
					t.Skip("nothing to break this way in this change")
				}
				rel, _ := filepath.Rel(broken, file)
				caught := false
				var out bytes.Buffer
				check := func(args ...string) {
					var stdout, stderr bytes.Buffer
					code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
					text := stdout.String() + stderr.String()
					out.WriteString("$ fbc " + strings.Join(args, " ") + "\n" + text)
					// The file, or for fbc diff, whose findings are about
					// channels, the catalog folder that holds it.
					named := strings.Contains(text, rel) || strings.Contains(text, filepath.Dir(rel))
					if code == ExitFindings && named || b.name == "csv-renamed" && strings.Contains(text, "[csv-mismatch]") {
						caught = true
					}
				}
				pkgCat := filepath.Join(broken, "catalogs", cat, c.Pkg)
				check("validate", filepath.Join(broken, "operators", c.Pkg))
				check("validate", pkgCat, "--target-ocp", strings.TrimPrefix(cat, "v"))
				check("diff", filepath.Join(merged, "catalogs", cat, c.Pkg), pkgCat)
				if !caught {
					t.Errorf("%s in %s is not caught:\n%s", b.name, rel, out.String())
				}
				var stdout, stderr bytes.Buffer
				code := Run(context.Background(), []string{"validate", "--base", "HEAD", broken}, strings.NewReader(""), &stdout, &stderr)
				if code != ExitFindings && !(b.name == "csv-renamed" && strings.Contains(stdout.String(), "[csv-mismatch]")) {
					t.Errorf("fbc validate --base HEAD exited %d, want 1 for %s in %s\n%s%s", code, b.name, rel, stdout.String(), stderr.String())
				}
			})
		}
	}
}
