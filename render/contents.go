package render

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
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
	// Warnings are about files OLM ignores (whatever Options.Warn says).
	Warnings []string
}

// ReadBundles reads bundle directories and bundle images, Options.Jobs at a
// time, in order. Each source's outcome is its own: a bundle that cannot be
// read does not stop the others. Its warnings are its own too; Options.Warn
// gets none.
func (r *Renderer) ReadBundles(ctx context.Context, refs []string) []BundleRead {
	c := &call{Renderer: r}
	out := make([]BundleRead, len(refs))
	srcs := make([]source, len(refs))
	for i, ref := range refs {
		var mu sync.Mutex
		srcs[i] = source{ref: ref, bundle: true, contents: true, warn: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			out[i].Warnings = append(out[i].Warnings, msg)
		}}
	}
	for i, res := range c.run(ctx, srcs, false, nil) {
		switch {
		case res.err != nil:
			out[i].Err = res.err
		case len(res.bundles) != 1:
			out[i].Err = &Error{Source: refs[i], Err: errors.New("not a bundle")}
		default:
			out[i].Contents = contentsOf(refs[i], res.bundles[0])
		}
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
