package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"
)

// Limits bound what ReadFiles keeps in memory. Zero fields take the value
// of DefaultLimits.
type Limits struct {
	// MaxFileSize is the largest single file read.
	MaxFileSize int64
	// MaxTotalSize bounds the bytes of all files read, over all layers.
	MaxTotalSize int64
	// MaxEntries bounds the number of entries (files, directories, links)
	// read under the requested paths, over all layers.
	MaxEntries int
}

// DefaultLimits fit the largest real catalogs (a catalog image's /configs
// runs to hundreds of megabytes) with room to spare, and stop a hostile
// image long before it exhausts memory.
var DefaultLimits = Limits{MaxFileSize: 256 << 20, MaxTotalSize: 2 << 30, MaxEntries: 500_000}

func (l Limits) withDefaults() Limits {
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = DefaultLimits.MaxFileSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = DefaultLimits.MaxTotalSize
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	return l
}

// ContentError is a problem with what an image contains, as opposed to with
// reaching it: an unsafe path, a link that leads out of the files read, an
// entry over a limit, an unreadable layer.
type ContentError struct {
	Image string // the reference
	Layer string // the layer's digest
	Entry string // the tar entry, when one is to blame
	Msg   string
}

func (e *ContentError) Error() string {
	s := "image " + e.Image
	if e.Layer != "" {
		s += ": layer " + e.Layer
	}
	if e.Entry != "" {
		s += fmt.Sprintf(": entry %q", e.Entry)
	}
	return s + ": " + e.Msg
}

// ReadFiles reads the files of the image under the given paths (such as
// "manifests/", "/configs"; "." for everything) into an in-memory fs.FS whose
// paths are relative to the image root ("configs/pkg/catalog.json").
//
// Layers are streamed and never written to disk. They are applied as a
// container runtime would: upper layers win, whiteouts (.wh.NAME) delete and
// opaque markers (.wh..wh..opq) hide what lower layers put in a directory.
// Entries with absolute names or ".." anywhere in any layer are errors, as
// are devices and fifos under the requested paths. Hard links must point at
// a file read earlier in the same layer; symbolic links must lead, inside
// the image, to a regular file among the files read, and appear as copies of
// it; anything else is an error. Every layer is read to its end and checked
// against its digest before its content is used.
func (img *Image) ReadFiles(ctx context.Context, prefixes []string, limits Limits) (fs.FS, error) {
	limits = limits.withDefaults()
	want, err := cleanPrefixes(prefixes)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", img.ref.raw, err)
	}
	ov := &overlay{nodes: map[string]*node{}, hidden: map[string]bool{}, opaque: map[string]bool{}}
	budget := &budget{limits: limits}
	// Retry warnings name the image; the blob URL they quote names the layer.
	ctx = withOperation(ctx, "reading "+img.ref.raw)
	for i := len(img.layers) - 1; i >= 0; i-- {
		l := img.layers[i]
		b := *budget
		st, err := img.readLayer(ctx, l, want, &b)
		if img.client.refetch(err) {
			b = *budget
			st, err = img.readLayer(ctx, l, want, &b)
		}
		*budget = b
		if err != nil {
			var ce *ContentError
			if errors.As(err, &ce) {
				return nil, err
			}
			return nil, fmt.Errorf("image %s: layer %s: %w", img.ref.raw, l.digest, err)
		}
		ov.merge(st)
	}
	if err := ov.resolveLinks(img.ref.raw); err != nil {
		return nil, err
	}
	return newMemFS(ov.nodes), nil
}

// cleanPrefixes turns "/configs", "manifests/" into "configs", "manifests".
func cleanPrefixes(prefixes []string) ([]string, error) {
	if len(prefixes) == 0 {
		return nil, errors.New("no paths to read")
	}
	var out []string
	for _, p := range prefixes {
		c := path.Clean("/" + p)[1:]
		if c == "" {
			c = "."
		}
		for _, el := range strings.Split(p, "/") {
			if el == ".." {
				return nil, fmt.Errorf("path %q: \"..\" not allowed", p)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// under reports whether p is one of the prefixes or inside one.
func under(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if pre == "." || p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// relevant reports whether a whiteout of p matters for the prefixes: p is
// under one, or is a directory containing one.
func relevant(p string, prefixes []string) bool {
	if p == "." || under(p, prefixes) {
		return true
	}
	for _, pre := range prefixes {
		if strings.HasPrefix(pre, p+"/") {
			return true
		}
	}
	return false
}

type nodeKind int

const (
	kindDir nodeKind = iota
	kindFile
	kindSymlink
)

type node struct {
	kind   nodeKind
	mode   fs.FileMode // permission bits
	data   []byte
	target string // symlink target as written
	layer  string // digest of the layer it came from, for errors
}

// stage is what one layer contributes, before upper layers are applied.
type stage struct {
	nodes     map[string]*node
	order     []string // tar order, for deterministic merging
	whiteouts []string
	opaque    []string
}

type budget struct {
	limits  Limits
	entries int
	bytes   int64
}

// safeName checks and cleans a tar entry name: no absolute names, no "..".
func safeName(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", errors.New("absolute path in a layer")
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return "", errors.New("path traversal (\"..\") in a layer")
		}
	}
	return path.Clean(name), nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// compressionOf names the compression a blob's first bytes show, as the
// OCI layer media type: gzip, zstd, or "" for none.
func compressionOf(head []byte) types.MediaType {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return types.OCILayer
	case bytes.HasPrefix(head, zstdMagic):
		return types.OCILayerZStd
	}
	return ""
}

// decompress reads r decompressed as its first bytes say (gzip, zstd or
// none, which compressionOf names); done releases the decompressor.
func decompress(r io.Reader) (_ io.Reader, mt types.MediaType, done func(), _ error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	switch mt = compressionOf(head); mt {
	case types.OCILayer:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, mt, nil, err
		}
		return zr, mt, func() { zr.Close() }, nil
	case types.OCILayerZStd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, mt, nil, err
		}
		return zr, mt, zr.Close, nil
	}
	return br, mt, func() {}, nil
}

// readLayer reads one layer's entries under want. Whatever goes wrong, the
// rest of the blob is read and checked first: if its digest is wrong, that
// is the error to report (damaged bytes make misleading tar errors).
func (img *Image) readLayer(ctx context.Context, l layer, want []string, b *budget) (*stage, error) {
	rc, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	st, err := img.readEntries(ctx, l, rc, want, b)
	// Drain what follows the tar end marker too: the digest is checked only
	// once the whole blob is read.
	if _, derr := io.Copy(io.Discard, rc); derr != nil {
		var be *BlobError
		if err == nil || errors.As(derr, &be) {
			return nil, derr
		}
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (img *Image) readEntries(ctx context.Context, l layer, rc io.Reader, want []string, b *budget) (*stage, error) {
	var err error
	fail := func(entry, format string, args ...any) error {
		return &ContentError{Image: img.ref.raw, Layer: l.digest.String(), Entry: entry, Msg: fmt.Sprintf(format, args...)}
	}
	var r io.Reader = rc
	closeDec := func() {}
	if !l.uncompressed {
		if r, _, closeDec, err = decompress(rc); err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
	}
	defer closeDec()
	st := &stage{nodes: map[string]*node{}}
	tr := tar.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the layer's tar stream: %w", err)
		}
		p, err := safeName(hdr.Name)
		if err != nil {
			return nil, fail(hdr.Name, "%v", err)
		}
		// Every entry kept, whiteouts included, counts against MaxEntries:
		// a layer of millions of whiteouts must not fill memory either.
		count := func() error {
			if b.entries++; b.entries > b.limits.MaxEntries {
				return fail(hdr.Name, "more than %d entries under the paths read", b.limits.MaxEntries)
			}
			return nil
		}
		dir, base := path.Dir(p), path.Base(p)
		switch {
		case p == ".":
			continue
		case base == ".wh..wh..opq":
			if relevant(dir, want) {
				if err := count(); err != nil {
					return nil, err
				}
				st.opaque = append(st.opaque, dir)
			}
			continue
		case strings.HasPrefix(base, ".wh."):
			if target := path.Join(dir, strings.TrimPrefix(base, ".wh.")); relevant(target, want) {
				if err := count(); err != nil {
					return nil, err
				}
				st.whiteouts = append(st.whiteouts, target)
			}
			continue
		case !under(p, want):
			continue
		}
		if err := count(); err != nil {
			return nil, err
		}
		n := &node{mode: hdr.FileInfo().Mode().Perm(), layer: l.digest.String()}
		switch hdr.Typeflag {
		case tar.TypeDir:
			n.kind = kindDir
		case tar.TypeReg: // archive/tar reports old TypeRegA entries as TypeReg (or TypeDir)
			if hdr.Size > b.limits.MaxFileSize {
				return nil, fail(hdr.Name, "file of %d bytes is over the %d-byte limit", hdr.Size, b.limits.MaxFileSize)
			}
			if b.bytes+hdr.Size > b.limits.MaxTotalSize {
				return nil, fail(hdr.Name, "files read exceed the %d-byte total limit", b.limits.MaxTotalSize)
			}
			n.kind, n.data = kindFile, make([]byte, hdr.Size)
			if _, err := io.ReadFull(tr, n.data); err != nil {
				return nil, fmt.Errorf("reading %s: %w", hdr.Name, err)
			}
			b.bytes += hdr.Size
		case tar.TypeSymlink:
			if hdr.Linkname == "" {
				return nil, fail(hdr.Name, "symbolic link with an empty target")
			}
			n.kind, n.target = kindSymlink, hdr.Linkname
		case tar.TypeLink:
			t, err := safeName(hdr.Linkname)
			if err != nil {
				return nil, fail(hdr.Name, "hard link to %q: %v", hdr.Linkname, err)
			}
			target, ok := st.nodes[t]
			if !ok || target.kind != kindFile {
				return nil, fail(hdr.Name, "hard link to %q, which is not a file read earlier in this layer (only links within the paths read are followed)", hdr.Linkname)
			}
			n.kind, n.data, n.mode = kindFile, target.data, target.mode
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return nil, fail(hdr.Name, "device or fifo where files are expected")
		default:
			return nil, fail(hdr.Name, "unsupported tar entry type %q", hdr.Typeflag)
		}
		if _, dup := st.nodes[p]; !dup {
			st.order = append(st.order, p)
		}
		st.nodes[p] = n
	}
	return st, nil
}

// overlay is the file tree built from the top layer down.
type overlay struct {
	nodes  map[string]*node
	hidden map[string]bool // deleted by a whiteout in a layer above
	opaque map[string]bool // directories whose lower content is hidden
}

// shadowed reports whether an entry at p from a lower layer is hidden by the
// layers already applied.
func (ov *overlay) shadowed(p string) bool {
	if _, ok := ov.nodes[p]; ok || ov.hidden[p] {
		return true
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		if ov.hidden[d] || ov.opaque[d] {
			return true
		}
		if n, ok := ov.nodes[d]; ok && n.kind != kindDir {
			return true // a file or link above replaced the directory
		}
		if d == "." {
			return false
		}
	}
}

func (ov *overlay) merge(st *stage) {
	for _, p := range st.order {
		if !ov.shadowed(p) {
			ov.nodes[p] = st.nodes[p]
		}
	}
	for _, p := range st.whiteouts {
		ov.hidden[p] = true
	}
	for _, d := range st.opaque {
		ov.opaque[d] = true
	}
}

// resolveLinks replaces each symbolic link by the regular file it leads to,
// or fails naming the link.
func (ov *overlay) resolveLinks(ref string) error {
	for _, p := range sortedKeys(ov.nodes) {
		n := ov.nodes[p]
		if n.kind != kindSymlink {
			continue
		}
		fail := func(format string, args ...any) error {
			return &ContentError{Image: ref, Layer: n.layer, Entry: p,
				Msg: fmt.Sprintf("symbolic link to %q ", n.target) + fmt.Sprintf(format, args...)}
		}
		cur, hops := p, 0
		for {
			link := ov.nodes[cur]
			var next string
			if strings.HasPrefix(link.target, "/") {
				next = path.Clean(link.target)[1:]
			} else {
				next = path.Join(path.Dir(cur), link.target)
			}
			if next == ".." || strings.HasPrefix(next, "../") {
				return fail("leads out of the image")
			}
			if next == "" {
				next = "."
			}
			t, ok := ov.nodes[next]
			if !ok && ov.hasChildren(next) {
				t, ok = &node{kind: kindDir}, true
			}
			switch {
			case !ok:
				return fail("leads to %s, which is not among the files read", next)
			case t.kind == kindDir:
				return fail("leads to a directory (%s); only links to files are followed", next)
			case t.kind == kindFile:
				ov.nodes[p] = &node{kind: kindFile, mode: t.mode, data: t.data, layer: n.layer}
			}
			if t.kind == kindFile {
				break
			}
			if hops++; hops > 40 {
				return fail("is part of a loop")
			}
			cur = next
		}
	}
	return nil
}

// hasChildren reports whether p is a directory implied by entries below it.
func (ov *overlay) hasChildren(p string) bool {
	for q := range ov.nodes {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}
