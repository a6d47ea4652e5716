package images

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/template"
)

const (
	schemaBasic       = template.SchemaBasic
	schemaSemver      = template.SchemaSemver
	schemaSubstitutes = template.SchemaSubstitutes
)

// stub is a template's bundle reference that names only an image: a basic
// template's olm.bundle entry without properties, a semver template's
// bundle, a substitution. Its related images are in the image.
type stub struct {
	bundle *Bundle
	image  string
	pos    declcfg.Pos
}

// scanTemplate reads a template's references without rendering it: the
// image of every bundle stub and substitution, and the images of the FBC
// blobs it carries whole. Template keys are matched ignoring case, as opm
// reads them.
func scanTemplate(file, src, schema string, root *declcfg.Node, fr *fileScan) {
	var pkgs []string
	var entries []*declcfg.Node
	if schema != schemaSemver {
		entries = items(foldField(root, "entries"))
		for _, e := range entries {
			switch strValue(field(e, "schema")) {
			case declcfg.SchemaPackage:
				pkgs = append(pkgs, strValue(field(e, "name")))
			case declcfg.SchemaChannel:
				fr.channels++
			}
		}
	}
	pkg := ""
	if len(pkgs) == 1 {
		pkg = strings.Clone(pkgs[0])
	}
	addStub := func(n *declcfg.Node, name string) {
		x, ok := foundAt(file, KindBundle, "", n)
		if !ok || x.value == "" {
			return
		}
		f := &bundleFacts{pkg: pkg, name: strings.Clone(name), pos: x.pos, image: &x, editable: true}
		b := f.bundle(src)
		fr.bundles = append(fr.bundles, b)
		fr.stubs = append(fr.stubs, &stub{bundle: b, image: x.value, pos: x.pos})
	}
	for _, e := range entries {
		if strValue(field(e, "schema")) != declcfg.SchemaBundle {
			continue
		}
		if field(e, "properties") == nil && field(e, "relatedImages") == nil {
			addStub(field(e, "image"), strValue(field(e, "name")))
			continue
		}
		f := blobFacts(file, e, true)
		f.readCSV(new([]byte))
		if f.pkg == "" {
			f.pkg = pkg
		}
		fr.bundles = append(fr.bundles, f.bundle(src))
	}
	switch schema {
	case schemaSemver:
		for _, arch := range []string{"candidate", "fast", "stable"} {
			for _, b := range items(foldField(foldField(root, arch), "bundles")) {
				addStub(foldField(b, "image"), "")
			}
		}
	case schemaSubstitutes:
		for _, s := range items(foldField(root, "substitutions")) {
			addStub(foldField(s, "name"), "")
		}
	}
}

// expandStubs renders the bundle image of every stub (each image once,
// several at a time) and adds its related images and operator containers
// to the stub's bundle, named as the template names the bundle image. A
// stub whose bundle image could not be read keeps its bundle image alone;
// the failures are returned, one for each such stub, with its position.
func expandStubs(ctx context.Context, stubs []*stub, opts ScanOptions) ([]Failure, error) {
	if opts.Renderer == nil {
		return nil, fmt.Errorf("no renderer to read the bundle images of templates with")
	}
	index := map[string]int{}
	var srcs []render.BundleSource
	for _, s := range stubs {
		if _, ok := index[s.image]; !ok {
			index[s.image] = len(srcs)
			srcs = append(srcs, render.BundleSource{Ref: s.image, Image: s.image})
		}
	}
	rendered, err := opts.Renderer.RenderBundlesEach(ctx, srcs, render.Request{Allowed: render.KindBundleImage})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var failed []Failure
	for _, s := range stubs {
		got := rendered[index[s.image]]
		if got.Err != nil {
			failed = append(failed, Failure{Pos: s.pos, Ref: s.image, Err: got.Err})
			continue
		}
		if got.Config == nil || len(got.Config.Bundles) != 1 {
			failed = append(failed, Failure{Pos: s.pos, Ref: s.image, Err: fmt.Errorf("%s: not read as one bundle", s.image)})
			continue
		}
		rb := &got.Config.Bundles[0]
		full := typedFacts(rb).bundle(s.bundle.Source)
		b := s.bundle
		if b.Package == "" {
			b.Package = rb.Package
		}
		if b.Name == "" {
			b.Name = rb.Name
		}
		b.Labels, b.LabelsKnown = full.Labels, full.LabelsKnown
		for i := range b.Refs {
			b.Refs[i].Package, b.Refs[i].Bundle = b.Package, b.Name
		}
		for _, r := range full.Refs {
			if r.Kind == KindBundle {
				continue
			}
			r.Package, r.Bundle, r.Pos, r.Via = b.Package, b.Name, s.pos, s.image
			b.Refs = append(b.Refs, r)
		}
	}
	return failed, nil
}

// stubErrors is the error of stubs whose bundle images could not be read:
// one line each, with the stub's position. It is an Input error when every
// image failed for its content, and a Run error otherwise.
func stubErrors(failed []Failure) error {
	var errs []error
	var rerrs render.Errors
	for _, f := range failed {
		errs = append(errs, fmt.Errorf("%s: reading the bundle image a template names, for its related images: %w", f.Pos, f.Err))
		var re *render.Error
		if errors.As(f.Err, &re) {
			rerrs = append(rerrs, re)
		}
	}
	kind := fault.Run
	if len(rerrs) == len(failed) {
		kind = rerrs.FaultKind()
	}
	return fault.Wrap(kind, errors.Join(errs...))
}
