package template

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/safefs"
)

// ImageMap maps bundle image references, exactly as templates write them,
// to local sources, so that templates render with no registry: a bundle
// directory (relative paths are taken from the map file's folder) or an
// oci:/docker-archive: reference. It is a YAML or JSON object:
//
//	quay.io/example/op-bundle:v1.0.0: bundles/op/1.0.0
//	quay.io/example/op-bundle@sha256:...: oci:layouts/op:1.0.1
type ImageMap struct {
	// File is the map file as the user named it.
	File    string
	entries map[string]MapEntry
}

// MapEntry is one reference's local source.
type MapEntry struct {
	// Source is what render reads: a directory path or an oci:,
	// oci-archive: or docker-archive: reference, with relative paths
	// resolved against the map file's folder.
	Source string
	// Written is the value as the map file writes it.
	Written string
	Pos     declcfg.Pos
}

// LoadImageMap reads an image map file (a regular file, or a pipe this
// process was handed), stopping when ctx ends.
func LoadImageMap(ctx context.Context, path string) (*ImageMap, error) {
	data, err := safefs.ReadInput(ctx, path, 0)
	if err != nil {
		return nil, fmt.Errorf("reading image map: %w", err)
	}
	return ParseImageMap(path, data)
}

// ParseImageMap parses an image map; path names it in positions and
// anchors its relative paths.
func ParseImageMap(path string, data []byte) (*ImageMap, error) {
	doc, err := parseTemplate(path, data, "image map")
	if err != nil {
		return nil, err
	}
	m := &ImageMap{File: path, entries: map[string]MapEntry{}}
	base := filepath.Dir(path)
	var ps Problems
	for i := 0; i+1 < len(doc.root.Content); i += 2 {
		k, v := doc.root.Content[i], declcfg.Deref(doc.root.Content[i+1])
		if k.Kind != declcfg.ScalarNode || k.Value == "" {
			ps = append(ps, doc.problem(k, "image map keys must be image references"))
			continue
		}
		if prev, dup := m.entries[k.Value]; dup {
			ps = append(ps, doc.problem(k, "image %q is mapped twice (first at line %d)", k.Value, prev.Pos.Line))
			continue
		}
		src, p := doc.str(v, fmt.Sprintf("the source of %q", k.Value))
		if p != nil {
			ps = append(ps, p)
			continue
		}
		src = strings.TrimSpace(src)
		if src == "" {
			ps = append(ps, doc.problem(v, "image %q maps to nothing: give a bundle directory or an oci:/docker-archive: reference", k.Value))
			continue
		}
		m.entries[k.Value] = MapEntry{Source: resolveSource(base, src), Written: src, Pos: doc.at(k)}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return m, nil
}

// resolveSource anchors a relative path, bare or after a local transport
// prefix, at the map file's folder.
func resolveSource(base, src string) string {
	if t, rest, ok := imageref.CutTransport(src); ok {
		if filepath.IsAbs(rest) {
			return src
		}
		return t + filepath.Join(base, rest)
	}
	if filepath.IsAbs(src) {
		return src
	}
	return filepath.Join(base, src)
}

// Lookup returns the local source of a reference, if the map has one.
func (m *ImageMap) Lookup(ref string) (MapEntry, bool) {
	if m == nil {
		return MapEntry{}, false
	}
	e, ok := m.entries[ref]
	return e, ok
}

// Len is the number of mapped references.
func (m *ImageMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.entries)
}

// Check reports where a mapped source does not exist on disk, naming the map
// file and key. Sources of local transports are checked by their path part
// up to any ":tag" or "@digest".
func (e MapEntry) Check(ref string) error {
	path := e.Source
	if _, rest, ok := imageref.CutTransport(path); ok {
		path = imageref.SplitLocal(rest).Path
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("image map entry %q points to %q, which does not exist", ref, e.Written)
		if !os.IsNotExist(err) {
			msg = fmt.Sprintf("image map entry %q points to %q: %v", ref, e.Written, err)
		}
		return problemAt(e.Pos, msg)
	}
	return nil
}

// LocalRenderer renders a local source (a bundle directory or an
// oci:/docker-archive: reference) and sets the bundles' image to the
// template's reference.
type LocalRenderer func(ctx context.Context, source, image string) ([]declcfg.Bundle, error)

// MappedRenderer resolves references through an image map: a mapped
// reference renders from its local source, keeping the template's reference
// as the bundle image; an unmapped one goes to remote, or is an error when
// remote is nil (offline).
func MappedRenderer(m *ImageMap, local LocalRenderer, remote BundleRenderer) BundleRenderer {
	return func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		if e, ok := m.Lookup(ref); ok {
			if err := e.Check(ref); err != nil {
				return nil, err
			}
			bs, err := local(ctx, e.Source, ref)
			if err != nil {
				return nil, fmt.Errorf("from %s (image map %s): %w", e.Written, e.Pos, err)
			}
			if len(bs) != 1 {
				return nil, problemAt(e.Pos, fmt.Sprintf("image map entry %q points to %q, which holds %s; a bundle reference must name exactly one bundle",
					ref, e.Written, bundleCount(bs)))
			}
			return bs, nil
		}
		if remote == nil {
			where := "no image map was given"
			if m != nil {
				where = fmt.Sprintf("it is not in image map %s", m.File)
			}
			return nil, notObtained(fmt.Sprintf("cannot pull %q while offline: %s", ref, where))
		}
		return remote(ctx, ref)
	}
}

// bundleCount says how many bundles there are, naming a few.
func bundleCount(bs []declcfg.Bundle) string {
	if len(bs) == 0 {
		return "no bundle"
	}
	names := make([]string, 0, 3)
	for _, b := range bs[:min(len(bs), 3)] {
		names = append(names, strconv.Quote(b.Name))
	}
	more := ""
	if len(bs) > 3 {
		more = ", ..."
	}
	return fmt.Sprintf("%d bundles (%s%s)", len(bs), strings.Join(names, ", "), more)
}
