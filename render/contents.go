package render

import (
	"context"
	"errors"
	"fmt"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// BundleContents is a bundle directory or bundle image as its files hold
// it: the olm.bundle opm renders from it, plus what the blob does not keep
// (where each manifest came from, the annotations' channels, the files
// themselves). fbc validate's profiles check it.
type BundleContents struct {
	// Source names the bundle as the user did.
	Source string
	// Kind is KindBundleDir or KindBundleImage.
	Kind Kind
	// Bundle is the olm.bundle blob, exactly as Render makes it.
	Bundle declcfg.Bundle
	// Manifests are the objects of manifests/, in name order; CSV is the
	// index of the ClusterServiceVersion among them.
	Manifests []BundleManifest
	CSV       int
	// Files are every file of manifests/ and metadata/ that was read, with
	// their bytes (the size limit OLM applies counts them).
	Files []BundleFile
	// Channels and DefaultChannel are the annotations' channels.
	Channels       []string
	DefaultChannel string
}

// BundleManifest is one object of a bundle's manifests/ directory.
type BundleManifest struct {
	// File names the file as messages do: the path under a directory, or
	// "<image>@<digest>:manifests/<name>" in an image.
	File string
	// Line is where the object starts in the file.
	Line int
	// JSON is the object as opm stores it in an olm.bundle.object.
	JSON []byte
	// APIVersion, Kind and Name (metadata.name) identify the object.
	APIVersion, Kind, Name string
}

// BundleFile is one file of a bundle.
type BundleFile struct {
	// Name names the file as BundleManifest.File does.
	Name string
	Data []byte
}

// BundleRead is the outcome of reading one bundle source: the contents,
// or why they could not be read.
type BundleRead struct {
	Contents *BundleContents
	Err      *Error
}

// ReadBundle reads a bundle directory or bundle image. Its warnings (about
// files OLM ignores) are its own: they go to warn, not to Options.Warn, so
// that a caller can tell them to the bundle (nil drops them).
func (r *Renderer) ReadBundle(ctx context.Context, ref string, warn fault.Warn) BundleRead {
	c := &call{Renderer: r}
	if warn == nil {
		warn = func(string) {}
	}
	var out BundleRead
	res := c.run(ctx, []source{{ref: ref, bundle: true, contents: true, warn: warn}}, false, nil)[0]
	switch {
	case res.err != nil:
		out.Err = res.err
	case len(res.bundles) != 1:
		out.Err = &Error{Source: ref, Err: errors.New("not a bundle")}
	default:
		out.Contents = contentsOf(ref, res.bundles[0])
	}
	return out
}

func contentsOf(ref string, pb *parsedBundle) *BundleContents {
	kind := KindBundleDir
	if pb.image {
		kind = KindBundleImage
	}
	c := &BundleContents{
		Source:         ref,
		Kind:           kind,
		Bundle:         pb.Bundle,
		CSV:            pb.csvIndex,
		Files:          pb.Files,
		Channels:       pb.Channels,
		DefaultChannel: pb.DefaultChannel,
	}
	for _, m := range pb.Manifests {
		c.Manifests = append(c.Manifests, BundleManifest{File: pb.display(m.file), Line: m.line, JSON: m.obj.JSON,
			APIVersion: m.obj.apiVersion(), Kind: m.obj.kind(), Name: m.obj.name()})
	}
	return c
}

// SourceKind says what a source is without opening it, the way Render
// classifies sources: standard input, a bundle directory, a catalog
// directory or file, or (image true) an image reference whose labels will
// say which kind of image it is.
func SourceKind(ref string) (kind Kind, image bool, err error) {
	k, err := classify(ref)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", ref, err)
	}
	if k == kindImage {
		return 0, true, nil
	}
	return k, false, nil
}
