package graph

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/textout"
)

// PictureOptions select what `fbc graph` draws. They follow `opm alpha
// render-graph`: a package filter, a minimum edge, and OLM classic's
// view of skipped entries.
type PictureOptions struct {
	Package string
	// Channel limits the picture to channels of this name.
	Channel string
	// MinimumEdge names the oldest bundle of interest: only edges from it
	// or newer bundles are drawn, and only its package.
	MinimumEdge string
	// V0Semantics marks the entries classic OLM never offers (skipped by
	// a newer entry) and the edges it ignores because of that.
	V0Semantics bool
	// Warn receives what drawing skips over (an invalid skipRange) and an
	// empty picture.
	Warn fault.Warn
}

// Picture is a catalog's upgrade graph laid out for drawing: packages by
// name, channels by name, entries by decreasing version, each with the
// edges that lead into it.
type Picture struct {
	Packages []*PicturePackage
}

// PicturePackage is one package's channels.
type PicturePackage struct {
	Name       string
	Deprecated bool
	Channels   []*PictureChannel
}

// PictureChannel is one channel's entries in drawing order.
type PictureChannel struct {
	Name       string
	ID         string
	Deprecated bool
	Entries    []*PictureEntry
}

// PictureEntry is a node and the edges that end in it.
type PictureEntry struct {
	Node  PictureNode
	Edges []PictureEdge
}

// PictureNode is a bundle in a channel.
type PictureNode struct {
	ID      string
	Bundle  string
	Version string
	// Deprecated: olm.deprecations lists the bundle.
	Deprecated bool
	// Skipped: with V0Semantics, a newer entry skips it.
	Skipped bool
}

// PictureEdge is an upgrade edge from an older bundle to a newer one.
type PictureEdge struct {
	From     string // node id
	FromName string // bundle name
	To       string
	ToName   string
	// Kind is "replace", "skip" or "skipRange", as opm draws them.
	Kind      string
	SkipRange string
	// IgnoredByClassic marks, with V0Semantics, an edge OLM classic never
	// follows: out of an entry that a newer entry skips, or a second skip
	// of the same bundle.
	IgnoredByClassic bool
}

// Draw lays out the catalog's upgrade graph. A minimum edge that names no
// bundle is an *OptionError.
func Draw(cat *Catalog, opts PictureOptions) (*Picture, error) {
	pic := &Picture{}
	var floor blang.Version
	minPkg := ""
	if opts.MinimumEdge != "" {
		var found *Bundle
		for _, p := range cat.Packages {
			if b := p.Bundle(opts.MinimumEdge); b != nil {
				found = b
				break
			}
		}
		if found == nil {
			return nil, optionErrorf("unknown minimum edge name: %q", opts.MinimumEdge)
		}
		floor = pictureVersion(found)
		// Like opm: the package of the first channel (by name) that has
		// the minimum edge as an entry.
		minPkg = minEdgePackage(cat, opts.MinimumEdge)
	}
	if opts.Package != "" && cat.Package(opts.Package) == nil {
		return nil, unknownPackage(cat, opts.Package)
	}
	if opts.Channel != "" && !slices.ContainsFunc(cat.Packages, func(p *Package) bool {
		return (opts.Package == "" || p.Name == opts.Package) && p.Channel(opts.Channel) != nil
	}) {
		if opts.Package != "" {
			return nil, unknownChannel(cat.Package(opts.Package), opts.Channel)
		}
		return nil, optionErrorf("no package has a channel %q", opts.Channel)
	}
	for _, p := range cat.Packages {
		name := p.Name
		if (opts.Package != "" && name != opts.Package) || (minPkg != "" && name != minPkg) {
			continue
		}
		pp := &PicturePackage{Name: name, Deprecated: p.Deprecation != nil}
		chans := slices.Clone(p.Channels)
		slices.SortStableFunc(chans, func(a, b *Channel) int { return cmp.Compare(a.Name, b.Name) })
		for _, ch := range chans {
			if opts.Channel != "" && ch.Name != opts.Channel {
				continue
			}
			if pc := drawChannel(pic, p, ch, opts, floor); pc != nil {
				pp.Channels = append(pp.Channels, pc)
			}
		}
		if len(pp.Channels) > 0 {
			pic.Packages = append(pic.Packages, pp)
		}
	}
	if len(pic.Packages) == 0 {
		switch {
		case opts.Package != "" && minPkg != "" && minPkg != opts.Package:
			return nil, optionErrorf("nothing to draw: minimum edge %q is a bundle of package %q, not of %q", opts.MinimumEdge, minPkg, opts.Package)
		case opts.MinimumEdge != "" && minPkg == "":
			return nil, optionErrorf("nothing to draw: minimum edge %q is not an entry of any channel", opts.MinimumEdge)
		case opts.MinimumEdge != "":
			return nil, optionErrorf("nothing to draw: no selected channel has edges from %q's version or newer", opts.MinimumEdge)
		case len(cat.Packages) == 0:
			opts.Warn.Printf("the catalog has no packages: the picture is empty")
		default:
			opts.Warn.Printf("no channel has entries: the picture is empty")
		}
	}
	return pic, nil
}

func minEdgePackage(cat *Catalog, name string) string {
	var chans []*Channel
	for _, p := range cat.Packages {
		chans = append(chans, p.Channels...)
	}
	slices.SortStableFunc(chans, func(a, b *Channel) int { return cmp.Compare(a.Name, b.Name) })
	for _, ch := range chans {
		for _, e := range ch.Entries {
			if e.Name == name {
				return ch.Package.Name
			}
		}
	}
	return ""
}

// pictureVersion is the version opm draws with: strict semver, 0.0.0 for
// anything without one (opm's map lookup of an unknown name).
func pictureVersion(b *Bundle) blang.Version {
	if b == nil || !b.HasVersion() {
		return blang.Version{}
	}
	return b.SemVer
}

// filteredEntry is a channel entry with the edges the minimum edge keeps.
type filteredEntry struct {
	*Entry
	replaces  string
	skips     []string
	skipRange string
}

func drawChannel(pic *Picture, p *Package, ch *Channel, opts PictureOptions, floor blang.Version) *PictureChannel {
	version := func(name string) blang.Version { return pictureVersion(p.Bundle(name)) }
	var kept []filteredEntry
	for _, e := range ch.Entries {
		fe := filteredEntry{Entry: e}
		hadEdges := e.Replaces != "" || len(e.Skips) > 0 || e.SkipRange != ""
		switch {
		case opts.MinimumEdge == "":
			fe.replaces, fe.skips, fe.skipRange = e.Replaces, e.Skips, e.SkipRange
		case e.Name == opts.MinimumEdge:
			// The floor itself: drawn, but nothing older leads into it.
		default:
			if e.Replaces != "" && version(e.Replaces).GTE(floor) {
				fe.replaces = e.Replaces
			}
			for _, s := range e.Skips {
				if version(s).GTE(floor) {
					fe.skips = append(fe.skips, s)
				}
			}
			if e.InRange(floor) {
				fe.skipRange = e.SkipRange
			}
		}
		hasEdges := fe.replaces != "" || len(fe.skips) > 0 || fe.skipRange != ""
		switch {
		case hasEdges, e.Name == opts.MinimumEdge && opts.MinimumEdge != "":
		case !hadEdges && (opts.MinimumEdge == "" || version(e.Name).GTE(floor)):
		default:
			continue
		}
		kept = append(kept, fe)
	}
	if len(kept) == 0 {
		return nil
	}
	pc := &PictureChannel{Name: ch.Name, ID: p.Name + "-" + ch.Name, Deprecated: ch.Deprecation != nil}
	id := func(name string) string { return pc.ID + "-" + name }
	sorted := slices.Clone(kept)
	slices.SortStableFunc(sorted, func(a, b filteredEntry) int { return version(b.Name).Compare(version(a.Name)) })
	skipped := map[string]bool{}
	for _, fe := range sorted {
		b := p.Bundle(fe.Name)
		pe := &PictureEntry{Node: PictureNode{
			ID: id(fe.Name), Bundle: fe.Name, Deprecated: b != nil && b.Deprecation != nil, Skipped: opts.V0Semantics && skipped[fe.Name],
		}}
		if b != nil {
			pe.Node.Version = b.Version
		}
		edge := func(from, kind, rng string) PictureEdge {
			return PictureEdge{From: id(from), FromName: from, To: pe.Node.ID, ToName: fe.Name, Kind: kind, SkipRange: rng}
		}
		for _, s := range fe.skips {
			e := edge(s, "skip", "")
			if opts.V0Semantics {
				e.IgnoredByClassic = skipped[s]
				skipped[s] = true
			}
			pe.Edges = append(pe.Edges, e)
		}
		if fe.skipRange != "" {
			if fe.Entry.Range == nil {
				opts.Warn.Printf("ignoring invalid SkipRange for package/edge %q/%q: %v", p.Name, fe.Name, fe.RangeErr)
			} else {
				for _, other := range kept {
					if fe.Entry.InRange(version(other.Name)) {
						e := edge(other.Name, "skipRange", fe.skipRange)
						e.IgnoredByClassic = opts.V0Semantics && skipped[fe.Name]
						pe.Edges = append(pe.Edges, e)
					}
				}
			}
		}
		if fe.replaces != "" {
			e := edge(fe.replaces, "replace", "")
			e.IgnoredByClassic = opts.V0Semantics && skipped[fe.Name]
			pe.Edges = append(pe.Edges, e)
		}
		pc.Entries = append(pc.Entries, pe)
	}
	return pc
}

// WriteMermaid draws the picture as a mermaid flowchart in the shape of
// `opm alpha render-graph`: the same node ids, edge kinds and order, and
// classes. Link indexes for linkStyle count edges in output order.
func (pic *Picture) WriteMermaid(w io.Writer) error {
	t := textout.New(w)
	t.Printf("graph LR\n")
	t.Printf("  classDef deprecated fill:#E8960F\n")
	t.Printf("  classDef skipped stroke:#FF0000,stroke-width:4px\n")
	t.Printf("  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n")
	classes := map[string][]string{}
	var ignored []string
	link := 0
	for _, pp := range pic.Packages {
		t.Printf("  %%%% package %q\n", pp.Name)
		t.Printf("  subgraph %s\n", mermaidLabel(pp.Name))
		for _, pc := range pp.Channels {
			t.Printf("    %%%% channel %q\n", pc.Name)
			t.Printf("    subgraph %s[%s]\n", mermaidID(pc.ID), mermaidLabel(pc.Name))
			for _, pe := range pc.Entries {
				n := pe.Node
				t.Printf("      %s[%s]\n", mermaidID(n.ID), mermaidLabel(n.Bundle))
				switch id := mermaidID(n.ID); {
				case n.Deprecated && n.Skipped:
					classes["deprecatedskipped"] = append(classes["deprecatedskipped"], id)
				case n.Deprecated:
					classes["deprecated"] = append(classes["deprecated"], id)
				case n.Skipped:
					classes["skipped"] = append(classes["skipped"], id)
				}
				for _, e := range pe.Edges {
					label := e.Kind
					if e.Kind == "skipRange" {
						label = `"skipRange(` + e.SkipRange + `)"`
					}
					t.Printf("      %s[%s]-- %s --> %s[%s]\n", mermaidID(e.From), mermaidLabel(e.FromName), label, mermaidID(e.To), mermaidLabel(e.ToName))
					if e.IgnoredByClassic {
						ignored = append(ignored, fmt.Sprint(link))
					}
					link++
				}
			}
			t.Printf("    end\n")
		}
		t.Printf("  end\n")
	}
	for _, pp := range pic.Packages {
		if pp.Deprecated {
			t.Printf("style %s fill:#989695\n", mermaidID(pp.Name))
		}
	}
	for _, pp := range pic.Packages {
		for _, pc := range pp.Channels {
			if pc.Deprecated {
				t.Printf("style %s fill:#DCD0FF\n", mermaidID(pc.ID))
			}
		}
	}
	for _, class := range []string{"deprecated", "deprecatedskipped", "skipped"} {
		if ids := classes[class]; len(ids) > 0 {
			slices.Sort(ids)
			t.Printf("class %s %s\n", strings.Join(ids, ","), class)
		}
	}
	if len(ignored) > 0 {
		t.Printf("linkStyle %s stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;\n", strings.Join(ignored, ","))
	}
	return t.Err()
}

// mermaidID is a node or subgraph id as opm writes it (the names joined
// with "-"), with the characters that would end an id in mermaid's syntax
// (white space, quotes, brackets, pipes, angle brackets, semicolons)
// replaced by "_". Names that OLM tooling produces have none of them, so
// their ids are opm's.
func mermaidID(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || strings.ContainsRune("\"'`[](){}|<>;", r) {
			return '_'
		}
		return r
	}, s)
}

// mermaidLabel quotes a name as a mermaid label: opm's %q for ordinary
// names; a double quote, which mermaid cannot escape with a backslash,
// becomes its entity, and line breaks become spaces.
func mermaidLabel(s string) string {
	return `"` + strings.NewReplacer(`"`, "#quot;", "\n", " ", "\r", " ").Replace(s) + `"`
}

// WriteDOT draws the picture for Graphviz: a cluster per package and per
// channel, deprecated nodes filled orange, skipped ones outlined red, edges
// classic ignores dashed red.
func (pic *Picture) WriteDOT(w io.Writer) error {
	t := textout.New(w)
	t.Printf("digraph upgrades {\n")
	t.Printf("  rankdir=LR;\n")
	t.Printf("  node [shape=box, style=rounded];\n")
	for _, pp := range pic.Packages {
		t.Printf("  subgraph %s {\n", dotID("cluster_"+pp.Name))
		t.Printf("    label=%s;\n", dotID(pp.Name))
		if pp.Deprecated {
			t.Printf("    style=filled;\n    fillcolor=\"#989695\";\n")
		}
		for _, pc := range pp.Channels {
			t.Printf("    subgraph %s {\n", dotID("cluster_"+pc.ID))
			t.Printf("      label=%s;\n", dotID(pc.Name))
			if pc.Deprecated {
				t.Printf("      style=filled;\n      fillcolor=\"#DCD0FF\";\n")
			}
			for _, pe := range pc.Entries {
				n := pe.Node
				label := n.Bundle
				if n.Version != "" {
					label += "\n" + n.Version
				}
				attrs := []string{"label=" + dotID(label)}
				if n.Deprecated {
					attrs = append(attrs, `style="rounded,filled"`, `fillcolor="#E8960F"`)
				}
				if n.Skipped {
					attrs = append(attrs, `color="#FF0000"`, "penwidth=3")
				}
				t.Printf("      %s [%s];\n", dotID(n.ID), strings.Join(attrs, ", "))
			}
			for _, pe := range pc.Entries {
				for _, e := range pe.Edges {
					label := e.Kind
					if e.Kind == "skipRange" {
						label = "skipRange(" + e.SkipRange + ")"
					}
					attrs := []string{"label=" + dotID(label)}
					switch e.Kind {
					case "skip":
						attrs = append(attrs, "style=dotted")
					case "skipRange":
						attrs = append(attrs, "style=dashed")
					}
					if e.IgnoredByClassic {
						attrs = append(attrs, `color="#FF0000"`)
					}
					t.Printf("      %s -> %s [%s];\n", dotID(e.From), dotID(e.To), strings.Join(attrs, ", "))
				}
			}
			t.Printf("    }\n")
		}
		t.Printf("  }\n")
	}
	t.Printf("}\n")
	return t.Err()
}

// dotID quotes s as a DOT string; a newline becomes DOT's centered line
// break.
func dotID(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

type pictureJSON struct {
	Packages []pictureJSONPackage `json:"packages"`
}

type pictureJSONPackage struct {
	Name       string               `json:"name"`
	Deprecated bool                 `json:"deprecated"`
	Channels   []pictureJSONChannel `json:"channels"`
}

type pictureJSONChannel struct {
	Name       string            `json:"name"`
	ID         string            `json:"id"`
	Deprecated bool              `json:"deprecated"`
	Nodes      []pictureJSONNode `json:"nodes"`
	Edges      []pictureJSONEdge `json:"edges"`
}

type pictureJSONNode struct {
	ID      string `json:"id"`
	Bundle  string `json:"bundle"`
	Version string `json:"version,omitempty"`
	// Entry is false for a name an edge mentions that is not an entry of
	// the channel.
	Entry      bool `json:"entry"`
	Deprecated bool `json:"deprecated"`
	Skipped    bool `json:"skipped"`
}

type pictureJSONEdge struct {
	From             string `json:"from"`
	To               string `json:"to"`
	Kind             string `json:"kind"`
	SkipRange        string `json:"skipRange,omitempty"`
	IgnoredByClassic bool   `json:"ignoredByClassic"`
}

// WriteJSON writes the picture as nodes and edges per channel. Edges go
// from the older bundle to the newer one; every node an edge mentions is
// listed.
func (pic *Picture) WriteJSON(w io.Writer, cat *Catalog) error {
	out := pictureJSON{Packages: []pictureJSONPackage{}}
	for _, pp := range pic.Packages {
		jp := pictureJSONPackage{Name: pp.Name, Deprecated: pp.Deprecated, Channels: []pictureJSONChannel{}}
		p := cat.Package(pp.Name)
		for _, pc := range pp.Channels {
			jc := pictureJSONChannel{Name: pc.Name, ID: pc.ID, Deprecated: pc.Deprecated, Nodes: []pictureJSONNode{}, Edges: []pictureJSONEdge{}}
			listed := map[string]bool{}
			for _, pe := range pc.Entries {
				n := pe.Node
				jc.Nodes = append(jc.Nodes, pictureJSONNode{ID: n.ID, Bundle: n.Bundle, Version: n.Version, Entry: true, Deprecated: n.Deprecated, Skipped: n.Skipped})
				listed[n.ID] = true
			}
			for _, pe := range pc.Entries {
				for _, e := range pe.Edges {
					if !listed[e.From] {
						listed[e.From] = true
						jn := pictureJSONNode{ID: e.From, Bundle: e.FromName}
						if b := p.Bundle(e.FromName); b != nil {
							jn.Version, jn.Deprecated = b.Version, b.Deprecation != nil
						}
						jc.Nodes = append(jc.Nodes, jn)
					}
					jc.Edges = append(jc.Edges, pictureJSONEdge{From: e.From, To: e.To, Kind: e.Kind, SkipRange: e.SkipRange, IgnoredByClassic: e.IgnoredByClassic})
				}
			}
			jp.Channels = append(jp.Channels, jc)
		}
		out.Packages = append(out.Packages, jp)
	}
	return writeJSON(w, out)
}
