package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/repo"
)

// screenSources sets aside the arguments that repo.Classify knows are
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
		p := repo.Classify(a)
		switch {
		case !p.Recognised():
			keep = append(keep, a)
		case p.IsDir && !skipDirs && p.Kind != repo.KindTemplates && p.Kind != repo.KindBundleFolder:
			return nil, notACatalog(p)
		default:
			fmt.Fprintf(cmd.ErrOrStderr(), "fbc: note: skipping %s\n", skipNote(p))
		}
	}
	return keep, nil
}

// screenCatalog is screenSources for a command that reads SOURCE as one
// catalog (graph, upgrade-path, diff, list, compose): whatever
// repo.Classify recognises, file or directory, is a usage error saying what
// it is and which command takes it, and so is a bundle directory unless
// the command reads bundles too.
func screenCatalog(path string, bundles bool) error {
	p := repo.Classify(path)
	switch {
	case p.Recognised():
		return notACatalog(p)
	case !bundles && p.Kind == repo.KindBundleDir:
		return usageErrorf("%s is a bundle directory (manifests/ and metadata/), not a catalog: fbc render %s --with-channels makes a catalog of it (fbc validate and fbc list take it as it is)", path, path)
	}
	return nil
}

// notACatalog is the usage error for a recognised path given as a catalog.
func notACatalog(p repo.Path) error {
	return usageErrorf("%s is %s, not a catalog: %s", p.Path, p.What, takenBy(p))
}

// skipNote says why fbc validate and fbc render skip a recognised path.
func skipNote(p repo.Path) string {
	return fmt.Sprintf("%s: %s, not a catalog or bundle (%s)", p.Path, p.What, takenBy(p))
}

// takenBy says which command reads a recognised path, if any.
func takenBy(p repo.Path) string {
	dir := strings.TrimRight(filepath.ToSlash(p.Path), "/")
	switch p.Kind {
	case repo.KindTemplate:
		return "fbc template " + p.Path + " renders it"
	case repo.KindBundleFolder:
		return "pass the bundle directory instead, " + p.Bundle
	case repo.KindTemplates:
		if opDir := filepath.Dir(filepath.Clean(p.Path)); filepath.Base(filepath.Clean(p.Path)) == repo.TemplatesDir && mapsCatalogs(opDir) {
			return fmt.Sprintf("fbc validate %s checks them rendered, fbc catalogs %s renders the catalogs ci.yaml maps them to, fbc template %s/%s renders one", opDir, opDir, dir, p.Templates[0])
		}
		if len(p.Templates) == 1 {
			return fmt.Sprintf("fbc template %s/%s renders it", dir, p.Templates[0])
		}
		return fmt.Sprintf("fbc template FILE renders each, e.g. fbc template %s/%s", dir, p.Templates[0])
	case repo.KindPackageManifests, repo.KindPackageVersion:
		if p.IsDir && p.Kind == repo.KindPackageManifests {
			return "OLM no longer reads this format; convert it to bundle directories (operator-sdk pkgman-to-bundle), which fbc render and fbc validate take"
		}
		pkg := filepath.ToSlash(filepath.Dir(filepath.Clean(p.Path)))
		return fmt.Sprintf("OLM no longer reads this format; convert its package to bundle directories (operator-sdk pkgman-to-bundle %s), which fbc render and fbc validate take", pkg)
	case repo.KindOperator, repo.KindOperatorLike:
		if mapsCatalogs(p.Path) {
			return fmt.Sprintf("fbc validate %s checks its bundles, templates and catalogs, fbc catalogs %s renders its catalogs", dir, dir)
		}
		return fmt.Sprintf("fbc validate %s checks its bundles, fbc render %s/*/ --with-channels makes a package of them", dir, dir)
	case repo.KindOperatorsTree:
		return fmt.Sprintf("name one operator, e.g. fbc validate %s/NAME", dir)
	case repo.KindRepository:
		if p.Catalogs {
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
