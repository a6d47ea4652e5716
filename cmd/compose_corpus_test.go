package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// TestComposeCorpusSubsetsValidate cuts the real catalogs (v4.18, v4.22) many ways with
// fbc compose and checks every result with fbc validate: whole catalogs
// with --heads-only, --latest and a version range, and each package alone
// cut at its median version (both halves) and reduced to a channel other
// than its default.
func TestComposeCorpusSubsetsValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: composes and validates the corpus catalogs hundreds of times")
	}
	corpus := sharedtest.Corpus(t)
	// v4.16 is left out: its channels are mostly those of v4.18, in files
	// five times larger (olm.bundle.object); declcfg's subset tests cover it.
	roots, _ := filepath.Glob(filepath.Join(corpus, "*", "catalogs", "v4.[12][28]"))
	if len(roots) == 0 {
		sharedtest.Missing(t, "no v4.12, v4.18, v4.22 catalogs in the corpus")
	}
	ctx := context.Background()
	tmp := t.TempDir()
	runs := 0
	check := func(name string, args ...string) {
		t.Helper()
		runs++
		out := filepath.Join(tmp, "out")
		var stdout, stderr bytes.Buffer
		code := Run(ctx, append([]string{"compose", out, "--force"}, args...), nil, &stdout, &stderr)
		require.Equal(t, ExitOK, code, "%s: fbc compose %v\n%s", name, args, stderr.String())
		stdout.Reset()
		stderr.Reset()
		code = Run(ctx, []string{"validate", "-o", "json", out}, nil, &stdout, &stderr)
		var report struct {
			Valid       bool
			Diagnostics []struct{ Rule, Severity, File, Message string }
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &report), "%s: %s", name, stderr.String())
		var errs []string
		for _, d := range report.Diagnostics {
			if d.Severity == "error" {
				errs = append(errs, d.Rule+": "+d.Message)
			}
		}
		require.True(t, report.Valid && code == ExitOK, "%s: fbc compose %v gives an invalid catalog:\n%v", name, args, errs)
	}
	for _, root := range roots {
		rel, _ := filepath.Rel(corpus, root)
		check(rel, root, "--heads-only")
		check(rel, root, "--latest", "2")
		check(rel, root, "--version", ">=1.0.0 <2.0.0")
		cfg, err := declcfg.Load(ctx, []string{root}, declcfg.LoadOptions{})
		require.NoError(t, err, root)
		for _, pkg := range cfg.Packages {
			dir := filepath.Join(root, pkg.Name)
			if _, err := os.Stat(dir); err != nil {
				continue
			}
			var versions []semver.Version
			for _, b := range cfg.Bundles {
				if b.Package != pkg.Name {
					continue
				}
				if vs, err := b.Version(); err == nil {
					if v, err := semver.Parse(vs); err == nil {
						versions = append(versions, v)
					}
				}
			}
			if len(versions) >= 2 {
				slices.SortFunc(versions, func(a, b semver.Version) int { return a.Compare(b) })
				mid := versions[len(versions)/2].String()
				check(rel+"/"+pkg.Name, dir, "--version", "<"+mid)
				check(rel+"/"+pkg.Name, dir, "--version", ">="+mid)
			}
			for _, ch := range cfg.Channels {
				if ch.Package == pkg.Name && ch.Name != pkg.DefaultChannel {
					check(rel+"/"+pkg.Name, dir, "--channel", ch.Name)
					break
				}
			}
		}
	}
	t.Logf("%d catalogs composed and validated", runs)
}
