package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/internal/safefs"
)

// Layout names what a path of an operator repository is when it is neither
// a catalog nor a bundle: the things a glob or a wrong directory hands to
// render or validate, which would otherwise be read as catalogs and fail
// with a flood of missing-schema errors.
type Layout int

const (
	// LayoutRepoCI is ci.yaml, an operator directory's CI settings.
	LayoutRepoCI Layout = iota + 1
	// LayoutReleaseConfig is release-config.yaml, the certification
	// pipeline's settings for one bundle.
	LayoutReleaseConfig
	// LayoutDocument is documentation or build files: README, *.md,
	// LICENSE, OWNERS, Dockerfiles, Makefiles.
	LayoutDocument
	// LayoutTemplate is a catalog template (olm.template.basic, olm.semver,
	// olm.template.substitutes).
	LayoutTemplate
	// LayoutPackageManifests is a package in the package-manifest format:
	// PKG.package.yaml and one folder of manifests per version.
	LayoutPackageManifests
	// LayoutOperatorDir is one operator's folder in an operator repository:
	// ci.yaml, catalog templates and one bundle directory per version.
	LayoutOperatorDir
	// LayoutOperatorsTree is an operator repository's operators/ folder:
	// one operator folder each.
	LayoutOperatorsTree
	// LayoutRepository is an operator repository's root: operators/ and,
	// for FBC repositories, catalogs/.
	LayoutRepository
	// LayoutPackageVersion is one version's folder of a package in the
	// package-manifest format: a CSV and CRDs, without metadata/.
	LayoutPackageVersion
	// LayoutTemplates is a folder of catalog templates only (an operator
	// repository's catalog-templates/).
	LayoutTemplates
	// LayoutBundleFolder is a version's folder that holds one bundle
	// directory (VERSION/bundle/) beside release-config.yaml or documents.
	LayoutBundleFolder
)

// NotCatalog is a recognised path that is neither a catalog nor a bundle.
type NotCatalog struct {
	Path   string
	Layout Layout
	// What says in a few words what the path is, without the path.
	What string
	// IsDir is set for directories (files are what globs sweep in).
	IsDir bool
	// Catalogs is set for a repository that has a catalogs/ folder.
	Catalogs bool
	// Templates holds the names of a LayoutTemplates folder's templates.
	Templates []string
	// Bundle is the bundle directory a LayoutBundleFolder holds.
	Bundle string
}

// Recognise says what path is when it is a part of an operator repository
// that is neither a catalog nor a bundle (see Layout), and nil otherwise:
// for catalogs, bundle directories, image references and anything it does
// not know. It reads directory listings (the path's and a few of its
// subdirectories') and the first bytes of a file, so it is cheap to call
// on every argument. This is the one place that knows these layouts.
func Recognise(path string) *NotCatalog {
	if path == "-" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return recogniseFile(path)
	}
	if isBundleDir(path) {
		return nil
	}
	nc := &NotCatalog{Path: path, IsDir: true}
	switch {
	case packageManifest(path) != "":
		nc.Layout, nc.What = LayoutPackageManifests, "a package in the package-manifest format ("+packageManifest(path)+" and one folder per version)"
	case isPackageVersion(path):
		nc.Layout, nc.What = LayoutPackageVersion, "one version of a package in the package-manifest format (its parent folder holds "+packageManifest(filepath.Dir(filepath.Clean(path)))+")"
	case templateFolder(nc):
		// templateFolder set the layout, What and the templates.
	case bundleFolder(path) != "":
		nc.Bundle = filepath.Join(path, bundleFolder(path))
		nc.Layout, nc.What = LayoutBundleFolder, "a folder holding one bundle directory ("+bundleFolder(path)+") and no catalog files"
	case isOperatorDir(path):
		nc.Layout, nc.What = LayoutOperatorDir, "an operator's folder in an operator repository (one bundle directory per version)"
	case isOperatorsTree(path):
		nc.Layout, nc.What = LayoutOperatorsTree, "an operator repository's operators folder (one folder per operator)"
	case isOperatorsTree(filepath.Join(path, "operators")):
		nc.Layout, nc.What = LayoutRepository, "an operator repository (operators/ holds its bundles"
		if st, err := os.Stat(filepath.Join(path, "catalogs")); err == nil && st.IsDir() {
			nc.What += ", catalogs/ its catalogs"
			nc.Catalogs = true
		}
		nc.What += ")"
	default:
		return nil
	}
	return nc
}

var documentName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(readme|license|licence|notice|owners|authors|contributing|changelog|makefile|dockerfile)([.-].*)?$|\.(md|markdown|rst|txt|adoc)$|\.dockerfile$`)
})

func recogniseFile(path string) *NotCatalog {
	base := filepath.Base(path)
	nc := &NotCatalog{Path: path}
	switch {
	case base == "ci.yaml" || base == "ci.yml":
		nc.Layout, nc.What = LayoutRepoCI, "an operator's CI settings in an operator repository"
	case isPackageManifestFile(base):
		nc.Layout, nc.What = LayoutPackageManifests, "the package manifest of a package in the package-manifest format"
	case base == "release-config.yaml" || base == "release-config.yml":
		nc.Layout, nc.What = LayoutReleaseConfig, "the certification pipeline's release settings for a bundle"
	case documentName().MatchString(base):
		nc.Layout, nc.What = LayoutDocument, "documentation or a build file"
	default:
		schema := templateSchema(path)
		if schema == "" {
			return nil
		}
		nc.Layout, nc.What = LayoutTemplate, "a catalog template ("+schema+")"
	}
	return nc
}

// topSchema finds a top-level schema key in YAML: at the start of a line
// (entries of a template are indented or list items). Old semver templates
// spell it Schema.
var topSchema = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(?i:schema)\s*:\s*['"]?([A-Za-z0-9._/-]+)`) })

// firstSchema reads the schema of a template-sized file's first document;
// "" for anything else. YAML is scanned for a top-level key; JSON is read
// token by token until the first object's schema key.
func firstSchema(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" && ext != ".json" {
		return ""
	}
	f, err := safefs.Open(path) // a FIFO named like a template must not block
	if err != nil {
		return ""
	}
	defer f.Close()
	r := io.LimitReader(f, 8<<20)
	if ext == ".json" {
		return jsonSchema(r)
	}
	return yamlSchema(r)
}

// yamlSchema reads a YAML stream a line at a time until its first
// document's top-level schema key or the document's end, so that a
// catalog's large first file costs one document, not the file.
func yamlSchema(r io.Reader) string {
	br := bufio.NewReaderSize(r, 64<<10)
	lineStart, first := true, true
	for {
		chunk, err := br.ReadSlice('\n')
		if bytes.IndexByte(chunk, 0) >= 0 {
			return "" // binary
		}
		if lineStart && len(chunk) > 0 {
			if !first && bytes.HasPrefix(chunk, []byte("---")) {
				return "" // the next document (a leading --- opens the first)
			}
			if m := topSchema().FindSubmatch(chunk); m != nil {
				return string(m[1])
			}
			first = false
		}
		// A line longer than the buffer comes in parts: only the first
		// part starts a line.
		lineStart = err == nil
		if err != nil && err != bufio.ErrBufferFull {
			return ""
		}
	}
}

func jsonSchema(r io.Reader) string {
	dec := json.NewDecoder(r)
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else if depth--; depth == 0 {
				return "" // the first value ended without a schema
			}
		case string:
			if depth == 1 && strings.EqualFold(t, "schema") {
				if v, err := dec.Token(); err == nil {
					s, _ := v.(string)
					return s
				}
				return ""
			}
			if depth == 1 {
				// skip the member's value
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return ""
				}
			}
		}
	}
}

// packageManifest returns the name of the PKG.package.yaml file of a
// package-manifest directory, or "".
func packageManifest(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() && isPackageManifestFile(e.Name()) {
			return e.Name()
		}
	}
	return ""
}

func isPackageManifestFile(name string) bool {
	return strings.HasSuffix(name, ".package.yaml") || strings.HasSuffix(name, ".package.yml")
}

// isPackageVersion: a folder holding a CSV file whose parent is a
// package-manifest directory.
func isPackageVersion(dir string) bool {
	if packageManifest(filepath.Dir(filepath.Clean(dir))) == "" {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.Contains(strings.ToLower(e.Name()), "clusterserviceversion") {
			return true
		}
	}
	return false
}

// bundleFolder returns the name of the one bundle directory dir holds
// when everything else in it is a file no catalog is made of (ci.yaml,
// release-config.yaml, documents), or "".
func bundleFolder(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	bundle := ""
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir() && bundle == "" && isBundleDir(filepath.Join(dir, name)):
			bundle = name
		case e.IsDir():
			return ""
		default:
			if nc := recogniseFile(filepath.Join(dir, name)); nc == nil || nc.Layout == LayoutTemplate {
				return ""
			}
		}
	}
	return bundle
}

// maxTemplates bounds the files templateFolder reads.
const maxTemplates = 64

// templateFolder: a folder of files only (no subfolders), at least one a
// catalog template and the others templates or documents. It sets nc's
// layout, its templates and the schemas in What.
func templateFolder(nc *NotCatalog) bool {
	entries, err := os.ReadDir(nc.Path)
	if err != nil || len(entries) > maxTemplates {
		return false
	}
	var names, schemas []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir():
			return false
		case documentName().MatchString(name):
		default:
			s := templateSchema(filepath.Join(nc.Path, name))
			if s == "" {
				return false
			}
			names = append(names, name)
			if !slices.Contains(schemas, s) {
				schemas = append(schemas, s)
			}
		}
	}
	if len(names) == 0 {
		return false
	}
	nc.Layout, nc.Templates = LayoutTemplates, names
	nc.What = "a folder of catalog templates (" + strings.Join(schemas, ", ") + ")"
	return true
}

// templateSchema is the schema of a template file, or "".
func templateSchema(path string) string {
	switch s := firstSchema(path); s {
	case "olm.template.basic", "olm.semver", "olm.template.substitutes":
		return s
	}
	return ""
}

// isOperatorDir: a folder with ci.yaml and bundle directories (directly or
// under VERSION/bundle/, a layout some operators use) or catalog-templates/,
// or one holding at least two bundle directories.
func isOperatorDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	ci, templates, bundles := false, false, 0
	for _, e := range entries {
		name := e.Name()
		switch {
		case !e.IsDir() && (name == "ci.yaml" || name == "ci.yml"):
			ci = true
		case e.IsDir() && name == "catalog-templates":
			templates = true
		case e.IsDir():
			sub := filepath.Join(dir, name)
			if isBundleDir(sub) || isBundleDir(filepath.Join(sub, "bundle")) {
				bundles++
			}
		}
	}
	return ci && (bundles > 0 || templates) || bundles > 1
}

// isOperatorsTree: most of the first ten subdirectories (by name) are operator
// folders or package-manifest folders.
func isOperatorsTree(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var subs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			subs = append(subs, e.Name())
		}
	}
	subs = subs[:min(len(subs), 10)]
	hits := 0
	for _, s := range subs {
		p := filepath.Join(dir, s)
		if isOperatorDir(p) || packageManifest(p) != "" {
			hits++
		}
	}
	return hits > 0 && 2*hits >= len(subs)
}
