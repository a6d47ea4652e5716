package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/render"
)

// screenSources sets aside the arguments that render.Recognise knows are
// neither catalogs nor bundles, before they are read as catalogs and fail
// with a missing-schema error per document. A file (ci.yaml, a README, a
// template: what a glob such as operators/foo/* sweeps in) is skipped with
// a note; a directory (an operator repository or part of one) is a usage
// error saying in one line what it is and which command takes it.
func screenSources(cmd *cobra.Command, args []string) ([]string, error) {
	var keep []string
	for _, a := range args {
		nc := render.Recognise(a)
		switch {
		case nc == nil:
			keep = append(keep, a)
		case nc.IsDir:
			return nil, usageErrorf("%s is %s, not a catalog: %s", a, nc.What, takenBy(nc))
		default:
			fmt.Fprintf(cmd.ErrOrStderr(), "fbc: note: skipping %s: %s, not a catalog or bundle (%s)\n", a, nc.What, takenBy(nc))
		}
	}
	return keep, nil
}

// takenBy says which command reads a recognised path, if any.
func takenBy(nc *render.NotCatalog) string {
	dir := strings.TrimRight(filepath.ToSlash(nc.Path), "/")
	switch nc.Layout {
	case render.LayoutTemplate:
		return "fbc template " + nc.Path + " renders it"
	case render.LayoutPackageManifests:
		return "OLM no longer reads this format; convert it to bundle directories (operator-sdk pkgman-to-bundle), which fbc render and fbc validate take"
	case render.LayoutOperatorDir:
		return fmt.Sprintf("fbc validate %s/*/ checks its bundles, fbc render %s/*/ --with-channels makes a package of them", dir, dir)
	case render.LayoutOperatorsTree:
		return fmt.Sprintf("name one operator's bundles, e.g. fbc validate %s/NAME/*/", dir)
	case render.LayoutRepository:
		if nc.Catalogs {
			return fmt.Sprintf("name a catalog, e.g. fbc validate %s/catalogs/VERSION, or one operator's bundles, e.g. fbc validate %s/operators/NAME/*/", dir, dir)
		}
		return fmt.Sprintf("name one operator's bundles, e.g. fbc validate %s/operators/NAME/*/", dir)
	}
	return "no fbc command reads it"
}
