package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
)

// filterVector is one scenario of the shared filter.json: what oc-mirror
// v2 kept of a real catalog for one mirror.operators[] entry, or how it
// refused it.
type filterVector struct {
	ID      string `json:"id"`
	Catalog struct {
		Root   string `json:"root"`
		Repo   string `json:"repo"`
		Commit string `json:"commit"`
		Path   string `json:"path"`
	} `json:"catalog"`
	Operator json.RawMessage `json:"operator"`
	Expect   struct {
		Error    string `json:"error"`
		Packages []struct {
			Name           string `json:"name"`
			DefaultChannel string `json:"default_channel"`
			Channels       []struct {
				Name    string                 `json:"name"`
				Entries []declcfg.ChannelEntry `json:"entries"`
			} `json:"channels"`
			Bundles      []string `json:"bundles"`
			Deprecations []struct {
				Schema string `json:"schema"`
				Name   string `json:"name"`
			} `json:"deprecations"`
		} `json:"packages"`
		Others  []json.RawMessage `json:"others"`
		Upgrade struct {
			Upgradable     bool                `json:"upgradable"`
			Stranded       []string            `json:"stranded"`
			Heads          map[string][]string `json:"heads"`
			KeptOutOfRange []string            `json:"kept_out_of_range"`
			Findings       []json.RawMessage   `json:"findings"`
		} `json:"upgrade"`
	} `json:"expect"`
}

// copied are the repositories (and the commit) whose package folders
// testdata/mirror holds, by the folder name there.
var copied = map[string]struct{ folder, commit string }{
	"redhat-openshift-ecosystem/community-operators-prod": {"community-operators-prod", "699495f2ff526f9679a0d9d54688f09c683eff2c"},
	"securesign/fbc": {"securesign-fbc", "eb4d3d3c5dcc7c3b943372997aefd1bb385eec6b"},
}

func readVectors(t *testing.T) []filterVector {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t), "vectors", "filter.json"))
	require.NoError(t, err)
	var vs []filterVector
	require.NoError(t, json.Unmarshal(data, &vs))
	require.NotEmpty(t, vs)
	return vs
}

// vectorConfig is the ImageSetConfiguration of a scenario: its operators[]
// entry, as JSON (which is YAML).
func vectorConfig(t *testing.T, op json.RawMessage) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(op, &m))
	isc := map[string]any{"apiVersion": APIVersion, "kind": Kind, "mirror": map[string]any{"operators": []any{m}}}
	data, err := json.MarshalIndent(isc, "", "  ")
	require.NoError(t, err)
	return data
}

// vectorCatalog finds the catalog a scenario filters, holding at least the
// packages it lists: the copy under testdata/mirror, else the fetched
// repository, else the shared corpus. It skips when none is there.
func vectorCatalog(t *testing.T, v filterVector, pkgs []string) string {
	t.Helper()
	if v.Catalog.Root == "corpus" {
		return filepath.Join(sharedtest.Corpus(t), filepath.FromSlash(v.Catalog.Path))
	}
	require.Equal(t, "repository", v.Catalog.Root)
	if c, ok := copied[v.Catalog.Repo]; ok && c.commit == v.Catalog.Commit {
		dir := filepath.Join("..", "testdata", "mirror", c.folder, filepath.FromSlash(v.Catalog.Path))
		all := true
		for _, p := range pkgs {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				all = false
			}
		}
		if all {
			return dir
		}
	}
	git := sharedtest.Mirror(t, v.Catalog.Repo)
	dir := t.TempDir()
	for _, p := range pkgs {
		checkoutTree(t, git, v.Catalog.Commit, v.Catalog.Path+"/"+p, filepath.Join(dir, p))
	}
	return dir
}

// checkoutTree writes the files of path at commit into dest, leaving out
// those whose blob the fetched copy lacks (as the scenarios were taken).
func checkoutTree(t testing.TB, git, commit, path, dest string) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", git, "ls-tree", "-r", "-z", commit, "--", path).Output()
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		meta, name, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		blob, err := exec.Command("git", "--git-dir", git, "cat-file", "blob", f[2]).Output()
		if err != nil {
			continue // a blob the fetched copy lacks
		}
		p := filepath.Join(dest, filepath.FromSlash(strings.TrimPrefix(name, path+"/")))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, blob, 0o644))
	}
}

// TestFilterVectors runs every scenario of filter.json: the same refusals,
// or the same bundles, channel entries, default channels and deprecations
// as oc-mirror, a catalog that validates, and the same channel heads.
func TestFilterVectors(t *testing.T) {
	for _, v := range readVectors(t) {
		t.Run(v.ID, func(t *testing.T) {
			t.Parallel()
			data := vectorConfig(t, v.Operator)
			cfg, err := ParseConfig("isc.json", data)
			if err != nil {
				require.NotEmpty(t, v.Expect.Error, "refused: %v", err)
				assert.Contains(t, err.Error(), v.Expect.Error)
				return
			}
			require.Len(t, cfg.Operators, 1)
			op := cfg.Operators[0]
			var pkgs []string
			for _, p := range op.Packages {
				pkgs = append(pkgs, p.Name)
			}
			dir := vectorCatalog(t, v, pkgs)
			cat, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
			require.NoError(t, err)
			cut, err := CutCatalog(cat, op, nil)
			if v.Expect.Error != "" {
				require.Error(t, err, "oc-mirror refuses: %s", v.Expect.Error)
				assert.Contains(t, err.Error(), v.Expect.Error)
				assert.Contains(t, err.Error(), "isc.json:", "the refusal names the configuration's line")
				return
			}
			require.NoError(t, err)
			checkAgainstVector(t, v, cut)
			checkValid(t, cut)
			assert.ElementsMatch(t, bundleNames(cut.OCMirror), bundleNames(cut.Config), "fbc keeps oc-mirror's bundles")
			if len(v.Expect.Upgrade.Findings) == 0 {
				assert.Equal(t, canonical(t, cut.OCMirror), canonical(t, cut.Config), "oc-mirror's catalog is valid: fbc writes the same")
			}
			var oor []string
			for _, o := range cut.OutOfRange {
				oor = append(oor, fmt.Sprintf("%s/%s/%s@%s", o.Package, o.Channel, o.Bundle, o.Version))
			}
			assert.ElementsMatch(t, v.Expect.Upgrade.KeptOutOfRange, oor, "bundles kept outside the range")
			heads := map[string][]string{}
			for _, ch := range cut.Config.Channels {
				heads[ch.Package+"/"+ch.Name] = model.ShapeOf(ch.Entries).Heads()
			}
			assert.Equal(t, v.Expect.Upgrade.Heads, heads, "channel heads")
			// Whether every kept bundle still reaches its channel head
			// under OLM classic, as the scenario says of oc-mirror's cut.
			summary, _, _ := summarize(cut.Config)
			var stuck []string
			for _, p := range summary {
				for _, s := range p.Classic {
					stuck = append(stuck, p.Name+"/"+s.Channel+"/"+s.Bundle)
				}
			}
			assert.Equal(t, v.Expect.Upgrade.Upgradable, len(stuck) == 0, "upgradable under OLM classic; stuck: %v", stuck)
		})
	}
}

// checkAgainstVector compares oc-mirror's catalog as fbc computes it with
// the scenario's.
func checkAgainstVector(t *testing.T, v filterVector, cut *Cut) {
	t.Helper()
	got := cut.OCMirror
	var wantPkgs, gotPkgs []string
	for _, p := range v.Expect.Packages {
		wantPkgs = append(wantPkgs, p.Name)
	}
	for _, p := range got.Packages {
		gotPkgs = append(gotPkgs, p.Name)
	}
	assert.ElementsMatch(t, wantPkgs, gotPkgs, "packages")
	for _, wp := range v.Expect.Packages {
		var pkg *declcfg.Package
		for i := range got.Packages {
			if got.Packages[i].Name == wp.Name {
				pkg = &got.Packages[i]
			}
		}
		if pkg == nil {
			continue
		}
		assert.Equal(t, wp.DefaultChannel, pkg.DefaultChannel, "%s: default channel", wp.Name)
		want := map[string][]string{}
		for _, ch := range wp.Channels {
			want[ch.Name] = entryStrings(ch.Entries)
		}
		have := map[string][]string{}
		for _, ch := range got.Channels {
			if ch.Package == wp.Name {
				have[ch.Name] = entryStrings(ch.Entries)
			}
		}
		assert.Equal(t, want, have, "%s: channels and their entries", wp.Name)
		var bundles []string
		for _, b := range got.Bundles {
			if b.Package == wp.Name {
				bundles = append(bundles, b.Name)
			}
		}
		assert.ElementsMatch(t, wp.Bundles, bundles, "%s: bundles", wp.Name)
		var wantDep, gotDep []string
		for _, d := range wp.Deprecations {
			wantDep = append(wantDep, d.Schema+"/"+d.Name)
		}
		for _, d := range got.Deprecations {
			if d.Package == wp.Name {
				for _, e := range d.Entries {
					gotDep = append(gotDep, e.Reference.Schema+"/"+e.Reference.Name)
				}
			}
		}
		assert.ElementsMatch(t, wantDep, gotDep, "%s: deprecations", wp.Name)
	}
	assert.Len(t, got.Others, len(v.Expect.Others), "blobs of other schemas")
}

// entryStrings writes entries as comparable lines, sorted.
func entryStrings(entries []declcfg.ChannelEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = fmt.Sprintf("%s replaces=%s skips=%s skipRange=%s", e.Name, e.Replaces, strings.Join(e.Skips, ","), e.SkipRange)
	}
	slices.Sort(out)
	return out
}

func bundleNames(cfg *declcfg.DeclarativeConfig) []string {
	var out []string
	for _, b := range cfg.Bundles {
		out = append(out, b.Package+"/"+b.Name)
	}
	return out
}

func canonical(t *testing.T, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, declcfg.WriteJSON(cfg, &buf))
	return buf.String()
}

// checkValid validates the catalog fbc writes with fbc validate's rules.
func checkValid(t *testing.T, cut *Cut) {
	t.Helper()
	check, err := validate.NewConfigCheck(validate.Options{})
	require.NoError(t, err)
	require.NoError(t, check.Add(context.Background(), cut.Config))
	res, err := check.Result()
	require.NoError(t, err)
	for _, d := range res.Diagnostics {
		assert.NotEqual(t, declcfg.SeverityError, d.Severity, "%s", d)
	}
}
