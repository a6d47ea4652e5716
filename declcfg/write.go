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
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if err := eachInOrder(cfg, enc.Encode); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteYAML writes cfg as "---"-separated YAML documents with sorted keys, in
// opm render's order.
func WriteYAML(cfg *DeclarativeConfig, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := eachInOrder(cfg, func(v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(buf.Bytes())
		if err != nil {
			return err
		}
		if _, err := bw.WriteString("---\n"); err != nil {
			return err
		}
		_, err = bw.Write(y)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// eachInOrder visits blobs grouped by package (packages sorted by name):
// olm.package blobs in load order, channels by name, bundles by name, other
// schemas stably by schema, deprecations in load order; then the blobs of no
// package, in load order.
func eachInOrder(cfg *DeclarativeConfig, fn func(any) error) error {
	type group struct {
		pkgs  []*Package
		chs   []*Channel
		bs    []*Bundle
		deps  []*Deprecation
		other []*Meta
	}
	groups := map[string]*group{}
	get := func(name string) *group {
		g := groups[name]
		if g == nil {
			g = &group{}
			groups[name] = g
		}
		return g
	}
	for i := range cfg.Packages {
		g := get(cfg.Packages[i].Name)
		g.pkgs = append(g.pkgs, &cfg.Packages[i])
	}
	for i := range cfg.Channels {
		g := get(cfg.Channels[i].Package)
		g.chs = append(g.chs, &cfg.Channels[i])
	}
	for i := range cfg.Bundles {
		g := get(cfg.Bundles[i].Package)
		g.bs = append(g.bs, &cfg.Bundles[i])
	}
	for i := range cfg.Deprecations {
		g := get(cfg.Deprecations[i].Package)
		g.deps = append(g.deps, &cfg.Deprecations[i])
	}
	var loose []*Meta
	for i := range cfg.Others {
		if cfg.Others[i].Package == "" {
			loose = append(loose, &cfg.Others[i])
			continue
		}
		g := get(cfg.Others[i].Package)
		g.other = append(g.other, &cfg.Others[i])
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		g := groups[n]
		slices.SortStableFunc(g.chs, func(a, b *Channel) int { return strings.Compare(a.Name, b.Name) })
		slices.SortStableFunc(g.bs, func(a, b *Bundle) int { return strings.Compare(a.Name, b.Name) })
		slices.SortStableFunc(g.other, func(a, b *Meta) int { return strings.Compare(a.Schema, b.Schema) })
		for _, v := range g.pkgs {
			if err := fn(v); err != nil {
				return err
			}
		}
		for _, v := range g.chs {
			if err := fn(v); err != nil {
				return err
			}
		}
		for _, v := range g.bs {
			if err := fn(v); err != nil {
				return err
			}
		}
		for _, v := range g.other {
			if err := fn(v); err != nil {
				return err
			}
		}
		for _, v := range g.deps {
			if err := fn(v); err != nil {
				return err
			}
		}
	}
	for _, v := range loose {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
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
