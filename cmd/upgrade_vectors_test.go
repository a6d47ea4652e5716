package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// upgradeVector is one scenario of ../shared/vectors/upgrade.json, checked
// against the upstream resolvers (field meanings: olm-upgrade-semantics.md
// §5).
type upgradeVector struct {
	Name           string `json:"name"`
	Package        string `json:"package"`
	DefaultChannel string `json:"default_channel"`
	Channels       []struct {
		Name    string `json:"name"`
		Entries []struct {
			Name      string   `json:"name"`
			Version   string   `json:"version"`
			Replaces  string   `json:"replaces,omitempty"`
			Skips     []string `json:"skips,omitempty"`
			SkipRange string   `json:"skipRange,omitempty"`
		} `json:"entries"`
	} `json:"channels"`
	Installed        *string  `json:"installed"`
	InstalledVersion *string  `json:"installed_version"`
	Channel          string   `json:"channel"`
	V1Channels       []string `json:"v1_channels"`
	V1VersionRange   string   `json:"v1_version_range"`
	V1Policy         string   `json:"v1_upgrade_constraint_policy"`
	Deprecated       []string `json:"deprecated_bundles"`
	LegacyDeprecated []string `json:"legacy_deprecated_bundles"`
	ClassicNext      *string  `json:"expect_classic_next"`
	ClassicPath      []string `json:"expect_classic_path"`
	ClassicError     string   `json:"expect_classic_error"`
	V1Successors     []string `json:"expect_v1_successors"`
	V1Next           *string  `json:"expect_v1_next"`
	V1Resolved       *string  `json:"expect_v1_resolved"`
	V1Path           []string `json:"expect_v1_path"`
	V1Error          string   `json:"expect_v1_error"`
}

// catalog renders the scenario as an FBC catalog: the package, its
// channels, one bundle per entry name, and the deprecations.
func (v *upgradeVector) catalog(t *testing.T) string {
	t.Helper()
	var blobs []any
	blobs = append(blobs, map[string]any{"schema": "olm.package", "name": v.Package, "defaultChannel": v.DefaultChannel})
	versions := map[string]string{}
	var names []string
	for _, ch := range v.Channels {
		entries := []map[string]any{}
		for _, e := range ch.Entries {
			m := map[string]any{"name": e.Name}
			if e.Replaces != "" {
				m["replaces"] = e.Replaces
			}
			if len(e.Skips) > 0 {
				m["skips"] = e.Skips
			}
			if e.SkipRange != "" {
				m["skipRange"] = e.SkipRange
			}
			entries = append(entries, m)
			if old, ok := versions[e.Name]; ok && old != e.Version {
				t.Fatalf("bundle %s has versions %s and %s", e.Name, old, e.Version)
			} else if !ok {
				versions[e.Name] = e.Version
				names = append(names, e.Name)
			}
		}
		blobs = append(blobs, map[string]any{"schema": "olm.channel", "package": v.Package, "name": ch.Name, "entries": entries})
	}
	for _, n := range names {
		props := []any{map[string]any{"type": "olm.package", "value": map[string]any{"packageName": v.Package, "version": versions[n]}}}
		if slices.Contains(v.LegacyDeprecated, n) {
			props = append(props, map[string]any{"type": "olm.deprecated", "value": map[string]any{}})
		}
		blobs = append(blobs, map[string]any{"schema": "olm.bundle", "package": v.Package, "name": n, "image": "example.com/" + n, "properties": props})
	}
	if len(v.Deprecated) > 0 {
		entries := []any{}
		for _, n := range v.Deprecated {
			entries = append(entries, map[string]any{"reference": map[string]any{"schema": "olm.bundle", "name": n}, "message": n + " is deprecated"})
		}
		blobs = append(blobs, map[string]any{"schema": "olm.deprecations", "package": v.Package, "entries": entries})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, b := range blobs {
		if err := enc.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type pathResult struct {
	Next       *string  `json:"next"`
	Successors []string `json:"successors"`
	Path       []string `json:"path"`
	Error      string   `json:"error"`
}

func runUpgradePath(t *testing.T, args ...string) (pathResult, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), append([]string{"upgrade-path"}, args...), strings.NewReader(""), &stdout, &stderr)
	var res pathResult
	if code == ExitOK || code == ExitFindings {
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("fbc upgrade-path %s: exit %d, stdout is not JSON: %v\n%s\nstderr: %s", strings.Join(args, " "), code, err, stdout.String(), stderr.String())
		}
	}
	return res, code, stderr.String()
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// TestUpgradeVectors runs every verified scenario through `fbc upgrade-path
// -o json` under both semantics.
func TestUpgradeVectors(t *testing.T) {
	data := sharedtest.ReadVector(t, "upgrade.json")
	var vectors []upgradeVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatalf("upgrade.json: %v", err)
	}
	if len(vectors) == 0 {
		t.Fatal("upgrade.json holds no scenarios")
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			dir := v.catalog(t)
			common := []string{dir, "--package", v.Package, "-o", "json"}
			if v.Installed != nil {
				common = append(common, "--from", *v.Installed, "--from-version", str(v.InstalledVersion))
			}

			t.Run("classic", func(t *testing.T) {
				args := append(slices.Clone(common), "--semantics", "classic")
				if v.Channel != "" {
					args = append(args, "--channel", v.Channel)
				}
				got, code, stderr := runUpgradePath(t, args...)
				checkOutcome(t, code, stderr, got, v.ClassicError)
				if str(got.Next) != str(v.ClassicNext) {
					t.Errorf("next = %s, want %s", str(got.Next), str(v.ClassicNext))
				}
				if !slices.Equal(got.Path, v.ClassicPath) {
					t.Errorf("path = %v, want %v", got.Path, v.ClassicPath)
				}
			})

			t.Run("v1", func(t *testing.T) {
				args := append(slices.Clone(common), "--semantics", "v1", "--policy", v.V1Policy)
				for _, c := range v.V1Channels {
					args = append(args, "--channel", c)
				}
				if v.V1VersionRange != "" {
					args = append(args, "--version", v.V1VersionRange)
				}
				got, code, stderr := runUpgradePath(t, args...)
				checkOutcome(t, code, stderr, got, v.V1Error)
				if str(got.Next) != str(v.V1Next) {
					t.Errorf("next = %s, want %s", str(got.Next), str(v.V1Next))
				}
				if !slices.Equal(got.Path, v.V1Path) {
					t.Errorf("path = %v, want %v", got.Path, v.V1Path)
				}
				gotSucc, wantSucc := slices.Sorted(slices.Values(got.Successors)), slices.Sorted(slices.Values(v.V1Successors))
				if !slices.Equal(gotSucc, wantSucc) {
					t.Errorf("successors = %v, want %v", got.Successors, v.V1Successors)
				}
				// The raw resolver result is next, or the installed bundle
				// when it stays; an error resolves nothing.
				resolved := got.Next
				if resolved == nil && v.V1Error == "" {
					resolved = v.Installed
				}
				if v.V1Error != "" {
					resolved = nil
				}
				if str(resolved) != str(v.V1Resolved) {
					t.Errorf("resolved = %s, want %s", str(resolved), str(v.V1Resolved))
				}
			})
		})
	}
}

func checkOutcome(t *testing.T, code int, stderr string, got pathResult, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if code != ExitOK || got.Error != "" {
			t.Fatalf("exit %d, error %q, want success\nstderr: %s", code, got.Error, stderr)
		}
		return
	}
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d (resolution fails)\nstderr: %s", code, ExitFindings, stderr)
	}
	if !strings.Contains(got.Error, wantErr) {
		t.Errorf("error = %q, want it to contain %q", got.Error, wantErr)
	}
	if !strings.Contains(stderr, wantErr) {
		t.Errorf("stderr = %q, want the error", stderr)
	}
}
