// Package declcfg is the file-based catalog (FBC) file format, and only
// that: the olm.package, olm.channel, olm.bundle and olm.deprecations blobs,
// any other schema kept verbatim, typed property values, walking trees,
// parsing and decoding with source positions, and writing in opm's shape and
// order. What catalogs mean (model) and what is done with them (compose,
// validate, ...) lives above it; it imports nothing of fbc but internal.
package declcfg

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Schema names of the blobs this package models.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

// SchemaLifecycle is the schema of the OpenShift lifecycle blob (a
// package's minor versions, their support phases and the platform releases
// each runs on). It is not modeled here: it loads as a Meta, which validate
// checks and the upgrade-graph page reads.
const SchemaLifecycle = "io.openshift.operators.lifecycles.v1alpha1"

// Pos is a position in a source file. Line and Col are 1-based; zero means
// unknown. File is the path as the user named it (relative paths stay
// relative) or "-" for standard input.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"column,omitempty"`
}

// String renders the position as file:line:col, dropping unknown parts.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// IsValid reports whether the position names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// Prefix puts the position before msg ("file:line:col: msg"), or returns msg
// when the position names no file: how an error with a position reads.
func (p Pos) Prefix(msg string) string {
	if s := p.String(); s != "" {
		return s + ": " + msg
	}
	return msg
}

// Stdin is the path that names standard input.
const Stdin = "-"

// ShowPath names a path for a message: "standard input" for "-", other
// paths as they are.
func ShowPath(p string) string {
	if p == Stdin {
		return "standard input"
	}
	return p
}

// ShowPaths names paths for a message (ShowPath), joined by sep.
func ShowPaths(paths []string, sep string) string {
	shown := make([]string, len(paths))
	for i, p := range paths {
		shown[i] = ShowPath(p)
	}
	return strings.Join(shown, sep)
}

// DeclarativeConfig is a whole catalog, or any part of one.
type DeclarativeConfig struct {
	Packages     []Package
	Channels     []Channel
	Bundles      []Bundle
	Deprecations []Deprecation
	Others       []Meta
}

// Package is an olm.package blob.
type Package struct {
	Schema         string     `json:"schema"`
	Name           string     `json:"name"`
	DefaultChannel string     `json:"defaultChannel"`
	Icon           *Icon      `json:"icon,omitempty"`
	Description    string     `json:"description,omitempty"`
	Properties     []Property `json:"properties,omitempty"`

	Pos Pos `json:"-"`
	// DefaultChannelPos is where the defaultChannel value is, zero when
	// the blob has none.
	DefaultChannelPos Pos `json:"-"`
}

// Icon is a package's icon.
type Icon struct {
	Data      []byte `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// Channel is an olm.channel blob: an ordered list of entries whose edges form
// the channel's upgrade graph.
type Channel struct {
	Schema     string         `json:"schema"`
	Name       string         `json:"name"`
	Package    string         `json:"package"`
	Entries    []ChannelEntry `json:"entries"`
	Properties []Property     `json:"properties,omitempty"`

	Pos Pos `json:"-"`
}

// ChannelEntry is one bundle's place in a channel with its incoming edges.
type ChannelEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`

	Pos Pos `json:"-"`
	// ReplacesPos and SkipRangePos are where the replaces and skipRange
	// values are, zero when the entry has none.
	ReplacesPos  Pos `json:"-"`
	SkipRangePos Pos `json:"-"`
}

// Bundle is an olm.bundle blob.
type Bundle struct {
	Schema        string         `json:"schema"`
	Name          string         `json:"name,omitempty"`
	Package       string         `json:"package,omitempty"`
	Image         string         `json:"image"`
	Properties    []Property     `json:"properties,omitempty"`
	RelatedImages []RelatedImage `json:"relatedImages,omitempty"`

	Pos Pos `json:"-"`
}

// RelatedImage is an image a bundle needs at run time.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`

	Pos Pos `json:"-"`
}

// Deprecation is an olm.deprecations blob: the deprecated package, channels
// and bundles of one package.
type Deprecation struct {
	Schema  string             `json:"schema"`
	Package string             `json:"package"`
	Entries []DeprecationEntry `json:"entries"`

	Pos Pos `json:"-"`
}

// DeprecationEntry deprecates one package, channel or bundle.
type DeprecationEntry struct {
	Reference PackageScopedReference `json:"reference"`
	Message   string                 `json:"message"`

	Pos Pos `json:"-"`
	// ReferencePos is where the reference is, and NamePos where its name
	// is; zero when absent. They live here, not in the reference, so that
	// references compare by value.
	ReferencePos Pos `json:"-"`
	NamePos      Pos `json:"-"`
}

// PackageScopedReference names a package (no name), a channel or a bundle of
// the deprecation's package.
type PackageScopedReference struct {
	Schema string `json:"schema"`
	Name   string `json:"name,omitempty"`
}

// Meta is a blob of any schema, kept verbatim. Blob is its JSON encoding.
type Meta struct {
	Schema  string
	Package string
	Name    string
	Blob    json.RawMessage

	Pos Pos
}

// MarshalJSON writes the verbatim blob.
func (m Meta) MarshalJSON() ([]byte, error) { return m.Blob, nil }

// Merge appends other's blobs to cfg. It does not de-duplicate.
func (cfg *DeclarativeConfig) Merge(other *DeclarativeConfig) {
	if other == nil {
		return
	}
	cfg.Packages = append(cfg.Packages, other.Packages...)
	cfg.Channels = append(cfg.Channels, other.Channels...)
	cfg.Bundles = append(cfg.Bundles, other.Bundles...)
	cfg.Deprecations = append(cfg.Deprecations, other.Deprecations...)
	cfg.Others = append(cfg.Others, other.Others...)
}

// IsEmpty reports whether cfg holds no blobs.
func (cfg *DeclarativeConfig) IsEmpty() bool {
	return len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others) == 0
}
