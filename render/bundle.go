package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// bundleFiles is a bundle's file tree: a directory, or the files of an image.
type bundleFiles struct {
	// Source names the bundle as the user named it.
	Source string
	FS     fs.FS
	// Manifests and Metadata are the two directories within FS.
	Manifests, Metadata string
	// Display names a file of FS for messages.
	Display func(p string) string
	// Tree, for a bundle directory on disk, is that directory: a symbolic
	// link must lead inside it (its files become the bundle's blob).
	Tree *safefs.Tree
}

// parsedBundle is a rendered olm.bundle plus what --with-channels needs,
// which the blob itself does not carry.
type parsedBundle struct {
	Bundle         declcfg.Bundle
	CSV            *csvInfo
	Channels       []string
	DefaultChannel string
	Source         string
	// Manifests are the objects of manifests/, in name order; csvIndex is
	// the CSV's.
	Manifests []manifest
	csvIndex  int
	// Files holds every file read, when bundleOptions.KeepFiles asks.
	Files []BundleFile
	// display names a file of the bundle for messages; image says the
	// bundle came from an image.
	display func(string) string
	image   bool
}

// bundleParser turns bundle files into an olm.bundle the way opm does.
type bundleParser struct {
	files bundleFiles
	warn  func(string)
	// keep, when set, receives every file read.
	keep func(name string, data []byte)
}

func (p *bundleParser) invalid(file string, line int, err error) *Error {
	e := &Error{Source: p.files.Source, Err: err, Invalid: true, Line: line}
	if file != "" {
		e.File = p.files.Display(file)
	}
	return e
}

// invalidMetadata is invalid for a problem with an item of a metadata
// file's dependencies or properties (a *metadataError): it names the line
// and column of what is at fault, or the document's line when the file's
// text cannot say.
func (p *bundleParser) invalidMetadata(file string, data []byte, docLine int, err error) *Error {
	e := p.invalid(file, docLine, err)
	var me *metadataError
	if errors.As(err, &me) {
		if line, col := me.locate(data); line > 0 {
			e.Line, e.Col = line, col
		}
	}
	return e
}

func (p *bundleParser) ioError(file string, err error) *Error {
	e := &Error{Source: p.files.Source, Err: err}
	if file != "" {
		e.File = p.files.Display(file)
	}
	return e
}

// readDocument reads the first document of a bundle file.
func (p *bundleParser) readDocument(name string) (document, *Error) {
	data, err := fs.ReadFile(p.files.FS, name)
	if err != nil {
		return document{}, p.ioError(name, unwrapPathError(err))
	}
	if p.keep != nil {
		p.keep(name, data)
	}
	doc, err := firstDocument(data)
	if err != nil {
		var de *docError
		if errors.As(err, &de) {
			return document{}, p.invalid(name, de.Line, errors.New(de.Msg))
		}
		return document{}, p.invalid(name, 0, err)
	}
	doc.Data = data
	return doc, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// manifest is one object of manifests/ with where it came from.
type manifest struct {
	file string
	line int
	obj  *kubeObject
}

// readManifests decodes every file directly in the manifests directory, in
// name order. opm skips dotfiles and subdirectories, and silently drops
// files it cannot decode; fbc skips the same files but reports the rest.
func (p *bundleParser) readManifests() ([]manifest, *Error) {
	dir := p.files.Manifests
	entries, err := fs.ReadDir(p.files.FS, dir)
	if err != nil {
		return nil, p.ioError(dir, unwrapPathError(err))
	}
	var out []manifest
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		isDir, perr := p.entryIsDir(name, e)
		if perr != nil {
			return nil, perr
		}
		if isDir {
			p.warnf("%s: ignored: OLM reads only the files directly in %s/", p.files.Display(name), dir)
			continue
		}
		doc, perr := p.readDocument(name)
		if perr != nil {
			return nil, perr
		}
		if doc.Empty {
			p.warnf("%s: ignored: the file holds no object", p.files.Display(name))
			continue
		}
		obj, err := decodeKubeObject(doc.JSON)
		if err != nil {
			return nil, p.invalid(name, doc.Line, err)
		}
		out = append(out, manifest{file: name, line: doc.Line, obj: obj})
	}
	if len(out) == 0 {
		return nil, p.invalid(dir, 0, errors.New("no Kubernetes objects: a bundle's manifests directory holds its ClusterServiceVersion and CRDs"))
	}
	return out, nil
}

// entryIsDir says whether an entry of manifests/ or metadata/ is a
// directory, following a symbolic link. Anything but a directory or a
// regular file is an error: opening a fifo would wait forever for a writer.
func (p *bundleParser) entryIsDir(name string, e fs.DirEntry) (bool, *Error) {
	mode := e.Type()
	if mode&fs.ModeSymlink != 0 {
		fi, err := fs.Stat(p.files.FS, name)
		if err != nil {
			return false, p.ioError(name, unwrapPathError(err))
		}
		mode = fi.Mode().Type()
		// A linked file is read into the bundle's blob: it must be the
		// bundle's own (a linked directory is not read at all).
		if p.files.Tree != nil && mode.IsRegular() {
			var outside *safefs.OutsideError
			if _, err := p.files.Tree.Resolve(p.files.Display(name)); errors.As(err, &outside) {
				return false, p.invalid(name, 0, fmt.Errorf("symbolic link to %s, which is outside the bundle directory %s: a bundle is read only from what it holds; copy the file in instead of linking to it", outside.Target, p.files.Source))
			}
		}
	}
	switch {
	case mode.IsDir():
		return true, nil
	case mode.IsRegular():
		return false, nil
	}
	return false, p.invalid(name, 0, fmt.Errorf("not a regular file (%s): a bundle holds only files and directories", safefs.TypeWords(mode)))
}

func (p *bundleParser) warnf(format string, args ...any) {
	if p.warn != nil {
		p.warn(fmt.Sprintf(format, args...))
	}
}

// bundleMetadata is what metadata/ holds.
type bundleMetadata struct {
	annotations  *annotationsFile
	dependencies []typedProperty
	properties   []typedProperty
	depsFile     string
	propsFile    string
	// depsData and propsData are the files' text, and depsLine and
	// propsLine the lines their documents start at, for the positions of
	// errors.
	depsData, propsData []byte
	depsLine, propsLine int
}

// readMetadata tries every file of the metadata directory as annotations,
// dependencies and properties; the first non-empty one of each kind wins, in
// name order, as in opm.
func (p *bundleParser) readMetadata() (*bundleMetadata, *Error) {
	dir := p.files.Metadata
	entries, err := fs.ReadDir(p.files.FS, dir)
	if err != nil {
		return nil, p.ioError(dir, unwrapPathError(err))
	}
	md := &bundleMetadata{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := path.Join(dir, e.Name())
		isDir, perr := p.entryIsDir(name, e)
		if perr != nil {
			return nil, perr
		}
		if isDir {
			continue
		}
		doc, perr := p.readDocument(name)
		if perr != nil {
			if !isYAMLName(name) && perr.Invalid {
				p.warnf("%s: ignored: not YAML or JSON", p.files.Display(name))
				continue
			}
			return nil, perr
		}
		if doc.Empty {
			continue
		}
		af, df, pf, err := metadataKinds(doc.JSON)
		if err != nil {
			if !isYAMLName(name) {
				p.warnf("%s: ignored: %v", p.files.Display(name), err)
				continue
			}
			return nil, p.invalidMetadata(name, doc.Data, doc.Line, err)
		}
		if md.annotations == nil && !af.empty() {
			md.annotations = af
		}
		if md.dependencies == nil && len(df.Dependencies) > 0 {
			md.dependencies, md.depsFile, md.depsData, md.depsLine = df.Dependencies, name, doc.Data, doc.Line
		}
		if md.properties == nil && len(pf.Properties) > 0 {
			md.properties, md.propsFile, md.propsData, md.propsLine = pf.Properties, name, doc.Data, doc.Line
		}
	}
	if md.annotations == nil {
		return nil, p.invalid(dir, 0, fmt.Errorf("no annotations file: a bundle's metadata directory needs an annotations.yaml with %s", AnnotationPackage))
	}
	if md.annotations.Annotations.Package == "" {
		return nil, p.invalid(dir, 0, fmt.Errorf("the annotations file does not name the package (%s)", AnnotationPackage))
	}
	return md, nil
}

func isYAMLName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// bundleOptions tunes one bundle's rendering.
type bundleOptions struct {
	// Image is the bundle's image reference; empty for a directory unless
	// a template or an image map provides one.
	Image string
	// ImageTemplate, when set and Image is empty, computes Image.
	ImageTemplate *template.Template
	Warn          fault.Warn
	// KeepFiles keeps the bytes of every file read in parsedBundle.Files.
	KeepFiles bool
}

// parseBundle renders one bundle's files into an olm.bundle.
func parseBundle(files bundleFiles, opts bundleOptions) (*parsedBundle, *Error) {
	p := &bundleParser{files: files, warn: opts.Warn}
	var kept []BundleFile
	if opts.KeepFiles {
		p.keep = func(name string, data []byte) {
			kept = append(kept, BundleFile{Name: files.Display(name), Data: data})
		}
	}
	manifests, perr := p.readManifests()
	if perr != nil {
		return nil, perr
	}
	var (
		csvM   *manifest
		csv    *csvInfo
		crds   []*crdInfo
		source = files.Source
	)
	for i := range manifests {
		m := &manifests[i]
		switch {
		case m.obj.kind() == kindCSV:
			if csvM != nil {
				return nil, p.invalid(m.file, m.line, fmt.Errorf("a second ClusterServiceVersion (%s; the first is %s in %s): a bundle holds exactly one, and opm would silently drop this one", m.obj.name(), csvM.obj.name(), files.Display(csvM.file)))
			}
			c, err := parseCSV(m.obj)
			if err != nil {
				return nil, p.invalid(m.file, m.line, err)
			}
			csvM, csv = m, c
		case isCRD(m.obj):
			c, err := parseCRD(m.obj)
			if err != nil {
				return nil, p.invalid(m.file, m.line, err)
			}
			crds = append(crds, c)
		}
	}
	if csv == nil {
		return nil, p.invalid(files.Manifests, 0, errors.New("no ClusterServiceVersion: every bundle needs exactly one"))
	}
	provided, perr := providedAPIs(p, csvM, csv, crds)
	if perr != nil {
		return nil, perr
	}
	required, err := requiredAPIs(csv)
	if err != nil {
		return nil, p.invalid(csvM.file, csvM.line, err)
	}
	md, perr := p.readMetadata()
	if perr != nil {
		return nil, perr
	}
	pkg := string(md.annotations.Annotations.Package)
	objects := make([]*kubeObject, len(manifests))
	for i, m := range manifests {
		objects[i] = m.obj
	}
	props, firstVersion, perr := bundleProperties(p, pkg, csv, csvM, md, provided, required, objects)
	if perr != nil {
		return nil, perr
	}
	ref := opts.Image
	if ref == "" && opts.ImageTemplate != nil {
		var b strings.Builder
		data := struct{ Package, Name, Version string }{pkg, csv.Name, firstVersion}
		if err := opts.ImageTemplate.Execute(&b, data); err != nil {
			return nil, &Error{Source: source, Err: fmt.Errorf("image reference template: %w", err)}
		}
		ref = b.String()
		if _, err := image.ParseReference(ref); err != nil {
			return nil, &Error{Source: source, Err: fmt.Errorf("image reference template: the image of bundle %s: %w", csv.Name, err)}
		}
	}
	return &parsedBundle{
		Bundle: declcfg.Bundle{
			Schema:        declcfg.SchemaBundle,
			Name:          csv.Name,
			Package:       pkg,
			Image:         ref,
			Properties:    props,
			RelatedImages: relatedImages(csv, ref),
		},
		CSV:            csv,
		Channels:       splitChannels(string(md.annotations.Annotations.Channels)),
		DefaultChannel: strings.TrimSpace(string(md.annotations.Annotations.DefaultChannel)),
		Source:         source,
		Manifests:      manifests,
		csvIndex:       indexOf(manifests, csvM),
		Files:          kept,
		display:        files.Display,
	}, nil
}

// apiKey identifies a provided API; plural matters for the owned-CRD check.
type apiKey struct {
	Group, Version, Kind, Plural string
}

// providedAPIs lists every version of every CRD plus the owned APIServices,
// and checks that every CRD the CSV owns is in the bundle (opm's
// AllProvidedAPIsInBundle).
func providedAPIs(p *bundleParser, csvM *manifest, csv *csvInfo, crds []*crdInfo) ([]apiKey, *Error) {
	var out []apiKey
	seen := map[apiKey]bool{}
	add := func(k apiKey) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, c := range crds {
		for _, v := range c.Versions {
			add(apiKey{c.Group, v, c.Kind, c.Plural})
		}
	}
	for _, a := range csv.OwnedAPIServices {
		add(apiKey{a.Group, a.Version, a.Kind, a.Name})
	}
	for _, o := range csv.OwnedCRDs {
		plural, group, ok := strings.Cut(o.Name, ".")
		if !ok {
			return nil, p.invalid(csvM.file, csvM.line, fmt.Errorf("spec.customresourcedefinitions.owned: name %q is not <plural>.<group>", o.Name))
		}
		if !seen[apiKey{group, o.Version, o.Kind, plural}] {
			return nil, p.invalid(csvM.file, csvM.line, fmt.Errorf("the CSV owns CRD %s (version %s, kind %s), but no CustomResourceDefinition in %s provides it", o.Name, o.Version, o.Kind, p.files.Display(p.files.Manifests)))
		}
	}
	return out, nil
}

// requiredAPIs lists the CSV's required CRDs (group and plural from the
// name) and APIServices.
func requiredAPIs(csv *csvInfo) ([]apiKey, error) {
	var out []apiKey
	for _, r := range csv.RequiredCRDs {
		plural, group, ok := strings.Cut(r.Name, ".")
		if !ok {
			return nil, fmt.Errorf("spec.customresourcedefinitions.required: name %q is not <plural>.<group>", r.Name)
		}
		out = append(out, apiKey{group, r.Version, r.Kind, plural})
	}
	for _, a := range csv.RequiredAPIServices {
		out = append(out, apiKey{a.Group, a.Version, a.Kind, a.Name})
	}
	return out, nil
}

// relatedImages lists the CSV's related images as written, then the bundle
// image and the operator's container images that are not already listed.
// Render sorts them (once: the sort is not stable, as in opm).
func relatedImages(csv *csvInfo, bundleImage string) []declcfg.RelatedImage {
	out := append([]declcfg.RelatedImage(nil), csv.RelatedImages...)
	seen := map[string]bool{}
	for _, ri := range out {
		seen[ri.Image] = true
	}
	if bundleImage != "" && !seen[bundleImage] {
		seen[bundleImage] = true
		out = append(out, declcfg.RelatedImage{Image: bundleImage})
	}
	for _, img := range csv.OperatorImages {
		if !seen[img] {
			seen[img] = true
			out = append(out, declcfg.RelatedImage{Image: img})
		}
	}
	return out
}

func indexOf(ms []manifest, m *manifest) int {
	for i := range ms {
		if &ms[i] == m {
			return i
		}
	}
	return -1
}
