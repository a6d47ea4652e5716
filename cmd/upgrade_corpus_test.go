package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// surveyResult is `upgrade-path --all -o json`.
type surveyResult struct {
	Package   string `json:"package"`
	Semantics string `json:"semantics"`
	Channels  []struct {
		Channels []string `json:"channels"`
		Head     *string  `json:"head"`
		Error    string   `json:"error"`
		Rows     []struct {
			From struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"from"`
			Next    *string `json:"next"`
			End     *string `json:"end"`
			Hops    *int    `json:"hops"`
			DeadEnd bool    `json:"deadEnd"`
			Error   string  `json:"error"`
		} `json:"rows"`
	} `json:"channels"`
	DeadEnds int `json:"deadEnds"`
	Failures int `json:"failures"`
}

// check verifies the survey's internal consistency: counts match rows, a
// row's hops follow its next row's, heads have zero hops, the exit code
// matches the verdict.
func (s *surveyResult) check(code int) error {
	dead, failed := 0, 0
	for _, sel := range s.Channels {
		if sel.Error != "" {
			if sel.Head != nil || len(sel.Rows) > 0 {
				return fmt.Errorf("channel %v failed but has a head or rows", sel.Channels)
			}
			continue
		}
		if sel.Head == nil {
			return fmt.Errorf("channel %v resolved without a head", sel.Channels)
		}
		hops := map[string]*int{}
		for _, r := range sel.Rows {
			hops[r.From.Name] = r.Hops
		}
		for _, r := range sel.Rows {
			switch {
			case r.Error != "":
				failed++
				if r.Hops != nil || r.DeadEnd {
					return fmt.Errorf("%s: failed row with hops or dead end", r.From.Name)
				}
			case r.DeadEnd:
				dead++
				if r.Hops != nil || r.End == nil || *r.End == *sel.Head {
					return fmt.Errorf("%s: dead end with hops or ending at the head", r.From.Name)
				}
			default:
				if r.Hops == nil || r.End == nil || *r.End != *sel.Head {
					return fmt.Errorf("%s: reaches the head without hops", r.From.Name)
				}
				if r.From.Name == *sel.Head && *r.Hops != 0 {
					return fmt.Errorf("%s: the head is %d hops from itself", r.From.Name, *r.Hops)
				}
				if r.Next != nil {
					if h, ok := hops[*r.Next]; ok && (h == nil || *h != *r.Hops-1) {
						return fmt.Errorf("%s: %d hops, but its next %s has %v", r.From.Name, *r.Hops, *r.Next, h)
					}
				} else if *r.Hops != 0 {
					return fmt.Errorf("%s: stays but is %d hops from the head", r.From.Name, *r.Hops)
				}
			}
		}
	}
	if dead != s.DeadEnds {
		return fmt.Errorf("deadEnds = %d, rows say %d", s.DeadEnds, dead)
	}
	if s.Failures < failed {
		return fmt.Errorf("failures = %d, rows say at least %d", s.Failures, failed)
	}
	if want := map[bool]int{true: ExitFindings, false: ExitOK}[s.DeadEnds+s.Failures > 0]; code != want {
		return fmt.Errorf("exit %d with %d dead ends and %d failures", code, s.DeadEnds, s.Failures)
	}
	return nil
}

// TestUpgradePathCorpus runs `upgrade-path --all` under both semantics for
// every package of every corpus catalog: no crash, no usage error, and a
// consistent survey. The dead-end counts are logged (go test -v).
func TestUpgradePathCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus survey skipped in -short mode")
	}
	roots, _ := filepath.Glob(filepath.Join(sharedtest.Corpus(t), "*", "catalogs", "*"))
	if len(roots) == 0 {
		sharedtest.Missing(t, "no catalogs in the corpus")
	}
	type tally struct{ packages, bundles, deadEnds, failures int }
	totals := map[string]map[string]*tally{}
	for _, root := range roots {
		catalog, _ := filepath.Rel(sharedtest.Corpus(t), root)
		totals[catalog] = map[string]*tally{"classic": {}, "v1": {}}
		dirs, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			dir := filepath.Join(root, d.Name())
			run := func(pkg, sem string) (int, []byte, string) {
				var stdout, stderr bytes.Buffer
				code := Run(context.Background(), []string{"upgrade-path", dir, "--package", pkg, "--all", "--semantics", sem, "-o", "json"},
					strings.NewReader(""), &stdout, &stderr)
				return code, stdout.Bytes(), stderr.String()
			}
			record := func(pkg, sem string, code int, out []byte, stderr string) {
				var s surveyResult
				if err := json.Unmarshal(out, &s); err != nil {
					t.Errorf("%s %s (%s): exit %d, no JSON survey: %v\n%s", dir, pkg, sem, code, err, stderr)
					return
				}
				if err := s.check(code); err != nil {
					t.Errorf("%s %s (%s): inconsistent survey: %v", dir, pkg, sem, err)
				}
				tl := totals[catalog][sem]
				tl.packages++
				tl.deadEnds += s.DeadEnds
				tl.failures += s.Failures
				for _, sel := range s.Channels {
					tl.bundles += len(sel.Rows)
				}
			}
			// A package usually lives in a folder of its name; the folder
			// is loaded to find its packages only when it does not.
			code, out, stderr := run(d.Name(), "classic")
			pkgs := []string{d.Name()}
			if code == ExitTrouble && strings.Contains(stderr, "is not in the catalog") {
				cfg, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
				if err != nil {
					t.Errorf("%s: %v", dir, err)
					continue
				}
				pkgs = cfg.PackageNames()
			} else {
				record(d.Name(), "classic", code, out, stderr)
			}
			for _, pkg := range pkgs {
				for _, sem := range []string{"classic", "v1"} {
					if pkg == d.Name() && sem == "classic" {
						continue // done above
					}
					code, out, stderr := run(pkg, sem)
					record(pkg, sem, code, out, stderr)
				}
			}
		}
	}
	names := make([]string, 0, len(totals))
	for n := range totals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, sem := range []string{"classic", "v1"} {
			tl := totals[n][sem]
			t.Logf("%-44s %-7s %3d packages %5d channel bundles %4d dead ends %4d failed", n, sem, tl.packages, tl.bundles, tl.deadEnds, tl.failures)
		}
	}
}
