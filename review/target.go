package review

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/repo"
)

// TargetError is a target release that does not exist: not one fbc knows
// (graph's OpenShift releases), and not one an operator repository of the
// paths publishes catalogs for (catalogs/vX.Y). The release picks the
// rules, so a typo (14.18, 4.81) must not quietly pick another set.
type TargetError struct {
	Target declcfg.MinorVersion
	// Why is what fbc knows of the release.
	Why string
}

func (e *TargetError) Error() string { return fmt.Sprintf("%q: %s", e.Target.String(), e.Why) }

// FaultKind is Usage: the request names a release that does not exist.
func (e *TargetError) FaultKind() fault.Kind { return fault.Usage }

// checkTarget accepts a target release fbc knows, or one that a
// repository of the paths publishes catalogs for (both repositories
// publish catalogs/v4.23 ahead of fbc's table).
func checkTarget(t *declcfg.MinorVersion, paths []string) error {
	if t == nil {
		return nil
	}
	if t.Major != 4 && t.Major != 5 {
		return &TargetError{Target: *t, Why: "fbc knows the releases of OpenShift 4 and 5 only (4.N, 5.N)"}
	}
	_, err := graph.ParseClusterVersion(t.String())
	if err == nil {
		return nil
	}
	var published []string
	for _, p := range paths {
		root, rerr := repo.FindRoot(p)
		if p == "-" || rerr != nil || slices.Contains(published, root) {
			continue
		}
		if isDir(filepath.Join(root, repo.CatalogsDir, "v"+t.String())) {
			return nil
		}
		published = append(published, root)
	}
	why := strings.TrimPrefix(err.Error(), fmt.Sprintf("cluster version %q: ", t.String()))
	if len(published) > 0 {
		why += fmt.Sprintf("; the operator repository does not publish catalogs/v%s either", t)
	}
	return &TargetError{Target: *t, Why: why}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
