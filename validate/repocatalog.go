package validate

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
)

// The community and certified pipelines' rules for the rendered catalogs
// of an operator repository (catalogs/<catalog>/<package>/), applied to the
// paths of a run that Options.RepoCatalogs says are such a catalog, or
// one package's folder of it: each package folder holds exactly one
// catalog file (operator_repo/core.py OperatorCatalog.CATALOG_NAMES),
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

// repoCatalogs applies the layout rules to each path that
// Options.RepoCatalogs says is a repository catalog's folder (or a file
// of its package's folder), and notes the registries its bundles may use.
func (c *checker) repoCatalogs(paths []string) {
	for _, p := range paths {
		rc := c.opts.RepoCatalogs[p]
		if p == "-" || rc == nil {
			continue
		}
		if !isDir(p) {
			if rc.Package != "" {
				c.packageCatalogFile(p, rc)
			}
			continue
		}
		if len(rc.AllowedRegistries) > 0 {
			dir := filepath.Clean(p) + string(filepath.Separator)
			if dir == "."+string(filepath.Separator) {
				dir = "" // the walk names the files of . without it
			}
			c.registries = append(c.registries, registryScope{dir: dir, catalog: rc.Name, allowed: rc.AllowedRegistries})
		}
		if rc.Package != "" {
			c.packageCatalogFolder(p, rc.Name, rc.Package)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			continue // the walk reports it
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			path := filepath.Join(p, e.Name())
			if e.IsDir() {
				c.packageCatalogFolder(path, rc.Name, e.Name())
				continue
			}
			c.add(RuleCatalogFile, declcfg.Pos{File: path}, blobRef{}, fmt.Sprintf(
				"The PR affects non-operator files: %s is not in a package folder of catalog %s; the pipelines read catalogs/%s/<package>/catalog.yaml only: move it into its package's folder",
				e.Name(), rc.Name, rc.Name))
		}
	}
}

// packageCatalogFile checks a file of a catalogs/<catalog>/<package>/
// folder named on its own: a catalog file the pipelines read, which holds
// one JSON object when it holds JSON, with bundle images from the
// registries allowed.
func (c *checker) packageCatalogFile(path string, rc *RepoCatalog) {
	if len(rc.AllowedRegistries) > 0 {
		c.registries = append(c.registries, registryScope{dir: path, catalog: rc.Name, allowed: rc.AllowedRegistries})
	}
	name := filepath.Base(path)
	if !slices.Contains(repo.CatalogFileNames, name) {
		c.add(RuleCatalogFile, declcfg.Pos{File: path}, blobRef{pkg: rc.Package}, fmt.Sprintf(
			"The PR affects non-operator files: the pipelines read %s, not %s, in %s/%s; name the package's catalog file catalog.yaml",
			strings.Join(repo.CatalogFileNames, ", "), name, rc.Name, rc.Package))
		return
	}
	if startsWithJSON(path) {
		if c.jsonCatalogs == nil {
			c.jsonCatalogs = map[string]bool{}
		}
		c.jsonCatalogs[path] = true
	}
}

// packageCatalogFolder checks one catalogs/<catalog>/<package>/ folder:
// exactly one catalog file, and, when it holds JSON, one JSON object (the
// document count is known once the walk has parsed it).
func (c *checker) packageCatalogFolder(dir, catalog, pkg string) {
	var found []string
	for _, name := range repo.CatalogFileNames {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			found = append(found, name)
		}
	}
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
