package images

import (
	"github.com/fbc-project/fbc/internal/imageref"
)

// Row is one image of one bundle, as `fbc images list` prints it.
type Row struct {
	Package string `json:"package"`
	Bundle  string `json:"bundle"`
	Kind    Kind   `json:"kind"`
	Image   string `json:"image"`
	// Name is the related image's or container's name, when it has one.
	Name string `json:"name,omitempty"`
	// Via is the bundle image a template's stub names, for the images
	// read from it.
	Via string `json:"via,omitempty"`
}

// Rows lists the images of every bundle, one row per bundle and image, in
// the order they were found.
func (s *Scan) Rows() []Row {
	var out []Row
	for _, b := range s.Bundles {
		for _, r := range b.Images() {
			out = append(out, Row{Package: r.Package, Bundle: r.Bundle, Kind: r.Kind, Image: r.Image, Name: r.Name, Via: r.Via})
		}
	}
	return out
}

// OnlyNew keeps the rows whose image old does not name anywhere: the images
// a change to a catalog brings in. References are compared as registries
// read them (docker.io/library/x and x are one image).
func OnlyNew(rows []Row, old *Scan) []Row {
	known := map[string]bool{}
	for _, r := range old.Refs() {
		known[Normalize(r.Image)] = true
	}
	var out []Row
	for _, r := range rows {
		if !known[Normalize(r.Image)] {
			out = append(out, r)
		}
	}
	return out
}

// Normalize spells a reference the one way a registry reads it: the
// registry named (docker.io when none is), docker.io's library/ namespace
// for single names, then the tag and digest as written. A string that is
// not a reference is returned as it is.
func Normalize(ref string) string {
	r, err := imageref.Parse(ref)
	if err != nil {
		return ref
	}
	s := r.Domain + "/" + r.Path
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}
