package validate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
)

// The community and certified pipelines' rules for the rendered catalogs
// of an operator repository (catalogs/<catalog>/<package>/), applied with a
// target release when a path is a catalog folder, or one package's folder
// of one, inside an operator repository: each package folder holds exactly
// one catalog file (operator_repo/core.py OperatorCatalog.CATALOG_NAMES),
// which its static tests read as multi-document YAML (a stream of JSON
// objects is not), and bundle images come from the registries the
// repository's config.yaml allows (operator_catalogs.py
// check_bundle_images_in_fbc).

// registryScope is a repository catalog folder and the registries its
// bundle images may come from.
type registryScope struct {
	dir     string // as the walk names its files, with a trailing separator
	catalog string // the catalog's name (v4.18)
	allowed []string
}

// repoCatalogs applies the layout rules to each path that is a repository
// catalog folder and notes the registries its bundles may use.
func (c *checker) repoCatalogs(paths []string) {
	for _, p := range paths {
		if p == "-" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		root, err := repo.FindRoot(p)
		if err != nil {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			continue
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if parts[0] != repo.CatalogsDir || len(parts) < 2 || len(parts) > 3 {
			continue
		}
		catalog := parts[1]
		catalogDir := p
		if len(parts) == 3 {
			catalogDir = filepath.Dir(filepath.Clean(p))
		}
		c.registryScope(root, p, catalog)
		if len(parts) == 3 {
			c.packageCatalogFolder(p, catalog)
			continue
		}
		entries, err := os.ReadDir(catalogDir)
		if err != nil {
			continue // the walk reports it
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			path := filepath.Join(catalogDir, e.Name())
			if e.IsDir() {
				c.packageCatalogFolder(path, catalog)
				continue
			}
			c.add(RuleCatalogFile, declcfg.Pos{File: path}, blobRef{}, fmt.Sprintf(
				"The PR affects non-operator files: %s is not in a package folder of catalog %s; the pipelines read catalogs/%s/<package>/catalog.yaml only: move it into its package's folder",
				e.Name(), catalog, catalog))
		}
	}
}

// registryScope reads the repository's config.yaml for the registries the
// bundle images of a catalog folder may come from.
func (c *checker) registryScope(root, dir, catalog string) {
	cfg, err := (&repo.Repo{Root: root}).Config()
	var ps repo.Problems
	switch {
	case errors.As(err, &ps):
		for _, p := range ps {
			c.add(RuleAllowedRegistry, p.Pos, blobRef{}, "config.yaml: "+p.Message)
		}
		return
	case err != nil:
		c.add(declcfg.RuleIO, declcfg.Pos{File: filepath.Join(root, repo.ConfigFile)}, blobRef{}, err.Error())
		return
	case cfg == nil || len(cfg.AllowedBundleRegistries) == 0:
		return // the pipelines check nothing then
	}
	c.registries = append(c.registries, registryScope{
		dir: filepath.Clean(dir) + string(filepath.Separator), catalog: catalog, allowed: cfg.AllowedBundleRegistries,
	})
}

// packageCatalogFolder checks one catalogs/<catalog>/<package>/ folder:
// exactly one catalog file, and, when it holds JSON, one JSON object (the
// document count is known once the walk has parsed it).
func (c *checker) packageCatalogFolder(dir, catalog string) {
	var found []string
	for _, name := range repo.CatalogFileNames {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			found = append(found, name)
		}
	}
	pkg := filepath.Base(dir)
	switch len(found) {
	case 0:
		c.add(RuleCatalogFile, declcfg.Pos{File: dir}, blobRef{pkg: pkg}, fmt.Sprintf(
			"The PR affects non-operator files: %s/%s holds no %s, so the pipelines do not see an operator catalog there; name the package's catalog file catalog.yaml",
			catalog, pkg, strings.Join(repo.CatalogFileNames, ", ")))
		return
	case 1:
	default:
		c.add(RuleCatalogFile, declcfg.Pos{File: dir}, blobRef{pkg: pkg}, fmt.Sprintf(
			"%s/%s holds %s: the pipelines' checks read one of them, whichever the file system lists first, and opm serves all; keep one catalog file",
			catalog, pkg, strings.Join(found, " and ")))
	}
	for _, name := range found {
		path := filepath.Join(dir, name)
		if startsWithJSON(path) {
			if c.jsonCatalogs == nil {
				c.jsonCatalogs = map[string]bool{}
			}
			c.jsonCatalogs[path] = true
		}
	}
}

// startsWithJSON reports whether a file's first character (after
// whitespace) opens a JSON object or array.
func startsWithJSON(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		if err != nil {
			return false
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
}

// catalogYAML reports a repository catalog file that holds a stream of
// JSON values, which a YAML parser refuses at the second one.
func (c *checker) catalogYAML(fc *fileCheck) {
	if fc.docs < 2 || !c.jsonCatalogs[fc.path] {
		return
	}
	c.add(RuleCatalogYAML, fc.second, blobRef{}, fmt.Sprintf(
		"%s is not a valid yaml document: the pipelines read catalog files as multi-document YAML, and a stream of %d JSON objects is not (YAML stops at the second); write the catalog with -o yaml (fbc render, opm render)",
		filepath.Base(fc.path), fc.docs))
}

// bundleRegistry reports a bundle image outside the registries the
// repository allows.
func (c *fileCheck) bundleRegistry(d *docContext, root *declcfg.Node, b *declcfg.Bundle) {
	if b.Image == "" {
		return
	}
	for _, s := range c.registries {
		if !strings.HasPrefix(d.file, s.dir) {
			continue
		}
		if slices.ContainsFunc(s.allowed, func(r string) bool { return strings.HasPrefix(b.Image, r) }) {
			return
		}
		d.reportf(RuleAllowedRegistry, field(root, "image"),
			"Invalid bundle image(s) found in %s/%s: %s. Only these registries are allowed for bundle images: %s (config.yaml allowed_bundle_registries)",
			s.catalog, b.Package, b.Image, strings.Join(s.allowed, ", "))
		return
	}
}
