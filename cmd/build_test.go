package cmd

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for the build tests:
//
//	image-inspect oci:DIR|docker-archive:FILE:REF config|manifest|files
//
// prints an image's config or manifest as indented JSON, or the entries of
// its top layer as "mode uid:gid mtime name" lines, to stdout.
func init() {
	scriptCmds["image-inspect"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: image-inspect oci:DIR|docker-archive:FILE:REF config|manifest|files")
		}
		img, err := inspectOpen(ts, args[0])
		ts.Check(err)
		switch args[1] {
		case "config":
			cf, err := img.ConfigFile()
			ts.Check(err)
			ts.Check(printJSON(ts, cf))
		case "manifest":
			m, err := img.Manifest()
			ts.Check(err)
			ts.Check(printJSON(ts, m))
		case "files":
			layers, err := img.Layers()
			ts.Check(err)
			if len(layers) == 0 {
				ts.Fatalf("image has no layers")
			}
			rc, err := layers[len(layers)-1].Uncompressed()
			ts.Check(err)
			defer rc.Close()
			tr := tar.NewReader(rc)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				ts.Check(err)
				fmt.Fprintf(ts.Stdout(), "%c %04o %d:%d %d %s\n", h.Typeflag, h.Mode, h.Uid, h.Gid, h.ModTime.Unix(), h.Name)
			}
		default:
			ts.Fatalf("image-inspect: unknown %q", args[1])
		}
	}
}

func inspectOpen(ts *testscript.TestScript, ref string) (v1.Image, error) {
	const ociPrefix, archivePrefix = "oci:", "docker-archive:"
	switch {
	case len(ref) > len(ociPrefix) && ref[:len(ociPrefix)] == ociPrefix:
		idx, err := layout.ImageIndexFromPath(ts.MkAbs(ref[len(ociPrefix):]))
		if err != nil {
			return nil, err
		}
		m, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		if len(m.Manifests) != 1 {
			return nil, fmt.Errorf("layout has %d images, want 1", len(m.Manifests))
		}
		return idx.Image(m.Manifests[0].Digest)
	case len(ref) > len(archivePrefix) && ref[:len(archivePrefix)] == archivePrefix:
		rest := ref[len(archivePrefix):]
		for i := 0; i < len(rest); i++ {
			if rest[i] == ':' {
				tag, err := name.NewTag(rest[i+1:])
				if err != nil {
					return nil, err
				}
				return tarball.ImageFromPath(ts.MkAbs(rest[:i]), &tag)
			}
		}
		return tarball.ImageFromPath(ts.MkAbs(rest), nil)
	}
	return nil, fmt.Errorf("image-inspect: %q is not oci:DIR or docker-archive:FILE", ref)
}

func printJSON(ts *testscript.TestScript, v any) error {
	enc := json.NewEncoder(ts.Stdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
