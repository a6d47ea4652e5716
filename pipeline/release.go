package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/repo"
)

// TemplateChange is what a release did to one template.
type TemplateChange struct {
	// File is the template, shown from WorkDir.
	File string
	// Created is set for a template the release made; Changed for one it
	// amended (neither: the image was there already).
	Created, Changed bool
	// Rewritten is set when the amendment could not be spliced into the
	// text and yaml.v3 wrote the template again (comments kept, layout
	// not).
	Rewritten bool
}

// templateState is a template as the release has it so far.
type templateState struct {
	name    string
	path    string
	old     []byte // the file's content; nil when it did not exist
	text    *declcfg.YAMLText
	created bool
	changed bool
}

// Release does what the release bot does once a bundle's pull request has
// merged: it reads bundleDir/release-config.yaml, amends each template its
// catalog_templates names (see amend.go; a template listed twice is
// amended twice, as the bot does), then renders each amended template into
// the catalogs of its ci.yaml mapping, as Catalogs does. image is the
// bundle's image; it renders from bundleDir itself. An image "" is named
// after the templates' bundle images when they all follow one
// <registry>/<namespace>/<operator>:<version> convention (Result.ImageNote
// says so); an image whose tag is neither bundleDir's name nor its CSV's
// version is refused (TagMismatchError) unless Options.AllowTagMismatch. The templates keep
// their comments and layout, and the templates and catalogs land together
// or not at all.
//
// Settings that cannot be used (release-config.yaml, ci.yaml, a folder
// that is no bundle or has no CSV, an image that another bundle has) stop
// the run before anything is written (exit 2).
func Release(ctx context.Context, bundleDir, image string, opts Options) (*Result, error) {
	op, err := repo.OperatorOf(bundleDir)
	if err != nil {
		return nil, err
	}
	absBundle, err := filepath.Abs(bundleDir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(absBundle); err == nil {
		if rd, err := filepath.EvalSymlinks(op.Dir); err == nil && filepath.Dir(real) == rd {
			absBundle = filepath.Join(op.Dir, filepath.Base(real))
		}
	}
	if filepath.Dir(absBundle) != op.Dir {
		return nil, fault.Errorf(fault.Usage, "%s is not a version folder of operator %s: name one, %s", bundleDir, op.Name, filepath.Join(op.Dir, "VERSION"))
	}
	if !repo.IsBundleDir(bundleDir) {
		return nil, fault.Errorf(fault.Run, "%s is not a bundle directory: it needs manifests/ and metadata/", bundleDir)
	}
	if image != "" {
		if _, err := imageref.Parse(image); err != nil {
			return nil, fault.Errorf(fault.Usage, "image %q: %v", image, err)
		}
	}
	p, err := newRun(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	release, err := p.begin(ctx, "releasing "+p.show(absBundle))
	if err != nil {
		return nil, err
	}
	defer release()
	rc, err := repo.LoadReleaseConfig(bundleDir)
	if err != nil {
		return nil, setupError(err)
	}
	p.warnAll(rc.Warnings)
	csv, err := repo.ReadCSV(bundleDir)
	if err != nil {
		return nil, setupError(err)
	}
	ci, err := p.readCI()
	if err != nil {
		return nil, setupError(err)
	}
	if image == "" {
		if image, p.res.ImageNote, err = p.deriveImage(ci, absBundle); err != nil {
			return nil, err
		}
	}
	p.res.Image = image
	if err := p.checkImage(ctx, image, csv, bundleDir, absBundle); err != nil {
		return nil, err
	}
	if !opts.AllowTagMismatch {
		if err := checkTag(image, csv, bundleDir); err != nil {
			return nil, err
		}
	}
	p.fixedImage, p.fixedDir = image, absBundle

	states := map[string]*templateState{}
	var order []string
	for _, rt := range rc.Templates {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := p.checkListing(ci, rt)
		if err != nil {
			return nil, setupError(err)
		}
		st := states[rt.Template]
		a := &addition{rt: rt, pkg: op.Name, csvName: csv.Name, image: image, file: p.show(op.TemplatePath(rt.Template))}
		if m.Type == repo.TypeSemver {
			if err := checkSemverChannel(a); err != nil {
				return nil, setupError(err)
			}
		}
		if st == nil {
			if st, err = p.openTemplate(rt.Template, m.Type, a); err != nil {
				return nil, err
			}
			states[rt.Template] = st
			order = append(order, rt.Template)
			if st.created {
				continue
			}
		}
		var changed bool
		if m.Type == repo.TypeSemver {
			changed, err = amendSemver(st.text, a)
		} else {
			changed, err = amendBasic(st.text, a)
		}
		if err != nil {
			return nil, err
		}
		st.changed = st.changed || changed
	}

	texts := map[string][]byte{}
	for name, st := range states {
		texts[name] = st.text.Bytes()
	}
	// The bot renders each template as it amends it, so a catalog two
	// templates map keeps the render of the one listed last.
	var lastListed []string
	for i := len(rc.Templates) - 1; i >= 0; i-- {
		if name := rc.Templates[i].Template; !slices.Contains(lastListed, name) {
			lastListed = append([]string{name}, lastListed...)
		}
	}
	cats, err := p.renderMapped(ctx, ci, lastListed, texts)
	if err != nil {
		return p.res, err
	}
	for _, name := range order {
		st := states[name]
		p.res.Templates = append(p.res.Templates, TemplateChange{File: p.show(st.path), Created: st.created, Changed: st.changed, Rewritten: st.text.Rewritten})
		if st.created || st.changed {
			if err := p.stage(st.path, st.text.Bytes(), st.old, !st.created); err != nil {
				return p.res, err
			}
		}
	}
	for _, c := range cats {
		old, exists, err := readOld(c.path)
		if err != nil {
			return p.res, err
		}
		if err := p.stage(c.path, c.data, old, exists); err != nil {
			return p.res, err
		}
	}
	return p.res, p.land(ctx)
}

// checkListing applies the bot's checks to a catalog_templates item (its
// defaultChannel among its channels, its template mapped in ci.yaml, of a
// type the bot knows) and refuses channels named twice, and returns the
// template's mapping.
func (p *run) checkListing(ci *repo.CI, rt repo.ReleaseTemplate) (repo.Mapping, error) {
	if err := checkName(rt.Template, "template_name", rt.TemplatePos, true); err != nil {
		return repo.Mapping{}, err
	}
	if rt.DefaultChannel != "" && !slices.Contains(rt.Channels, rt.DefaultChannel) {
		return repo.Mapping{}, repo.ProblemAt(rt.DefaultChannelPos, fmt.Sprintf("defaultChannel %q is not one of the channels the bundle is released to (%s)", rt.DefaultChannel, strings.Join(rt.Channels, ", ")))
	}
	for i, ch := range rt.Channels {
		if j := slices.Index(rt.Channels, ch); j < i {
			return repo.Mapping{}, repo.ProblemAt(rt.ChannelPos[i], fmt.Sprintf("channel %q is named twice", ch))
		}
	}
	m, ok := ci.Mapping(rt.Template)
	if !ok {
		return repo.Mapping{}, repo.ProblemAt(rt.TemplatePos, fmt.Sprintf("template %s is not in the fbc.catalog_mapping of %s: map it to the catalogs it renders", rt.Template, ci.File))
	}
	return m, checkMapping(m)
}

// openTemplate reads a template for amending, or creates it with the
// release's first addition when it does not exist.
func (p *run) openTemplate(name, typ string, a *addition) (*templateState, error) {
	path := p.op.TemplatePath(name)
	st := &templateState{name: name, path: path}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		root := createBasic(a)
		if typ == repo.TypeSemver {
			root = createSemver(a)
		}
		if data, err = declcfg.EncodeYAML(root); err != nil {
			return nil, err
		}
		st.created, st.changed = true, true
	case err != nil:
		return nil, fault.Wrap(fault.Run, err)
	default:
		st.old = data
	}
	st.text, err = declcfg.EditYAML(p.show(path), data)
	if err != nil {
		return nil, fault.Wrap(fault.Input, err)
	}
	return st, nil
}

// checkImage refuses an image that is another bundle's: mapped to another
// source, published as another bundle, or tagged with the version of
// another bundle directory.
func (p *run) checkImage(ctx context.Context, image string, csv *repo.CSV, bundleDir, absBundle string) error {
	if e, ok := p.m.Lookup(image); ok && repo.IsBundleDir(e.Source) && !sameDir(e.Source, absBundle) {
		// A copy of the bundle is fine; another bundle is not.
		other, err := repo.ReadCSV(e.Source)
		if err != nil || other.Name != csv.Name {
			name := "a folder whose CSV cannot be read"
			if err == nil {
				name = "bundle " + other.Name
			}
			return fault.Errorf(fault.Usage, "%s: image map %s maps image %s to %s, which is %s, not %s (%s), the bundle being released",
				e.Pos, p.m.File, image, e.Written, name, csv.Name, bundleDir)
		}
	}
	b, file, err := p.finder.Blob(ctx, image)
	if err != nil {
		return err
	}
	if b != nil && b.Name != csv.Name {
		return fault.Errorf(fault.Usage, "image %s is bundle %s in %s, but %s is %s (%s): give the image built from %s",
			image, b.Name, p.show(file), bundleDir, csv.Name, csv.File, bundleDir)
	}
	if dir := p.finder.versionDir(image, ""); dir != "" && !sameDir(dir, absBundle) {
		return fault.Errorf(fault.Usage, "image %s is tagged with the version of %s, not of %s, the bundle being released", image, p.show(dir), bundleDir)
	}
	return nil
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// readOld reads a file about to be replaced; see missing.
func readOld(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return data, true, nil
	case missing(err):
		return nil, false, nil
	}
	return nil, false, fault.Wrap(fault.Run, err)
}

// missing: a file that is not there, or cannot be (a file where its
// folder should be); writing it is what fails, and says so.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
