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
			return nil, notACatalog(nc)
		default:
			fmt.Fprintf(cmd.ErrOrStderr(), "fbc: note: skipping %s: %s, not a catalog or bundle (%s)\n", a, nc.What, takenBy(nc))
		}
	}
	return keep, nil
}

// screenCatalog is screenSources for a command that reads SOURCE as one
// catalog (graph, upgrade-path, diff, list, compose): whatever
// render.Recognise knows, file or directory, is a usage error saying what
// it is and which command takes it, and so is a bundle directory unless
// the command reads bundles too.
func screenCatalog(path string, bundles bool) error {
	if nc := render.Recognise(path); nc != nil {
		return notACatalog(nc)
	}
	if kind, img, err := render.SourceKind(path); !bundles && err == nil && !img && kind == render.KindBundleDir {
		return usageErrorf("%s is a bundle directory (manifests/ and metadata/), not a catalog: fbc render %s --with-channels makes a catalog of it (fbc validate and fbc list take it as it is)", path, path)
	}
	return nil
}

// notACatalog is the usage error for a recognised path given as a catalog.
func notACatalog(nc *render.NotCatalog) error {
	return usageErrorf("%s is %s, not a catalog: %s", nc.Path, nc.What, takenBy(nc))
}

// takenBy says which command reads a recognised path, if any.
func takenBy(nc *render.NotCatalog) string {
	dir := strings.TrimRight(filepath.ToSlash(nc.Path), "/")
	switch nc.Layout {
	case render.LayoutTemplate:
		return "fbc template " + nc.Path + " renders it"
	case render.LayoutBundleFolder:
		return "pass the bundle directory instead, " + nc.Bundle
	case render.LayoutTemplates:
		if len(nc.Templates) == 1 {
			return fmt.Sprintf("fbc template %s/%s renders it", dir, nc.Templates[0])
		}
		return fmt.Sprintf("fbc template FILE renders each, e.g. fbc template %s/%s", dir, nc.Templates[0])
	case render.LayoutPackageManifests, render.LayoutPackageVersion:
		if nc.IsDir && nc.Layout == render.LayoutPackageManifests {
			return "OLM no longer reads this format; convert it to bundle directories (operator-sdk pkgman-to-bundle), which fbc render and fbc validate take"
		}
		pkg := filepath.ToSlash(filepath.Dir(filepath.Clean(nc.Path)))
		return fmt.Sprintf("OLM no longer reads this format; convert its package to bundle directories (operator-sdk pkgman-to-bundle %s), which fbc render and fbc validate take", pkg)
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
