package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
)

// screenSources sets aside the arguments that render.Recognise knows are
// neither catalogs nor bundles, before they are read as catalogs and fail
// with a missing-schema error per document. A file (ci.yaml, a README, a
// template: what a glob such as operators/foo/* sweeps in) is skipped with
// a note, and so are a folder of templates and a version folder holding its
// bundle one level down (what operators/foo/*/ sweeps in). Any other
// directory (an operator repository or part of one) is a usage error
// saying in one line what it is and which command takes it, unless
// skipDirs (fbc validate, which never stops on one) skips it with the same
// line as a note.
func screenSources(cmd *cobra.Command, args []string, skipDirs bool) ([]string, error) {
	var keep []string
	for _, a := range args {
		nc := render.Recognise(a)
		switch {
		case nc == nil:
			keep = append(keep, a)
		case nc.IsDir && !skipDirs && nc.Layout != render.LayoutTemplates && nc.Layout != render.LayoutBundleFolder:
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
		if opDir := filepath.Dir(filepath.Clean(nc.Path)); filepath.Base(filepath.Clean(nc.Path)) == repo.TemplatesDir && mapsCatalogs(opDir) {
			return fmt.Sprintf("fbc validate %s checks them rendered, fbc catalogs %s renders the catalogs ci.yaml maps them to, fbc template %s/%s renders one", opDir, opDir, dir, nc.Templates[0])
		}
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
		if mapsCatalogs(nc.Path) {
			return fmt.Sprintf("fbc validate %s checks its bundles, templates and catalogs, fbc catalogs %s renders its catalogs", dir, dir)
		}
		return fmt.Sprintf("fbc validate %s checks its bundles, fbc render %s/*/ --with-channels makes a package of them", dir, dir)
	case render.LayoutOperatorsTree:
		return fmt.Sprintf("name one operator, e.g. fbc validate %s/NAME", dir)
	case render.LayoutRepository:
		if nc.Catalogs {
			return fmt.Sprintf("name a catalog, e.g. fbc validate %s/catalogs/VERSION, or one operator, e.g. fbc validate %s/operators/NAME", dir, dir)
		}
		return fmt.Sprintf("name one operator, e.g. fbc validate %s/operators/NAME", dir)
	}
	return "no fbc command reads it"
}

// mapsCatalogs reports whether an operator's folder has a ci.yaml that maps
// templates to catalogs, so that fbc catalogs has something to render.
func mapsCatalogs(dir string) bool {
	op, err := repo.OperatorOf(dir)
	if err != nil {
		return false
	}
	ci, err := op.CI()
	return err == nil && ci.FBC != nil && len(ci.FBC.Mappings) > 0
}
