package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// releaseReplay is ../shared/vectors/release-replay.json: real releases of
// the release bot (operator-pipelines' add_bundle_to_fbc.py), each a commit
// of redhat-openshift-ecosystem/community-operators-prod or
// certified-operators and its parent.
type releaseReplay struct {
	About string `json:"about"`
	Cases []struct {
		Repo     string            `json:"repo"`
		Parent   string            `json:"parent"`
		Commit   string            `json:"commit"`
		Pkg      string            `json:"pkg"`
		Version  string            `json:"version"`
		Pullspec string            `json:"pullspec"`
		Images   map[string]string `json:"images"`
		Kind     string            `json:"kind"`
		Types    []string          `json:"types"`
	} `json:"cases"`
}

// TestReleaseReplay replays every case of release-replay.json: on the tree
// before the release (the parent commit's operators/<pkg> and
// catalogs/*/<pkg>), fbc release must give the templates of the bot's
// commit (equal as parsed YAML, in order; a semver template's keys without
// regard to case) and its catalogs (blob for blob), with an image map from
// each image to its bundle directory and, again, offline with no map at all
// (every image then comes from the repository: its published catalogs and
// bundle directories); and fbc catalogs on the tree after must give every
// catalog ci.yaml maps. The repositories come from the fetch tool (see
// sharedtest.Mirror); without them the test is skipped.
func TestReleaseReplay(t *testing.T) {
	skipReplay(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t), "vectors", "release-replay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v releaseReplay
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("release-replay.json holds no case")
	}
	mirrors := map[string]string{}
	for _, c := range v.Cases {
		if _, ok := mirrors[c.Repo]; !ok {
			mirrors[c.Repo] = sharedtest.Mirror(t, c.Repo)
		}
	}
	// Two cases at a time: each renders whole packages.
	slots := make(chan struct{}, 2)
	var derived atomic.Int32
	t.Cleanup(func() {
		if !t.Failed() && derived.Load() == 0 {
			t.Error("no case named its image after the templates' convention: the vectors no longer test it")
		}
	})
	for _, c := range v.Cases {
		t.Run(c.Pkg+"-"+c.Version, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			git := mirrors[c.Repo]
			base := t.TempDir()
			before, after := filepath.Join(base, "before"), filepath.Join(base, "after")
			sharedtest.CheckoutPackage(t, git, c.Parent, c.Pkg, before)
			sharedtest.CheckoutPackage(t, git, c.Commit, c.Pkg, after)
			op := filepath.Join("operators", c.Pkg)

			// The image map: each image to its bundle directory.
			var m bytes.Buffer
			for img, dir := range c.Images {
				fmt.Fprintf(&m, "%q: %s\n", img, filepath.Join(before, op, dir))
			}
			mapFile := filepath.Join(base, "images.yaml")
			if err := os.WriteFile(mapFile, m.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(base, "cache")

			for _, variant := range []struct {
				name  string
				flags []string
			}{
				{"with an image map", []string{"--image-map", mapFile}},
				{"with no image map", nil},
			} {
				work := filepath.Join(base, "work")
				os.RemoveAll(work)
				copyTree(t, before, work)
				args := append([]string{"release", filepath.Join(work, op, c.Version), "--image", c.Pullspec, "--offline", "--cache-dir", cache}, variant.flags...)
				runReplay(t, variant.name, args)
				compareTemplates(t, variant.name, filepath.Join(after, op, "catalog-templates"), filepath.Join(work, op, "catalog-templates"))
				compareCatalogs(t, variant.name, after, work, c.Pkg, nil)
			}

			// With no image given: the community pipeline names its images
			// <registry>/<namespace>/<package>:<version>, so fbc names the
			// bundle's image as the templates name theirs, and the release
			// is the bot's; certified images are named by digest, and a
			// release that creates the package's first template has no
			// images to go by: fbc asks for the image.
			work := filepath.Join(base, "work")
			os.RemoveAll(work)
			copyTree(t, before, work)
			args := []string{"release", filepath.Join(work, op, c.Version), "--offline", "--cache-dir", cache}
			if !followsConvention(t, filepath.Join(before, op, "catalog-templates"), c.Pkg) {
				var stdout, stderr bytes.Buffer
				if code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "; give --image") {
					t.Errorf("with no image given: fbc %s: exit %d, want 2 asking for --image\n%s", strings.Join(args, " "), code, stderr.String())
				}
			} else {
				derived.Add(1)
				runReplay(t, "with no image given", args)
				compareTemplates(t, "with no image given", filepath.Join(after, op, "catalog-templates"), filepath.Join(work, op, "catalog-templates"))
				compareCatalogs(t, "with no image given", after, work, c.Pkg, nil)
			}

			// fbc catalogs on the tree after, with its images mapped there.
			work = filepath.Join(base, "catalogs")
			copyTree(t, after, work)
			m.Reset()
			for img, dir := range c.Images {
				fmt.Fprintf(&m, "%q: %s\n", img, filepath.Join(after, op, dir))
			}
			if err := os.WriteFile(mapFile, m.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			runReplay(t, "fbc catalogs", []string{"catalogs", filepath.Join(work, op), "--image-map", mapFile, "--offline", "--cache-dir", cache})
			mapped := mappedCatalogs(t, filepath.Join(after, op, "ci.yaml"))
			compareCatalogs(t, "fbc catalogs", after, work, c.Pkg, mapped)
		})
	}
}

// followsConvention reports whether every bundle image the templates in dir
// name is <registry>/<namespace>/<pkg>:<tag>, in one repository: the
// image of a release can then be named after them.
func followsConvention(t *testing.T, dir, pkg string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	image := regexp.MustCompile(`(?mi)^[\s-]*image:\s*["']?([^"'\s]+)`)
	prefix := ""
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range image.FindAllSubmatch(data, -1) {
			ref := string(m[1])
			i := strings.LastIndex(ref, ":")
			if strings.Contains(ref, "@") || i < 0 || !strings.HasSuffix(ref[:i], "/"+pkg) || prefix != "" && ref[:i] != prefix {
				return false
			}
			prefix = ref[:i]
		}
	}
	return prefix != ""
}

func runReplay(t *testing.T, what string, args []string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("%s: fbc %s: exit %d\n%s", what, strings.Join(args, " "), code, stderr.String())
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := copyDirTree(from, to); err != nil {
		t.Fatal(err)
	}
}

// compareTemplates: the same files, each equal as parsed YAML.
func compareTemplates(t *testing.T, what, want, got string) {
	t.Helper()
	wantFiles, gotFiles := listFiles(t, want), listFiles(t, got)
	if !slices.Equal(wantFiles, gotFiles) {
		t.Errorf("%s: templates %v, want %v", what, gotFiles, wantFiles)
		return
	}
	for _, f := range wantFiles {
		a, b := parseOne(t, filepath.Join(want, f)), parseOne(t, filepath.Join(got, f))
		_, schema := declcfg.CatalogKeys.Lookup(a, "schema")
		fold := schema != nil && schema.Value == "olm.semver"
		if path, ok := sameTree(a, b, fold, "$"); !ok {
			t.Errorf("%s: template %s differs from the bot's at %s", what, f, path)
		}
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func parseOne(t *testing.T, path string) *declcfg.Node {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := declcfg.ParseYAML(data)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%s: %d documents, %v", path, len(docs), err)
	}
	return docs[0].Node
}

// sameTree compares parsed YAML: mappings key by key in order (keys
// without regard to case when fold), lists item by item, scalars by tag
// and value. It returns where the first difference is.
func sameTree(a, b *declcfg.Node, fold bool, at string) (string, bool) {
	a, b = declcfg.Deref(a), declcfg.Deref(b)
	if a == nil || b == nil || a.Kind != b.Kind {
		return at, a == nil && b == nil
	}
	switch a.Kind {
	case declcfg.ScalarNode:
		return at, a.Tag == b.Tag && a.Value == b.Value
	case declcfg.MappingNode:
		if len(a.Content) != len(b.Content) {
			return at, false
		}
		for i := 0; i+1 < len(a.Content); i += 2 {
			ka, kb := a.Content[i].Value, b.Content[i].Value
			if ka != kb && !(fold && strings.EqualFold(ka, kb)) {
				return at + "." + ka, false
			}
			if p, ok := sameTree(a.Content[i+1], b.Content[i+1], fold, at+"."+ka); !ok {
				return p, false
			}
		}
	case declcfg.SequenceNode:
		if len(a.Content) != len(b.Content) {
			return fmt.Sprintf("%s (%d items, want %d)", at, len(b.Content), len(a.Content)), false
		}
		for i := range a.Content {
			if p, ok := sameTree(a.Content[i], b.Content[i], fold, fmt.Sprintf("%s[%d]", at, i)); !ok {
				return p, false
			}
		}
	}
	return at, true
}

// compareCatalogs compares the package's catalog files of two trees, blob
// for blob: every catalog of want (or only those named in only).
func compareCatalogs(t *testing.T, what, want, got, pkg string, only []string) {
	t.Helper()
	wantCats, _ := filepath.Glob(filepath.Join(want, "catalogs", "*", pkg, "catalog.yaml"))
	gotCats, _ := filepath.Glob(filepath.Join(got, "catalogs", "*", pkg, "catalog.yaml"))
	name := func(p string) string { return filepath.Base(filepath.Dir(filepath.Dir(p))) }
	var wantNames, gotNames []string
	for _, p := range wantCats {
		if only == nil || slices.Contains(only, name(p)) {
			wantNames = append(wantNames, name(p))
		}
	}
	for _, p := range gotCats {
		if only == nil || slices.Contains(only, name(p)) {
			gotNames = append(gotNames, name(p))
		}
	}
	if !slices.Equal(wantNames, gotNames) {
		t.Errorf("%s: catalogs %v, want %v", what, gotNames, wantNames)
		return
	}
	for _, c := range wantNames {
		a := blobs(t, filepath.Join(want, "catalogs", c, pkg, "catalog.yaml"))
		b := blobs(t, filepath.Join(got, "catalogs", c, pkg, "catalog.yaml"))
		if len(a) != len(b) {
			t.Errorf("%s: catalog %s has %d blobs, want %d", what, c, len(b), len(a))
			continue
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: catalog %s, blob %d differs:\n got %.300s\nwant %.300s", what, c, i, b[i], a[i])
				break
			}
		}
	}
}

// blobs reads a catalog file's blobs, each as JSON with sorted keys.
func blobs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := declcfg.ParseYAML(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, d := range docs {
		if d.Node == nil {
			continue
		}
		j, err := declcfg.NodeToJSON(d.Node, true)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, string(j))
	}
	return out
}

// mappedCatalogs lists the catalogs a ci.yaml maps.
func mappedCatalogs(t *testing.T, ci string) []string {
	t.Helper()
	root := parseOne(t, ci)
	_, fbc := declcfg.PipelineKeys.Lookup(root, "fbc")
	_, ms := declcfg.PipelineKeys.Lookup(fbc, "catalog_mapping")
	var out []string
	for _, m := range ms.Content {
		_, names := declcfg.PipelineKeys.Lookup(m, "catalog_names")
		for _, n := range names.Content {
			out = append(out, n.Value)
		}
	}
	return out
}
