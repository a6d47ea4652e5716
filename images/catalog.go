package images

import (
	"encoding/json"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// bundleFacts is what an olm.bundle blob (or a bundle directory, or a
// template's bundle stub) says about images, before its references are
// classified.
type bundleFacts struct {
	pkg, name string
	pos       declcfg.Pos
	// image is the bundle image, when the bundle has one.
	image *found
	// related are the relatedImages entries of a blob, or the CSV's
	// references of a bundle directory.
	related []found
	// csv is the bundle's CSV, read from its olm.bundle.object manifests
	// or its directory; nil when it has none.
	csv *csvFacts
	// objects are a blob's olm.bundle.object data (base64, sharing the
	// file's bytes) until readCSV reads them.
	objects []string
	// labels are the CSV's labels, from the CSV or from olm.csv.metadata.
	labels      map[string]string
	labelsKnown bool
	// editable marks references written in a file (not in an image).
	editable bool
	// fromCSV says related came from the CSV itself (a bundle directory),
	// whose references carry their own kinds.
	fromCSV bool
}

// bundle classifies the facts' references into a Bundle: the bundle image;
// then each related image that is not the bundle image, as an operator
// container when the CSV's deployments run it (or, with no CSV, when opm
// added it without a name), else as a related image.
func (f *bundleFacts) bundle(source string) *Bundle {
	b := &Bundle{Package: f.pkg, Name: f.name, Pos: f.pos, Source: source, Labels: f.labels, LabelsKnown: f.labelsKnown}
	if f.csv != nil && !f.labelsKnown {
		b.Labels, b.LabelsKnown = f.csv.labels, true
	}
	ref := func(x found, kind Kind) Ref {
		return Ref{Image: x.value, Kind: kind, Package: f.pkg, Bundle: f.name, Name: x.name, Pos: x.pos,
			Source: source, editable: f.editable && x.pos.Line > 0, quoted: x.quoted}
	}
	if f.image != nil && f.image.value != "" {
		b.Refs = append(b.Refs, ref(*f.image, KindBundle))
	}
	var operators map[string]bool
	if f.csv != nil {
		operators = f.csv.operatorImages()
	}
	for _, x := range f.related {
		kind := x.kind
		switch {
		case x.value == "":
			continue
		case f.fromCSV:
		case f.image != nil && x.value == f.image.value:
			kind = KindBundle
		case f.csv != nil && operators[x.value]:
			kind = KindOperator
		case f.csv == nil && x.name == "":
			kind = KindOperator
		default:
			kind = KindRelated
		}
		b.Refs = append(b.Refs, ref(x, kind))
	}
	return b
}

// blobFacts reads an olm.bundle document of file.
func blobFacts(file string, root *declcfg.Node, editable bool) *bundleFacts {
	f := &bundleFacts{
		pkg:      strings.Clone(strValue(field(root, "package"))),
		name:     strings.Clone(strValue(field(root, "name"))),
		pos:      at(file, root),
		editable: editable,
	}
	if x, ok := foundAt(file, KindBundle, "", field(root, "image")); ok {
		f.image = &x
	}
	for _, ri := range items(field(root, "relatedImages")) {
		if x, ok := foundAt(file, KindRelated, strValue(field(ri, "name")), field(ri, "image")); ok {
			f.related = append(f.related, x)
		}
	}
	for _, p := range items(field(root, "properties")) {
		v := field(p, "value")
		switch strValue(field(p, "type")) {
		case declcfg.PropertyBundleObject:
			f.objects = append(f.objects, strValue(field(v, "data")))
		case declcfg.PropertyCSVMetadata:
			f.labels, f.labelsKnown = stringMap(field(v, "labels")), true
		}
	}
	return f
}

// readCSV finds the CSV among the blob's olm.bundle.object manifests (the
// first that is one), decoding them in buf, which it may grow.
func (f *bundleFacts) readCSV(buf *[]byte) {
	for _, data := range f.objects {
		if f.csv = csvFromBase64(data, buf); f.csv != nil {
			break
		}
	}
	f.objects = nil
}

// typedFacts reads a bundle blob that was rendered (from a bundle image or
// a catalog image), whose references are not in a file Pin could edit.
func typedFacts(b *declcfg.Bundle) *bundleFacts {
	f := &bundleFacts{pkg: b.Package, name: b.Name, pos: b.Pos}
	if b.Image != "" {
		f.image = &found{kind: KindBundle, value: b.Image, pos: b.Pos}
	}
	for _, ri := range b.RelatedImages {
		f.related = append(f.related, found{kind: KindRelated, name: ri.Name, value: ri.Image, pos: ri.Pos})
	}
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyBundleObject:
			if f.csv != nil {
				continue
			}
			if data, err := declcfg.DecodeBundleObject(p.Value); err == nil {
				f.csv = csvFromObject(data)
			}
		case declcfg.PropertyCSVMetadata:
			var md struct {
				Labels map[string]string `json:"labels"`
			}
			if json.Unmarshal(p.Value, &md) == nil {
				f.labels, f.labelsKnown = md.Labels, true
			}
		}
	}
	return f
}

// OfBundle is the references of a bundle blob already in memory (a cut or
// rendered catalog's): its image and its related images, classified as
// ScanSources classifies a rendered bundle's. source names where it came
// from.
func OfBundle(b *declcfg.Bundle, source string) *Bundle { return typedFacts(b).bundle(source) }
