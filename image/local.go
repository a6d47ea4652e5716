package image

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/fbc-project/fbc/internal/safefs"
)

// annotationRefName is how an OCI layout's index names its images.
const annotationRefName = "org.opencontainers.image.ref.name"

// layoutFiles opens files of an OCI image layout by slash-separated name
// ("index.json", "blobs/sha256/HEX"): from a directory or inside a tar.
type layoutFiles interface {
	open(name string) (io.ReadCloser, error)
	where(name string) string
}

// layoutStore is the blobStore of an OCI image layout.
type layoutStore struct{ files layoutFiles }

func blobName(d v1.Hash) string { return "blobs/" + d.Algorithm + "/" + d.Hex }

func (s layoutStore) manifest(ctx context.Context, d v1.Hash) ([]byte, error) {
	rc, err := s.files.open(blobName(d))
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", d, err)
	}
	return readVerified(rc, d, -1, maxManifestSize, s.files.where(blobName(d)))
}

func (s layoutStore) blob(ctx context.Context, desc v1.Descriptor) (io.ReadCloser, error) {
	rc, err := s.files.open(blobName(desc.Digest))
	if err != nil {
		return nil, err
	}
	return verified(rc, desc.Digest, desc.Size, s.files.where(blobName(desc.Digest)))
}

// dirFiles is a layout directory.
type dirFiles string

func (d dirFiles) open(name string) (io.ReadCloser, error) {
	// A blob may be a symbolic link to a FIFO: opening must not wait.
	f, err := safefs.Open(filepath.Join(string(d), filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: missing from the layout", d.where(name))
	}
	return f, err
}

func (d dirFiles) where(name string) string {
	return filepath.Join(string(d), filepath.FromSlash(name))
}

// tarFiles is a layout inside an uncompressed tar file. The tar is scanned
// once for where each regular file's bytes are; blobs are then read in place.
type tarFiles struct {
	path    string
	entries map[string]tarEntry
}

type tarEntry struct{ offset, size int64 }

func scanTar(file string) (*tarFiles, error) {
	f, err := openArchive(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &tarFiles{path: file, entries: map[string]tarEntry{}}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable tar archive: %v", file, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		// archive/tar reads exactly the header blocks, so the file offset
		// is where this entry's content starts.
		off, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, err
		}
		t.entries[path.Clean(strings.TrimPrefix(hdr.Name, "/"))] = tarEntry{offset: off, size: hdr.Size}
	}
	return t, nil
}

// openArchive opens an archive file, refusing a compressed one: archives
// are read in place.
func openArchive(file string) (*os.File, error) {
	f, err := safefs.Open(file)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if compressionOf(head[:n]) != "" {
		f.Close()
		return nil, fmt.Errorf("%s is compressed: decompress it first (gunzip, unzstd), an archive is read in place", file)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (t *tarFiles) open(name string) (io.ReadCloser, error) {
	e, ok := t.entries[name]
	if !ok {
		return nil, fmt.Errorf("%s: missing from the archive", t.where(name))
	}
	f, err := safefs.Open(t.path)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, e.offset, e.size), f}, nil
}

func (t *tarFiles) where(name string) string { return t.path + ":" + name }

func (c *Client) openLayout(ctx context.Context, r Reference) (*Image, error) {
	st, err := os.Stat(r.Path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (an OCI layout archive is oci-archive:%s)", r.Path, r.Path)
	}
	return c.openLayoutFiles(ctx, r, dirFiles(r.Path))
}

func (c *Client) openOCIArchive(ctx context.Context, r Reference) (*Image, error) {
	t, err := scanTar(r.Path)
	if err != nil {
		return nil, err
	}
	return c.openLayoutFiles(ctx, r, t)
}

// openLayoutFiles picks the image r selects from a layout's index.json: by
// digest, by ref.name annotation, or the only entry.
func (c *Client) openLayoutFiles(ctx context.Context, r Reference, files layoutFiles) (*Image, error) {
	rc, err := files.open("index.json")
	if err != nil {
		return nil, fmt.Errorf("not an OCI image layout: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(rc, maxManifestSize+1))
	rc.Close()
	if err != nil {
		return nil, err
	}
	var index v1.IndexManifest
	if err := json.Unmarshal(data, &index); err != nil {
		return nil, fmt.Errorf("%s: %v", files.where("index.json"), err)
	}
	var names []string
	for _, m := range index.Manifests {
		if n := m.Annotations[annotationRefName]; n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	store := layoutStore{files: files}
	var chosen *v1.Descriptor
	switch {
	case r.Digest != "":
		d, err := v1.NewHash(r.Digest)
		if err != nil {
			return nil, err
		}
		for i, m := range index.Manifests {
			if m.Digest == d {
				chosen = &index.Manifests[i]
			}
		}
		if chosen == nil {
			// Any manifest blob of the layout will do, e.g. one platform's
			// image under an index.
			chosen = &v1.Descriptor{Digest: d}
		}
	case r.Tag != "":
		for i, m := range index.Manifests {
			if m.Annotations[annotationRefName] == r.Tag {
				chosen = &index.Manifests[i]
			}
		}
		if chosen == nil {
			return nil, fmt.Errorf("no image named %q in the layout (names: %s)", r.Tag, listOrNone(names))
		}
	default:
		switch len(index.Manifests) {
		case 0:
			return nil, errors.New("the layout's index.json lists no images")
		case 1:
			chosen = &index.Manifests[0]
		default:
			return nil, fmt.Errorf("the layout holds %d images: add :NAME or @DIGEST to choose one (names: %s)", len(index.Manifests), listOrNone(names))
		}
	}
	raw, err := store.manifest(ctx, chosen.Digest)
	if err != nil {
		return nil, err
	}
	return c.resolveImage(ctx, store, chosen.Digest, raw, chosen.MediaType)
}

// openDockerArchive reads a `docker save` tarball with go-containerregistry's
// tarball package. Its layers are read uncompressed and checked against the
// config's diff IDs.
func (c *Client) openDockerArchive(ctx context.Context, r Reference) (*Image, error) {
	f, err := openArchive(r.Path)
	if err != nil {
		return nil, err
	}
	f.Close()
	opener := func() (io.ReadCloser, error) { return safefs.Open(r.Path) }
	m, err := tarball.LoadManifest(opener)
	if err != nil {
		return nil, fmt.Errorf("%s: not a docker archive: %v", r.Path, err)
	}
	var tags []string
	for _, d := range m {
		tags = append(tags, d.RepoTags...)
	}
	sort.Strings(tags)
	var tag *name.Tag
	switch {
	case r.Tag != "":
		t, err := name.NewTag(r.Tag)
		if err != nil {
			return nil, err
		}
		found := false
		for _, d := range m {
			for _, rt := range d.RepoTags {
				if have, err := name.NewTag(rt); err == nil && have.Name() == t.Name() {
					found = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("no image %s in the archive (it has: %s)", r.Tag, listOrNone(tags))
		}
		tag = &t
	case len(m) == 0:
		return nil, errors.New("the archive holds no images")
	case len(m) > 1:
		return nil, fmt.Errorf("the archive holds %d images: add :REPO:TAG to choose one (it has: %s)", len(m), listOrNone(tags))
	}
	timg, err := tarball.Image(opener, tag)
	if err != nil {
		return nil, err
	}
	cfg, err := timg.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	id, err := timg.ConfigName()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	ls, err := timg.Layers()
	if err != nil {
		return nil, err
	}
	if len(ls) != len(cfg.RootFS.DiffIDs) {
		return nil, fmt.Errorf("the archive lists %d layers but its config %d diff IDs", len(ls), len(cfg.RootFS.DiffIDs))
	}
	img := &Image{digest: id, config: cfg}
	for i, l := range ls {
		l, diffID := l, cfg.RootFS.DiffIDs[i]
		img.layers = append(img.layers, layer{
			digest:       diffID,
			size:         -1,
			uncompressed: true,
			open: func(ctx context.Context) (io.ReadCloser, error) {
				rc, err := l.Uncompressed()
				if err != nil {
					return nil, err
				}
				return verified(rc, diffID, -1, r.Path)
			},
		})
	}
	return img, nil
}
