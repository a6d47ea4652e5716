package template

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/fbc-project/fbc/declcfg"
)

// A semver template is
//
//	schema: olm.semver
//	generateMajorChannels: bool     # default false
//	generateMinorChannels: bool     # default false; both false means minor
//	defaultChannelTypePreference: major|minor
//	candidate: {bundles: [{image: REF}, ...]}
//	fast:      {bundles: [...]}
//	stable:    {bundles: [...]}
//
// Channels are named <archetype>-v<X> (major) and <archetype>-v<X>.<Y>
// (minor); their edges follow opm's z-stream rule (see linkGroup).

// Archetype is a semver template's maturity level; later archetypes are
// more stable.
type Archetype string

const (
	Candidate Archetype = "candidate"
	Fast      Archetype = "fast"
	Stable    Archetype = "stable"
)

var archetypes = []Archetype{Candidate, Fast, Stable}

func (a Archetype) priority() int { return slices.Index(archetypes, a) }

// StreamKind says whether a channel holds one major version or one minor
// version.
type StreamKind string

const (
	Major StreamKind = "major"
	Minor StreamKind = "minor"
)

// priority orders kinds as opm does when it links channels and when
// nothing else separates two default-channel candidates: minor over major.
func (k StreamKind) priority() int {
	switch k {
	case Major:
		return 1
	case Minor:
		return 2
	}
	return 0
}

type semverTemplate struct {
	major, minor bool
	preference   StreamKind
	bundles      map[Archetype][]stub
	pos          map[Archetype]declcfg.Pos
}

func (d *document) parseSemver() (*semverTemplate, Problems) {
	t := &semverTemplate{bundles: map[Archetype][]stub{}, pos: map[Archetype]declcfg.Pos{}}
	top, ps := d.fields(d.root)
	var prefNode *declcfg.Node
	var pref string
	for _, f := range top {
		var p *declcfg.Finding
		switch strings.ToLower(f.name) {
		case "schema":
		case "generatemajorchannels":
			t.major, p = d.boolean(f.value, f.name)
		case "generateminorchannels":
			t.minor, p = d.boolean(f.value, f.name)
		case "defaultchanneltypepreference":
			prefNode = f.value
			pref, p = d.str(f.value, f.name)
		case "candidate", "fast", "stable":
			a := Archetype(strings.ToLower(f.name))
			t.pos[a] = d.at(f.key)
			var aps Problems
			t.bundles[a], aps = d.archetype(f.value, f.name)
			ps = append(ps, aps...)
		default:
			p = d.problem(f.key, "unknown field %q in a semver template; its fields are schema, generateMajorChannels, generateMinorChannels, defaultChannelTypePreference, candidate, fast and stable", f.name)
		}
		if p != nil {
			ps = append(ps, p)
		}
	}
	if !t.major && !t.minor {
		t.minor = true
	}
	switch StreamKind(pref) {
	case "":
		t.preference = Major
		if t.minor {
			t.preference = Minor
		}
	case Major:
		if !t.major {
			ps = append(ps, d.problem(prefNode, "defaultChannelTypePreference is major, but the template does not generate major channels (set generateMajorChannels: true)"))
		}
		t.preference = Major
	case Minor:
		if !t.minor {
			ps = append(ps, d.problem(prefNode, "defaultChannelTypePreference is minor, but the template does not generate minor channels (set generateMinorChannels: true)"))
		}
		t.preference = Minor
	default:
		ps = append(ps, d.problem(prefNode, "unknown defaultChannelTypePreference %q: use major or minor", pref))
	}
	slices.SortStableFunc(ps, func(a, b *declcfg.Finding) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return t, ps
}

// archetype reads {bundles: [{image: REF}, ...]}.
func (d *document) archetype(n *declcfg.Node, name string) ([]stub, Problems) {
	if declcfg.IsNull(n) {
		return nil, nil
	}
	if n.Kind != declcfg.MappingNode {
		return nil, Problems{d.problem(n, "%s must be an object with a bundles list, not %s", name, declcfg.KindName(n))}
	}
	fs, ps := d.fields(n)
	var list *declcfg.Node
	for _, f := range fs {
		if strings.EqualFold(f.name, "bundles") {
			list = f.value
			continue
		}
		ps = append(ps, d.problem(f.key, "unknown field %q in %s; it has only bundles", f.name, name))
	}
	if declcfg.IsNull(list) {
		return nil, ps
	}
	if list.Kind != declcfg.SequenceNode {
		return nil, append(ps, d.problem(list, "%s bundles must be a list, not %s", name, declcfg.KindName(list)))
	}
	var out []stub
	for _, en := range list.Content {
		en = declcfg.Deref(en)
		if en.Kind != declcfg.MappingNode {
			ps = append(ps, d.problem(en, "a %s bundle must be an object {image: REF}, not %s", name, declcfg.KindName(en)))
			continue
		}
		bfs, bps := d.fields(en)
		ps = append(ps, bps...)
		s := stub{pos: d.at(en)}
		at := en
		for _, f := range bfs {
			if !strings.EqualFold(f.name, "image") {
				ps = append(ps, d.problem(f.key, "unknown field %q in a %s bundle; it has only image", f.name, name))
				continue
			}
			at = f.value
			ref, p := d.str(f.value, "image")
			if p != nil {
				ps = append(ps, p)
			}
			s.ref = strings.TrimSpace(ref)
		}
		if s.ref == "" {
			ps = append(ps, d.problem(at, "%s bundle has no image", name))
			continue
		}
		out = append(out, s)
	}
	return out, ps
}

// member is one bundle of one archetype.
type member struct {
	arch    Archetype
	name    string
	version semver.Version
	pos     declcfg.Pos
}

func renderSemver(ctx context.Context, doc *document, opts Options) (*Result, error) {
	t, ps := doc.parseSemver()
	if len(ps) > 0 {
		return nil, ps
	}
	var all []stub
	for _, a := range archetypes {
		all = append(all, t.bundles[a]...)
	}
	if len(all) == 0 {
		return nil, &EmptyError{Pos: doc.at(doc.root), Msg: "semver template lists no bundles: add them under candidate, fast or stable"}
	}
	rendered, err := renderRefs(ctx, opts.Render, all)
	if err != nil {
		return nil, err
	}
	cfg := &declcfg.DeclarativeConfig{}
	byName := map[string]*declcfg.Bundle{}
	seenRef := map[string]bool{}
	for i, s := range all {
		if seenRef[s.ref] {
			continue
		}
		seenRef[s.ref] = true
		cfg.Bundles = append(cfg.Bundles, rendered[i].Bundle)
	}
	for i := range cfg.Bundles {
		byName[cfg.Bundles[i].Name] = &cfg.Bundles[i]
	}

	// Versions, per archetype; the first bundle fixes the package.
	var pkg string
	var pkgFrom stub
	members := map[Archetype][]member{}
	i := 0
	for _, a := range archetypes {
		names := map[string]declcfg.Pos{}
		for _, s := range t.bundles[a] {
			b := rendered[i].Bundle
			i++
			pps, err := declcfg.PackageProperties(b.Properties)
			if err != nil {
				ps = append(ps, problemAt(s.pos, fmt.Sprintf("bundle %q (%s): %v", b.Name, s.ref, err)))
				continue
			}
			if len(pps) != 1 {
				ps = append(ps, problemAt(s.pos, fmt.Sprintf("bundle %q (%s) has %d %q properties; the semver template needs exactly one to read its version", b.Name, s.ref, len(pps), declcfg.PropertyPackage)))
				continue
			}
			v, err := semver.Parse(pps[0].Version)
			if err != nil {
				ps = append(ps, problemAt(s.pos, fmt.Sprintf("bundle %q (%s) has version %q, which is not semver: %v", b.Name, s.ref, pps[0].Version, err)))
				continue
			}
			switch {
			case pkg == "":
				pkg, pkgFrom = pps[0].PackageName, s
			case pps[0].PackageName != pkg:
				ps = append(ps, problemAt(s.pos, fmt.Sprintf("bundle %q (%s) belongs to package %q, but this template's bundles belong to %q (%s at %s): a semver template describes one package",
					b.Name, s.ref, pps[0].PackageName, pkg, pkgFrom.ref, pkgFrom.pos)))
				continue
			}
			if prev, dup := names[b.Name]; dup {
				ps = append(ps, problemAt(s.pos, fmt.Sprintf("bundle %q is listed twice in %s (first at %s)", b.Name, a, prev)))
				continue
			}
			names[b.Name] = s.pos
			members[a] = append(members[a], member{arch: a, name: b.Name, version: v, pos: s.pos})
		}
		ps = append(ps, orderable(a, members[a])...)
	}
	if len(ps) > 0 {
		return nil, ps
	}
	for _, a := range archetypes {
		slices.SortFunc(members[a], func(x, y member) int { return x.version.Compare(y.version) })
	}

	g := generate(t, pkg, members, opts.SkipRange)
	for _, a := range archetypes {
		for ci := range g.channels {
			if g.channels[ci].arch == a {
				g.channels[ci].ch.Pos = t.pos[a]
			}
		}
	}
	p := declcfg.Package{Schema: declcfg.SchemaPackage, Name: pkg, DefaultChannel: g.defaultChannel, Pos: doc.pos}
	if head := g.defaultHead(); head != "" {
		b := byName[head]
		if opts.Whole != nil && !declcfg.HasProperty(b.Properties, declcfg.PropertyBundleObject) {
			whole, err := opts.Whole(ctx, b.Image)
			if err != nil {
				return nil, err
			}
			if whole != nil {
				b = whole
			}
		}
		info, err := bundleCSV(b)
		if err != nil {
			return nil, err
		}
		p.Description, p.Icon = info.Description, info.Icon
	}
	cfg.Packages = []declcfg.Package{p}
	for _, c := range g.channels {
		cfg.Channels = append(cfg.Channels, *c.ch)
	}
	return &Result{Kind: KindSemver, Config: cfg, Explanation: g.explain()}, nil
}

// orderable rejects versions of one archetype that semver cannot order:
// equal versions, or versions that differ only in build metadata.
func orderable(a Archetype, ms []member) Problems {
	var ps Problems
	seen := map[string]member{}
	for _, m := range ms {
		v := m.version
		v.Build = nil
		key := v.String()
		prev, ok := seen[key]
		if !ok {
			seen[key] = m
			continue
		}
		if prev.version.String() == m.version.String() {
			ps = append(ps, problemAt(m.pos, fmt.Sprintf("bundles %q and %q in %s both have version %s; versions in an archetype must differ", prev.name, m.name, a, m.version)))
		} else {
			ps = append(ps, problemAt(m.pos, fmt.Sprintf("bundles %q (%s) and %q (%s) in %s differ only in build metadata, which semver does not order", prev.name, prev.version, m.name, m.version, a)))
		}
	}
	return ps
}
