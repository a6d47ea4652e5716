package declcfg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Format is an output encoding of blobs.
type Format string

const (
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// ParseFormat accepts "json" or "yaml".
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatJSON, FormatYAML:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown output format %q: use json or yaml", s)
}

// Write encodes cfg in the given format.
func Write(cfg *DeclarativeConfig, f Format, w io.Writer) error {
	switch f {
	case FormatJSON:
		return WriteJSON(cfg, w)
	case FormatYAML:
		return WriteYAML(cfg, w)
	}
	return fmt.Errorf("unknown output format %q", f)
}

// WriteJSON writes cfg as a stream of 4-space-indented JSON objects, in
// opm render's order.
func WriteJSON(cfg *DeclarativeConfig, w io.Writer) error {
	return writeInOrder(cfg, FormatJSON, w)
}

// WriteYAML writes cfg as "---"-separated YAML documents with sorted keys, in
// opm render's order.
func WriteYAML(cfg *DeclarativeConfig, w io.Writer) error {
	return writeInOrder(cfg, FormatYAML, w)
}

func writeInOrder(cfg *DeclarativeConfig, f Format, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newBlobEncoder(f)
	blobs := placed(cfg, 0, 0)
	slices.SortFunc(blobs, func(a, b placedBlob) int { return a.place.compare(b.place) })
	for _, b := range blobs {
		data, err := enc.encode(b.value)
		if err != nil {
			return err
		}
		if _, err := bw.Write(data); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// blobEncoder encodes one blob at a time as opm's writers do: JSON indented
// by four spaces, or a YAML document after a "---" line (keys sorted, as
// converting from JSON sorts them).
type blobEncoder struct {
	format Format
	buf    bytes.Buffer
	enc    *json.Encoder
	// compact holds a bundle encoded by appendBundleJSON, indented the
	// JSON blob indented (appendIndented).
	compact, indented []byte
}

func newBlobEncoder(f Format) *blobEncoder {
	e := &blobEncoder{format: f}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode returns the blob's bytes; they are valid until the next call.
func (e *blobEncoder) encode(v any) ([]byte, error) {
	e.buf.Reset()
	if b, isBundle := v.(*Bundle); isBundle && e.format != FormatYAML {
		if compact, ok := appendBundleJSON(e.compact[:0], b); ok {
			e.compact = compact
			e.indented = appendIndented(e.indented[:0], compact)
			return e.indented, nil
		}
	}
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	if e.format != FormatYAML {
		e.indented = appendIndented(e.indented[:0], e.buf.Bytes())
		return e.indented, nil
	}
	y, err := yaml.JSONToYAML(e.buf.Bytes())
	if err != nil {
		return nil, err
	}
	e.buf.Reset()
	e.buf.WriteString("---\n")
	e.buf.Write(y)
	return e.buf.Bytes(), nil
}

// place is where a blob goes in opm render's order: grouped by package
// (packages sorted by name); per package the olm.package blobs in load
// order, channels by name, bundles by name, other schemas by schema,
// deprecations in load order (ties in load order); then the blobs of other
// schemas that name no package, in load order.
type place struct {
	loose bool // a blob of another schema without a package: after every package
	pkg   string
	rank  uint8 // rankPackage ... rankDeprecation
	key   string
	// src and seq are the load order: the source (Spool.Add's src) and
	// the blob's rank in it.
	src, seq int
}

const (
	rankPackage uint8 = iota
	rankChannel
	rankBundle
	rankOther
	rankDeprecation
)

func (a place) compare(b place) int {
	if a.loose != b.loose {
		if a.loose {
			return 1
		}
		return -1
	}
	if c := strings.Compare(a.pkg, b.pkg); c != 0 {
		return c
	}
	if a.rank != b.rank {
		return int(a.rank) - int(b.rank)
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if a.src != b.src {
		return a.src - b.src
	}
	return a.seq - b.seq
}

type placedBlob struct {
	place place
	value any
}

// placed lists cfg's blobs with their places, numbering them from seq in
// load order within each kind (the order between kinds never matters: their
// ranks differ).
func placed(cfg *DeclarativeConfig, src, seq int) []placedBlob {
	out := make([]placedBlob, 0, len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others))
	add := func(p place, v any) {
		p.src, p.seq = src, seq
		seq++
		out = append(out, placedBlob{p, v})
	}
	for i := range cfg.Packages {
		add(place{pkg: cfg.Packages[i].Name, rank: rankPackage}, &cfg.Packages[i])
	}
	for i := range cfg.Channels {
		add(place{pkg: cfg.Channels[i].Package, rank: rankChannel, key: cfg.Channels[i].Name}, &cfg.Channels[i])
	}
	for i := range cfg.Bundles {
		add(place{pkg: cfg.Bundles[i].Package, rank: rankBundle, key: cfg.Bundles[i].Name}, &cfg.Bundles[i])
	}
	for i := range cfg.Others {
		o := &cfg.Others[i]
		if o.Package == "" {
			add(place{loose: true}, o) // in load order, whatever the schema
			continue
		}
		add(place{pkg: o.Package, rank: rankOther, key: o.Schema}, o)
	}
	for i := range cfg.Deprecations {
		add(place{pkg: cfg.Deprecations[i].Package, rank: rankDeprecation}, &cfg.Deprecations[i])
	}
	return out
}

// PackageNames returns the sorted names of every package cfg mentions.
func (cfg *DeclarativeConfig) PackageNames() []string {
	set := map[string]bool{}
	for _, p := range cfg.Packages {
		set[p.Name] = true
	}
	for _, c := range cfg.Channels {
		set[c.Package] = true
	}
	for _, b := range cfg.Bundles {
		set[b.Package] = true
	}
	for _, d := range cfg.Deprecations {
		set[d.Package] = true
	}
	for _, o := range cfg.Others {
		if o.Package != "" {
			set[o.Package] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
