// Package repo is the operator repository as the community and certified
// pipelines (operator-pipelines) lay it out: operators/<pkg>/ holding
// ci.yaml, catalog-templates/ and one bundle directory per version (each
// optionally with release-config.yaml), config.yaml at the root, and the
// rendered catalogs/<catalog>/<pkg>/catalog.yaml. It finds the root, reads
// ci.yaml, release-config.yaml and config.yaml with the position of every
// value, and lists what an operator folder holds. It renders nothing.
package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// The names the pipelines give the parts of a repository.
const (
	OperatorsDir      = "operators"
	CatalogsDir       = "catalogs"
	TemplatesDir      = "catalog-templates"
	CIFile            = "ci.yaml"
	ReleaseConfigFile = "release-config.yaml"
	ConfigFile        = "config.yaml"
)

// CatalogFileNames are the names a package's catalog file may have in
// catalogs/<catalog>/<pkg>/, in the order the pipelines look for them.
var CatalogFileNames = []string{"catalog.yaml", "catalog.yml", "catalog.json"}

// NotInRepoError is a path with no operator repository above it.
type NotInRepoError struct {
	Path string
}

func (e *NotInRepoError) Error() string {
	return fmt.Sprintf("%s is not inside an operator repository: no folder above it holds %s/", e.Path, OperatorsDir)
}

// FaultKind is Usage: the path named is the wrong one.
func (e *NotInRepoError) FaultKind() fault.Kind { return fault.Usage }

// FindRoot walks up from path (itself included) to the repository root:
// the nearest folder that holds an operators/ folder, as operator-pipelines
// recognises a repository. The root is returned absolute.
func FindRoot(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for dir := abs; ; {
		if isDir(filepath.Join(dir, OperatorsDir)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &NotInRepoError{Path: path}
		}
		dir = parent
	}
}

// Repo is an operator repository.
type Repo struct {
	// Root is the repository's folder, absolute.
	Root string
}

// Open finds the repository that holds path (see FindRoot).
func Open(path string) (*Repo, error) {
	root, err := FindRoot(path)
	if err != nil {
		return nil, err
	}
	return &Repo{Root: root}, nil
}

// CatalogsPath is <root>/catalogs.
func (r *Repo) CatalogsPath() string { return filepath.Join(r.Root, CatalogsDir) }

// CatalogDir is where a package's catalog lives in one catalog:
// <root>/catalogs/<catalog>/<pkg>.
func (r *Repo) CatalogDir(catalog, pkg string) string {
	return filepath.Join(r.Root, CatalogsDir, catalog, pkg)
}

// CatalogFile is a package's rendered catalog in one catalog.
type CatalogFile struct {
	Catalog string
	Path    string
}

// PackageCatalogs lists the catalog files of a package under catalogs/, by
// catalog name in version order (v4.9 before v4.10); a catalog folder
// without one of CatalogFileNames for the package is left out.
func (r *Repo) PackageCatalogs(pkg string) ([]CatalogFile, error) {
	ents, err := os.ReadDir(r.CatalogsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []CatalogFile
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if p := PackageCatalogFile(r.CatalogDir(e.Name(), pkg)); p != "" {
			out = append(out, CatalogFile{Catalog: e.Name(), Path: p})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return CatalogLess(out[i].Catalog, out[j].Catalog) })
	return out, nil
}

// PackageCatalogFile is the catalog file of a catalog's package folder
// (catalogs/<catalog>/<pkg>/): the first of CatalogFileNames it holds as a
// regular file, "" when it holds none.
func PackageCatalogFile(dir string) string {
	for _, name := range CatalogFileNames {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// CatalogNames are the catalog folders of the repository's catalogs/ (not
// the hidden ones), as the directory lists them; none when it has no
// catalogs/.
func (r *Repo) CatalogNames() []string { return subdirs(r.CatalogsPath()) }

// subdirs names the folders in dir that are not hidden, as it lists them.
func subdirs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// IsPipelinesOperator is the pipelines' test of an operator folder
// (operator_repo's Operator.probe): a folder holding ci.yaml or a bundle.
// Looser than Classify's, which must tell operator folders from other
// trees; the pipelines apply it under operators/ only.
func IsPipelinesOperator(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, CIFile)); err == nil && st.Mode().IsRegular() {
		return true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && IsBundleDir(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

// LinkOutError is a symbolic link in a package's folder of a catalog
// (catalogs/<catalog>/<pkg>/, the folder itself included) that leads out
// of the repository: what the repository publishes is read, rewritten and
// removed only as the repository holds it (fbc validate refuses such a
// link in a catalog too), so nothing reads, writes or removes through it.
type LinkOutError struct {
	Link   string // the link
	Target string // the real path it leads to (as written, when it leads nowhere)
	Root   string // the repository
	// Show names a path in the message (nil: as it is).
	Show func(string) string
}

func (e *LinkOutError) Error() string {
	show := e.Show
	if show == nil {
		show = func(p string) string { return p }
	}
	return fmt.Sprintf("%s: symbolic link to %s, which is outside the repository %s: a published catalog is read, rewritten and removed only as the repository holds it, never through a link out of it; copy the file in instead of linking to it; nothing was changed",
		show(e.Link), e.Target, show(e.Root))
}

// FaultKind is Run: the run cannot start with such a link in the way.
func (e *LinkOutError) FaultKind() fault.Kind { return fault.Run }

// CheckPackageLinks refuses a symbolic link in any of a package's folders
// under catalogs/ (catalogs/*/<pkg>/, each folder itself included) that
// leads out of the repository (or would, when it leads nowhere): a
// *LinkOutError. Links that stay inside are left to the readers and
// writers, which have their own rules for them.
func (r *Repo) CheckPackageLinks(pkg string) error {
	ents, err := os.ReadDir(r.CatalogsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(r.Root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := r.CatalogDir(e.Name(), pkg)
		if _, err := os.Lstat(dir); err != nil {
			continue
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, err := filepath.EvalSymlinks(p)
			inside := real
			if err != nil {
				// It leads nowhere: where it would lead, as written.
				if target, err = os.Readlink(p); err != nil {
					return err
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				inside = r.Root
			}
			if !safefs.Within(target, inside) {
				return &LinkOutError{Link: p, Target: target, Root: r.Root}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Config reads the repository's config.yaml; nil when there is none.
func (r *Repo) Config() (*Config, error) {
	p := filepath.Join(r.Root, ConfigFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseConfig(p, data)
}

// Operator is one operator's folder, operators/<name>/.
type Operator struct {
	Repo *Repo
	Name string
	// Dir is the folder, absolute.
	Dir string
}

// NotOperatorError is a path in a repository that is not in an operator's
// folder (the root, operators/ itself, catalogs/...).
type NotOperatorError struct {
	Path, Root string
}

func (e *NotOperatorError) Error() string {
	return fmt.Sprintf("%s is not an operator's folder: name one, %s", e.Path, filepath.Join(e.Root, OperatorsDir, "NAME"))
}

// FaultKind is Usage: the path named is the wrong one.
func (e *NotOperatorError) FaultKind() fault.Kind { return fault.Usage }

// OperatorOf returns the operator whose folder holds path: operators/<name>
// itself or anything below it (a bundle directory, catalog-templates/).
func OperatorOf(path string) (*Operator, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fault.Errorf(fault.Usage, "%s is not a folder: name an operator's folder (%s/NAME)", path, OperatorsDir)
	}
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	abs, err = realUnder(abs, r.Root)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(filepath.Join(r.Root, OperatorsDir), abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil, &NotOperatorError{Path: path, Root: r.Root}
	}
	name := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
	return &Operator{Repo: r, Name: name, Dir: filepath.Join(r.Root, OperatorsDir, name)}, nil
}

// realUnder resolves symbolic links in abs when that is what puts it under
// root (a repository reached through a link), and leaves it alone otherwise.
func realUnder(abs, root string) (string, error) {
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return abs, nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(rr, real)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs, nil
	}
	return filepath.Join(root, rel), nil
}

// CIPath is the operator's ci.yaml (ci.yml when only that exists, as the
// pipelines read it).
func (o *Operator) CIPath() string { return findYAML(filepath.Join(o.Dir, CIFile)) }

// TemplatesPath is the operator's catalog-templates/ folder.
func (o *Operator) TemplatesPath() string { return filepath.Join(o.Dir, TemplatesDir) }

// TemplatePath is where a template named in ci.yaml lives.
func (o *Operator) TemplatePath(name string) string {
	return filepath.Join(o.TemplatesPath(), filepath.FromSlash(name))
}

// CI reads the operator's ci.yaml. A missing file is a *MissingError.
func (o *Operator) CI() (*CI, error) {
	data, err := os.ReadFile(o.CIPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingError{Path: o.CIPath(), What: "the operator's CI settings"}
	}
	if err != nil {
		return nil, err
	}
	return ParseCI(o.CIPath(), data)
}

// MissingError is a file the repository layout needs that is not there.
type MissingError struct {
	Path string
	What string
	// Pos is where the file is named, when it is named somewhere.
	Pos declcfg.Pos
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("%s does not exist (%s)", e.Path, e.What)
	return e.Pos.Prefix(msg)
}

// FaultKind is Run: the work cannot start without the file.
func (e *MissingError) FaultKind() fault.Kind { return fault.Run }

func (e *MissingError) Is(target error) bool { return target == fs.ErrNotExist }

// Entry is one thing in an operator's folder.
type Entry struct {
	Name string
	Path string
	Kind EntryKind
	// Bundle is, for a NestedBundle, the bundle directory inside.
	Bundle string
}

// EntryKind says what an entry of an operator's folder is.
type EntryKind int

const (
	// BundleDir is a bundle directory (manifests/ and metadata/): one
	// version of the operator.
	BundleDir EntryKind = iota + 1
	// NestedBundle is a version folder whose bundle directory is one level
	// down (VERSION/bundle/), a layout the pipelines do not read.
	NestedBundle
	// TemplatesFolder is catalog-templates/.
	TemplatesFolder
	// OtherDir is any other folder.
	OtherDir
	// File is a file (ci.yaml, Makefile, README.md, ...).
	File
)

// Entries lists the operator's folder: its bundle directories, templates
// folder, other folders and files, by name (dot-files left out).
func (o *Operator) Entries() ([]Entry, error) {
	ents, err := os.ReadDir(o.Dir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(o.Dir, name)
		en := Entry{Name: name, Path: p}
		st, err := os.Stat(p)
		switch {
		case err != nil || !st.IsDir():
			en.Kind = File
		case name == TemplatesDir:
			en.Kind = TemplatesFolder
		case IsBundleDir(p):
			en.Kind = BundleDir
		default:
			en.Kind = OtherDir
			if sub := nestedBundle(p); sub != "" {
				en.Kind, en.Bundle = NestedBundle, sub
			}
		}
		out = append(out, en)
	}
	return out, nil
}

// nestedBundle returns the one bundle directory directly inside dir, or "".
func nestedBundle(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	found := ""
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && IsBundleDir(p) {
			if found != "" {
				return ""
			}
			found = p
		}
	}
	return found
}

// IsBundleDir applies the pipelines' rule (and opm's): a folder with both
// manifests/ and metadata/ is a bundle.
func IsBundleDir(dir string) bool {
	return isDir(filepath.Join(dir, "manifests")) && isDir(filepath.Join(dir, "metadata"))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// CatalogRelease reads the OpenShift release of a catalog named as
// operator-pipelines names them: "v" MAJOR "." MINOR (v4.18).
func CatalogRelease(catalog string) (declcfg.MinorVersion, bool) {
	if !strings.HasPrefix(catalog, "v") {
		return declcfg.MinorVersion{}, false
	}
	v, err := declcfg.ParseMinorVersion(catalog)
	return v, err == nil
}

// CSVMetadataSince is the first OpenShift release whose catalogs the
// certified and community pipelines publish with olm.csv.metadata and
// refuse with olm.bundle.object: they render them with --migrate-level
// bundle-object-to-csv-metadata from then on.
var CSVMetadataSince = declcfg.MinorVersion{Major: 4, Minor: 17}

// UsesCSVMetadata says whether the pipelines render a catalog with
// --migrate-level bundle-object-to-csv-metadata: catalogs named v4.17 and
// later, every 5.x and beyond; a name not of the form vX.Y never.
func UsesCSVMetadata(catalog string) bool {
	v, ok := CatalogRelease(catalog)
	return ok && v.AtLeast(CSVMetadataSince)
}

// CatalogLess orders catalog names by version (v4.9 before v4.10), names
// that are not versions after them, by name.
func CatalogLess(a, b string) bool {
	av, aok := CatalogRelease(a)
	bv, bok := CatalogRelease(b)
	switch {
	case aok && bok && av != bv:
		return av.Less(bv)
	case aok != bok:
		return aok
	}
	return a < b
}
