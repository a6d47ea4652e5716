// Package images finds the container images that catalogs, catalog
// templates, bundle directories and bundle or catalog images name (bundle
// images, related images, operator containers), with where each reference
// is written, and works on them: listing them, pinning tags to digests in
// place (through ImageDigestMirrorSet, ImageTagMirrorSet and
// ImageContentSourcePolicy mirrors, as a cluster pulls), checking that
// every image exists, is pinned, comes from an allowed registry and runs
// on the platforms its CSV claims, and linting a built catalog image.
// Registries are asked through package image, which knows nothing of
// catalogs; this package is what knows where catalogs keep references.
package images

import (
	"github.com/fbc-project/fbc/declcfg"
)

// Kind says what a reference is to its bundle.
type Kind string

const (
	// KindBundle is the bundle's own image (an olm.bundle's image, a
	// template's bundle stub).
	KindBundle Kind = "bundle"
	// KindOperator is an image the operator's deployments run: a
	// container or init container of the CSV's install strategy, or its
	// containerImage annotation. In a catalog whose bundles carry no CSV
	// (olm.csv.metadata), the related images opm added without a name,
	// which are the containers' images the CSV did not list.
	KindOperator Kind = "operator"
	// KindRelated is any other related image: the CSV's relatedImages,
	// RELATED_IMAGE_* environment variables, an olm.bundle's relatedImages.
	KindRelated Kind = "related"
)

// rank orders kinds from the most specific: an image that is both an
// operator container and a related image is listed as an operator
// container.
func (k Kind) rank() int {
	switch k {
	case KindBundle:
		return 0
	case KindOperator:
		return 1
	}
	return 2
}

// Ref is one place an image reference is written.
type Ref struct {
	// Image is the reference as written.
	Image string
	Kind  Kind
	// Package and Bundle name the bundle the reference belongs to, when
	// known (a template's bundle stub says neither until it is rendered).
	Package string
	Bundle  string
	// Name is the related image's or container's name, when it has one.
	Name string
	// Pos is where the reference is written: file, line and column of the
	// value. References read from an image's manifests (a bundle image, a
	// template's stub rendered for its related images) have the position
	// of what named that image, or none.
	Pos declcfg.Pos
	// Source is the SOURCE argument the reference was found through.
	Source string
	// Via is the bundle image whose manifests named the reference, for
	// the related images of a template's stub; empty otherwise.
	Via string

	// editable marks references written in a file that Pin may rewrite
	// (not inside an image, not read from a rendered bundle).
	editable bool
	// quoted is the scalar's style: 0 plain, or the quote character.
	quoted byte
}

// Bundle is a bundle and the references that name its images.
type Bundle struct {
	Package string
	Name    string
	Pos     declcfg.Pos
	Source  string
	// Labels are the CSV's operatorframework.io/arch.* and os.* labels
	// (and every other label it has); LabelsKnown is false when the
	// bundle carries no CSV and no olm.csv.metadata to read them from.
	Labels      map[string]string
	LabelsKnown bool
	Refs        []Ref
}

// Images lists what Refs name, one row per bundle and image: the same image
// written several times in a bundle (a related image that is also a
// container) is one row, of its most specific kind.
func (b *Bundle) Images() []Ref {
	var out []Ref
	at := map[string]int{}
	for _, r := range b.Refs {
		if i, ok := at[r.Image]; ok {
			if r.Kind.rank() < out[i].Kind.rank() {
				out[i].Kind = r.Kind
			}
			if out[i].Name == "" {
				out[i].Name = r.Name
			}
			continue
		}
		at[r.Image] = len(out)
		out = append(out, r)
	}
	return out
}
