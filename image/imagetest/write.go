package imagetest

import (
	"archive/tar"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Push writes img or an index (v1.Image or v1.ImageIndex) to a registry
// reference over plain HTTP, with basic auth when user is not empty.
func Push(ref string, img any, user, pass string) error {
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return err
	}
	opts := []remote.Option{remote.WithAuth(authn.Anonymous)}
	if user != "" {
		opts = []remote.Option{remote.WithAuth(&authn.Basic{Username: user, Password: pass})}
	}
	switch x := img.(type) {
	case v1.ImageIndex:
		return remote.WriteIndex(r, x, opts...)
	case v1.Image:
		return remote.Write(r, x, opts...)
	}
	panic("imagetest.Push: want a v1.Image or v1.ImageIndex")
}

// Pull reads what ref names from a registry: an image or an index.
func Pull(ref, user, pass string) (any, error) {
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return nil, err
	}
	opts := []remote.Option{remote.WithAuth(authn.Anonymous)}
	if user != "" {
		opts = []remote.Option{remote.WithAuth(&authn.Basic{Username: user, Password: pass})}
	}
	d, err := remote.Get(r, opts...)
	if err != nil {
		return nil, err
	}
	if d.MediaType.IsIndex() {
		return d.ImageIndex()
	}
	return d.Image()
}

// WriteLayout adds img or an index to the OCI layout at dir (created if
// needed), annotated with refName when it is not empty.
func WriteLayout(dir string, img any, refName string) error {
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return err
		}
	}
	var opts []layout.Option
	if refName != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": refName}))
	}
	switch x := img.(type) {
	case v1.ImageIndex:
		return p.AppendIndex(x, opts...)
	case v1.Image:
		return p.AppendImage(x, opts...)
	}
	panic("imagetest.WriteLayout: want a v1.Image or v1.ImageIndex")
}

// WriteOCIArchive writes img as a tar of an OCI layout.
func WriteOCIArchive(file string, img any, refName string) error {
	dir, err := os.MkdirTemp("", "imagetest-layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := WriteLayout(dir, img, refName); err != nil {
		return err
	}
	return tarDir(file, dir)
}

func tarDir(file, dir string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			_, err = io.Copy(tw, src)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// WriteDockerArchive writes images as a `docker save` tarball, each under
// its tag.
func WriteDockerArchive(file string, images map[string]v1.Image) error {
	refs := map[name.Reference]v1.Image{}
	for tag, img := range images {
		t, err := name.NewTag(tag)
		if err != nil {
			return err
		}
		refs[t] = img
	}
	return tarball.MultiRefWriteToFile(file, refs)
}
