package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/template"
)

// TagMismatchError is an image to release whose tag is neither the name
// of the bundle's directory nor its CSV's version: the pipelines tag a
// bundle's image with its directory's name (the bundle's version), so the
// image is most likely another bundle's (2.5.41 given for 2.5.14).
// Options.AllowTagMismatch accepts it. A Usage error: the image given does
// not fit the bundle.
type TagMismatchError struct {
	Image, Tag string
	BundleDir  string // as named
	Version    string // the CSV's spec.version ("" when it has none)
	CSVFile    string
}

func (e *TagMismatchError) Error() string {
	version := fmt.Sprintf("whose CSV %s has no spec.version", e.CSVFile)
	if e.Version != "" {
		version = fmt.Sprintf("version %s (spec.version of %s)", e.Version, e.CSVFile)
	}
	return fmt.Sprintf("image %s is tagged %s, but %s is %s: the pipelines tag a bundle's image with its version; give the image of %s", e.Image, e.Tag, e.BundleDir, version, e.BundleDir)
}

// FaultKind is Usage: the image given does not fit the bundle.
func (e *TagMismatchError) FaultKind() fault.Kind { return fault.Usage }

// NoImageError is a release without an image whose templates do not say
// how to name it (see deriveImage). A Usage error: the image must be given.
type NoImageError struct{ Err error }

func (e *NoImageError) Error() string         { return e.Err.Error() }
func (e *NoImageError) Unwrap() error         { return e.Err }
func (e *NoImageError) FaultKind() fault.Kind { return fault.Usage }

// checkTag refuses an image whose tag names neither the bundle's
// directory nor its CSV's version, each with or without a leading v (and
// a version's build metadata with '_' for '+', which tags cannot hold). An
// image named by digest alone names no version.
func checkTag(image string, csv *repo.CSV, bundleDir string) error {
	r, err := imageref.Parse(image)
	if err != nil || r.Tag == "" {
		return nil
	}
	matches := func(v string) bool {
		if v == "" {
			return false
		}
		t := strings.TrimPrefix(r.Tag, "v")
		return t == strings.TrimPrefix(v, "v") || t == strings.ReplaceAll(strings.TrimPrefix(v, "v"), "+", "_")
	}
	if matches(filepath.Base(bundleDir)) || matches(csv.Version) {
		return nil
	}
	return &TagMismatchError{Image: image, Tag: r.Tag, BundleDir: bundleDir, Version: csv.Version, CSVFile: csv.File}
}

// deriveImage names the image of the bundle directory absBundle when none
// is given, as the community pipeline names it: when every bundle image of
// the operator's mapped templates is <registry>/<namespace>/<operator>:<version>
// (the operator's folder name, and a version: the name of one of its
// bundle directories, or a semantic version), with one registry and
// namespace, the image is that with the directory's name as its tag. It
// returns the image and a note that says how it was named.
func (p *run) deriveImage(ci *repo.CI, absBundle string) (image, note string, err error) {
	refuse := func(format string, args ...any) error {
		return &NoImageError{Err: fmt.Errorf("no image given, and "+format, args...)}
	}
	var refs []template.Ref
	var files []string
	seen := map[string]bool{}
	if ci.FBC != nil {
		for _, m := range ci.FBC.Mappings {
			if seen[m.Template] || checkMapping(m) != nil {
				continue
			}
			seen[m.Template] = true
			path := p.op.TemplatePath(m.Template)
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return "", "", fault.Wrap(fault.Run, err)
			}
			kind := template.KindBasic
			if m.Type == repo.TypeSemver {
				kind = template.KindSemver
			}
			rs, err := template.Refs(p.show(path), data, kind)
			if err != nil {
				return "", "", refuse("%s cannot be read for the bundle images it names: %w", p.show(path), err)
			}
			refs = append(refs, rs...)
			files = append(files, m.Template)
		}
	}
	if len(refs) == 0 {
		return "", "", refuse("the templates %s maps name no bundle image to name the image of %s after", p.show(ci.File), p.show(absBundle))
	}
	convention := "<registry>/<namespace>/" + p.op.Name + ":<version>"
	var prefix string
	for i, r := range refs {
		pr, err := imageref.Parse(r.Image)
		var why string
		switch {
		case err != nil:
			why = err.Error()
		case pr.Digest != "":
			why = "it is named by digest"
		case pr.Tag == "":
			why = "it has no tag"
		case pr.Path != p.op.Name && !strings.HasSuffix(pr.Path, "/"+p.op.Name):
			why = fmt.Sprintf("its repository is not %s, the operator's name", p.op.Name)
		case !p.isVersion(pr.Tag):
			why = fmt.Sprintf("its tag %s is no version of the operator", pr.Tag)
		}
		if why != "" {
			return "", "", refuse("the bundle images of the templates do not all follow %s, so the image of %s cannot be named after them: %s: %s: %s", convention, p.show(absBundle), r.Pos, r.Image, why)
		}
		rp := strings.TrimSuffix(r.Image, ":"+pr.Tag)
		if i == 0 {
			prefix = rp
		} else if rp != prefix {
			return "", "", refuse("the bundle images of the templates are not all in one repository, so the image of %s cannot be named after them: %s: %s, but %s: %s", p.show(absBundle), refs[0].Pos, refs[0].Image, r.Pos, r.Image)
		}
	}
	image = prefix + ":" + filepath.Base(absBundle)
	if _, err := imageref.Parse(image); err != nil {
		return "", "", refuse("%s, named after the templates' bundle images, is no image reference: %v", image, err)
	}
	note = fmt.Sprintf("releasing %s: every bundle image of the templates (%d in %s) is %s:<version>", image, len(refs), strings.Join(files, ", "), prefix)
	return image, note, nil
}

// isVersion reports whether a tag names a version of the operator: one of
// its bundle directories, or a semantic version.
func (p *run) isVersion(tag string) bool {
	if tag != "." && tag != ".." && repo.IsBundleDir(filepath.Join(p.op.Dir, tag)) {
		return true
	}
	_, err := semver.Parse(tag)
	return err == nil
}
