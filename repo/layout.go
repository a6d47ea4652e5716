package repo

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

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/safefs"
)

// Kind says what a path given to fbc is. This is the one place that knows:
// every command that takes paths classifies them with Classify.
type Kind int

const (
	// KindMissing is a path that does not exist (it may name an image in
	// a registry: render decides).
	KindMissing Kind = iota + 1
	// KindStdin is "-".
	KindStdin
	// KindLocalImage is an oci:, oci-archive: or docker-archive:
	// reference; its labels say whether it is a bundle or a catalog.
	KindLocalImage
	// KindCatalogDir is a directory read as a catalog: what no other kind
	// names.
	KindCatalogDir
	// KindCatalogFile is a file read as a catalog.
	KindCatalogFile
	// KindBundleDir is a bundle directory (manifests/ and metadata/).
	KindBundleDir
	// KindRepoCatalog is a catalog of an operator repository,
	// <root>/catalogs/NAME, one package's folder of it (Package is set),
	// or that folder's catalog file.
	KindRepoCatalog

	// The kinds below are neither catalogs nor bundles: the things a glob
	// or a wrong directory hands to a command, which would otherwise be read
	// as catalogs and fail with a flood of missing-schema errors.

	// KindOperator is an operator's folder of an operator repository:
	// <root>/operators/NAME (Operator is set): fbc validate checks it
	// whole, fbc catalogs renders its catalogs.
	KindOperator
	// KindCISettings is ci.yaml, an operator folder's CI settings.
	KindCISettings
	// KindReleaseConfig is release-config.yaml, the certification
	// pipeline's settings for one bundle.
	KindReleaseConfig
	// KindDocument is documentation or build files: README, *.md, LICENSE,
	// OWNERS, Dockerfiles, Makefiles.
	KindDocument
	// KindTemplate is a catalog template (olm.template.basic, olm.semver,
	// olm.template.substitutes).
	KindTemplate
	// KindTemplates is a folder of catalog templates only (an operator
	// folder's catalog-templates/; Templates names them).
	KindTemplates
	// KindPackageManifests is a package in the package-manifest format:
	// PKG.package.yaml and one folder of manifests per version (or that
	// PKG.package.yaml file).
	KindPackageManifests
	// KindPackageVersion is one version's folder of a package in the
	// package-manifest format: a CSV and CRDs, without metadata/.
	KindPackageVersion
	// KindBundleFolder is a version's folder that holds one bundle
	// directory (VERSION/bundle/, named by Bundle) beside
	// release-config.yaml or documents.
	KindBundleFolder
	// KindOperatorLike is a folder laid out as an operator's folder (ci.yaml
	// and bundle directories or catalog-templates/, or several bundle
	// directories) that is not under an operator repository's operators/.
	KindOperatorLike
	// KindOperatorsTree is an operator repository's operators/ folder.
	KindOperatorsTree
	// KindRepository is an operator repository's root (Catalogs is set
	// when it has a catalogs/ folder).
	KindRepository
)

// Path is a path as Classify found it.
type Path struct {
	Path string
	Kind Kind
	// IsDir is set for directories.
	IsDir bool
	// What says in a few words what a path that is neither a catalog nor a
	// bundle is, without the path.
	What string
	// Err is why a KindMissing path could not be read.
	Err error

	// Root is the operator repository's root (absolute) for KindOperator
	// and KindRepoCatalog.
	Root string
	// Catalog and Package name a KindRepoCatalog: catalogs/Catalog, or
	// its folder Package.
	Catalog, Package string
	// Operator is a KindOperator's.
	Operator *Operator

	// Catalogs is set for a KindRepository with a catalogs/ folder.
	Catalogs bool
	// Templates are a KindTemplates folder's templates.
	Templates []string
	// Bundle is the bundle directory a KindBundleFolder holds.
	Bundle string
}

// IsCatalog reports whether the path is read as a catalog: a catalog
// directory or file, standard input, or a catalog of an operator
// repository. A missing path is not (though a command may still try it as
// an image reference).
func (p Path) IsCatalog() bool {
	switch p.Kind {
	case KindCatalogDir, KindCatalogFile, KindStdin, KindRepoCatalog:
		return true
	}
	return false
}

// Recognised reports whether the path is a part of an operator repository
// or another layout that is neither a catalog nor a bundle (the kinds from
// KindOperator on).
func (p Path) Recognised() bool { return p.Kind >= KindOperator }

// Classify says what path is. It reads directory listings (the path's and
// a few of its subdirectories') and the first bytes of a file, so it is
// cheap to call on every argument. A bundle directory is one wherever it
// is; an operator repository's operator folders and catalogs are found by
// walking up to the repository's root.
func Classify(path string) Path {
	p := Path{Path: path}
	switch {
	case path == "-":
		p.Kind = KindStdin
		return p
	case imageref.IsLocal(path):
		p.Kind = KindLocalImage
		return p
	}
	st, err := os.Stat(path)
	if err != nil {
		p.Kind, p.Err = KindMissing, err
		return p
	}
	p.IsDir = st.IsDir()
	if !p.IsDir {
		// A package's catalog file, named itself, is that catalog of its
		// repository too.
		if root, catalog, pkg, ok := repoCatalog(filepath.Dir(path)); ok && st.Mode().IsRegular() && pkg != "" {
			p.Kind, p.Root, p.Catalog, p.Package = KindRepoCatalog, root, catalog, pkg
			return p
		}
		if !classifyFile(&p) {
			p.Kind = KindCatalogFile
		}
		return p
	}
	if IsBundleDir(path) {
		p.Kind = KindBundleDir
		return p
	}
	if op, err := OperatorOf(path); err == nil && sameDir(path, op.Dir) {
		p.Kind, p.Root, p.Operator = KindOperator, op.Repo.Root, op
		p.What = "an operator's folder in an operator repository (one bundle directory per version)"
		return p
	}
	if root, catalog, pkg, ok := repoCatalog(path); ok {
		p.Kind, p.Root, p.Catalog, p.Package = KindRepoCatalog, root, catalog, pkg
		return p
	}
	if !classifyDir(&p) {
		p.Kind = KindCatalogDir
	}
	return p
}

// repoCatalog reports whether dir is a catalog of an operator repository
// (<root>/catalogs/NAME) or a package's folder in one, and which.
func repoCatalog(dir string) (root, catalog, pkg string, ok bool) {
	root, err := FindRoot(dir)
	if err != nil {
		return "", "", "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", "", false
	}
	rel, err := filepath.Rel(filepath.Join(root, CatalogsDir), abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", "", "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) > 2 {
		return "", "", "", false // deeper than a package's folder: no layout of the pipelines'
	}
	if len(parts) == 2 {
		pkg = parts[1]
	}
	return root, parts[0], pkg, true
}

func classifyDir(p *Path) bool {
	dir := p.Path
	switch {
	case packageManifest(dir) != "":
		p.Kind, p.What = KindPackageManifests, "a package in the package-manifest format ("+packageManifest(dir)+" and one folder per version)"
	case isPackageVersion(dir):
		p.Kind, p.What = KindPackageVersion, "one version of a package in the package-manifest format (its parent folder holds "+packageManifest(filepath.Dir(filepath.Clean(dir)))+")"
	case templateFolder(p):
		// templateFolder set the kind, What and the templates.
	case bundleFolder(dir) != "":
		p.Bundle = filepath.Join(dir, bundleFolder(dir))
		p.Kind, p.What = KindBundleFolder, "a folder holding one bundle directory ("+bundleFolder(dir)+") and no catalog files"
	case isOperatorDir(dir):
		p.Kind, p.What = KindOperatorLike, "an operator's folder in an operator repository (one bundle directory per version)"
	case isOperatorsTree(dir):
		p.Kind, p.What = KindOperatorsTree, "an operator repository's operators folder (one folder per operator)"
	case isOperatorsTree(filepath.Join(dir, OperatorsDir)):
		p.Kind, p.What = KindRepository, "an operator repository (operators/ holds its bundles"
		if isDir(filepath.Join(dir, CatalogsDir)) {
			p.What += ", catalogs/ its catalogs"
			p.Catalogs = true
		}
		p.What += ")"
	default:
		return false
	}
	return true
}

var documentName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(readme|license|licence|notice|owners|authors|contributing|changelog|makefile|dockerfile)([.-].*)?$|\.(md|markdown|rst|txt|adoc)$|\.dockerfile$`)
})

func classifyFile(p *Path) bool {
	base := filepath.Base(p.Path)
	switch {
	case base == CIFile || base == "ci.yml":
		p.Kind, p.What = KindCISettings, "an operator's CI settings in an operator repository"
	case isPackageManifestFile(base):
		p.Kind, p.What = KindPackageManifests, "the package manifest of a package in the package-manifest format"
	case base == ReleaseConfigFile || base == "release-config.yml":
		p.Kind, p.What = KindReleaseConfig, "the certification pipeline's release settings for a bundle"
	case documentName().MatchString(base):
		p.Kind, p.What = KindDocument, "documentation or a build file"
	default:
		schema := templateSchema(p.Path)
		if schema == "" {
			return false
		}
		p.Kind, p.What = KindTemplate, "a catalog template ("+schema+")"
	}
	return true
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
// document's top-level schema key or the document's end (as opm's reader
// cuts documents: declcfg.SplitManifests), so that a catalog's large first
// file costs one document, not the file.
func yamlSchema(r io.Reader) string {
	br := bufio.NewReaderSize(r, 64<<10)
	split := declcfg.NewSplitter(declcfg.SplitManifests)
	lineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		if bytes.IndexByte(chunk, 0) >= 0 {
			return "" // binary
		}
		if lineStart && len(chunk) > 0 {
			if split.Line(chunk) {
				return "" // the first document ended
			}
			if m := topSchema().FindSubmatch(chunk); m != nil {
				return string(m[1])
			}
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
		case e.IsDir() && bundle == "" && IsBundleDir(filepath.Join(dir, name)):
			bundle = name
		case e.IsDir():
			return ""
		default:
			p := Path{Path: filepath.Join(dir, name)}
			if !classifyFile(&p) || p.Kind == KindTemplate {
				return ""
			}
		}
	}
	return bundle
}

// maxTemplates bounds the files templateFolder reads.
const maxTemplates = 64

// templateFolder: a folder of files only (no subfolders), at least one a
// catalog template and the others templates or documents. It sets p's
// kind, its templates and the schemas in What.
func templateFolder(p *Path) bool {
	entries, err := os.ReadDir(p.Path)
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
			s := templateSchema(filepath.Join(p.Path, name))
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
	p.Kind, p.Templates = KindTemplates, names
	p.What = "a folder of catalog templates (" + strings.Join(schemas, ", ") + ")"
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
		case !e.IsDir() && (name == CIFile || name == "ci.yml"):
			ci = true
		case e.IsDir() && name == TemplatesDir:
			templates = true
		case e.IsDir():
			sub := filepath.Join(dir, name)
			if IsBundleDir(sub) || IsBundleDir(filepath.Join(sub, "bundle")) {
				bundles++
			}
		}
	}
	return ci && (bundles > 0 || templates) || bundles > 1
}

// isOperatorsTree: most of the first ten subdirectories (by name) are operator
// folders or package-manifest folders.
func isOperatorsTree(dir string) bool {
	subs := subdirs(dir)
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

// KonfluxRoot returns the root of the Konflux FBC repository that holds
// path, or "": the nearest folder above it (path itself included, up to a
// git repository's root) whose .tekton/ holds a PipelineRun of Konflux's
// FBC build pipeline (fbc-builder).
func KonfluxRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if tekton := filepath.Join(dir, ".tekton"); isDir(tekton) && buildsFBC(tekton) {
			return dir
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil || filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// buildsFBC reports whether a .tekton folder's pipeline runs name Konflux's
// FBC build pipeline.
func buildsFBC(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents[:min(len(ents), 64)] {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") && !strings.HasSuffix(e.Name(), ".yml") {
			continue
		}
		f, err := safefs.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		if bytes.Contains(data, []byte("fbc-builder")) {
			return true
		}
	}
	return false
}
