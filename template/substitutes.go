package template

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// A substitutes template is
//
//	schema: olm.template.substitutes
//	entries: [FBC blobs: packages, channels, whole bundles, ...]
//	substitutions:
//	- name: REF    # the bundle image of the substitute
//	  base: NAME   # the bundle of entries it takes the place of
//
// A substitute is a rebuild of a published bundle (a security fix, a new
// release of the same version): it takes over the base's place in every
// channel, and everything that led to the base leads to it. The rules are
// opm's (operator-registry alpha/template/substitutes): the entries must be a
// valid catalog, a base is substituted once, a substitute replaces one base,
// and the substitute must sort above its base by version, then release.

// substitution is one item of a substitutes template.
type substitution struct {
	ref, base       string
	pos             declcfg.Pos
	refPos, basePos declcfg.Pos
}

func renderSubstitutes(ctx context.Context, doc *document, opts Options) (*Result, error) {
	res := &Result{Kind: KindSubstitutes}
	top, ps := doc.fields(doc.root)
	var entries, subsNode *declcfg.Node
	for _, f := range top {
		switch strings.ToLower(f.name) {
		case "schema":
		case "entries":
			entries = f.value
		case "substitutions":
			subsNode = f.value
		default:
			res.Warnings = append(res.Warnings, doc.warning(f.key, "unknown field %q in a substitutes template (opm ignores it); a substitutes template has schema, entries and substitutions", f.name))
		}
	}
	cfg := &declcfg.DeclarativeConfig{}
	blobs, ps, err := doc.entryBlobs(entries, "substitutes template", "an FBC blob", res, ps)
	if err != nil {
		return nil, err
	}
	for _, e := range blobs {
		e.blob.AddTo(cfg)
	}
	subs, sps := doc.substitutions(subsNode, res)
	ps = append(ps, sps...)
	if len(ps) > 0 {
		return nil, ps
	}
	if ps := entriesValid(ctx, doc, entries, cfg); len(ps) > 0 {
		return nil, ps
	}
	stubs := make([]stub, len(subs))
	for i, s := range subs {
		stubs[i] = stub{ref: s.ref, pos: s.refPos}
	}
	rendered, err := renderRefs(ctx, opts.Render, stubs)
	if err != nil {
		return nil, err
	}
	// opm runs migrations on the bundles it renders, not on the entries,
	// which are written as the author wants them.
	if opts.Migrate != nil && len(rendered) > 0 {
		mc := &declcfg.DeclarativeConfig{}
		for _, r := range rendered {
			mc.Bundles = append(mc.Bundles, r.Bundle)
		}
		if err := opts.Migrate(mc); err != nil {
			return nil, fmt.Errorf("migrating substitutes: %w", err)
		}
		for i := range rendered {
			rendered[i].Bundle = mc.Bundles[i]
		}
	}
	for i, s := range subs {
		if p := substitute(cfg, s, rendered[i].Bundle); p != nil {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	res.Config = cfg
	return res, nil
}

// substitutions reads the substitutions list and applies the rules that
// need no bundle: both fields set and different, each base substituted
// once, each substitute used for one base.
func (d *document) substitutions(n *declcfg.Node, res *Result) ([]substitution, Problems) {
	if declcfg.IsNull(n) {
		return nil, nil
	}
	if n.Kind != declcfg.SequenceNode {
		return nil, Problems{d.problem(n, "substitutions must be a list, not %s", declcfg.KindName(n))}
	}
	var out []substitution
	var ps Problems
	bases := map[string]substitution{}
	refs := map[string]substitution{}
	for _, item := range n.Content {
		item = declcfg.Deref(item)
		if item.Kind != declcfg.MappingNode {
			ps = append(ps, d.problem(item, "a substitution must be an object {name: IMAGE, base: BUNDLE}, not %s", declcfg.KindName(item)))
			continue
		}
		fs, fps := d.fields(item)
		ps = append(ps, fps...)
		s := substitution{pos: d.at(item), refPos: d.at(item), basePos: d.at(item)}
		bad := len(fps) > 0
		for _, f := range fs {
			var p *declcfg.Finding
			switch strings.ToLower(f.name) {
			case "name":
				s.ref, p = d.str(f.value, "name")
				s.ref, s.refPos = strings.TrimSpace(s.ref), d.at(f.value)
			case "base":
				s.base, p = d.str(f.value, "base")
				s.base, s.basePos = strings.TrimSpace(s.base), d.at(f.value)
			default:
				res.Warnings = append(res.Warnings, d.warning(f.key, "unknown field %q in a substitution (opm ignores it); a substitution has name (the substitute's bundle image) and base (the bundle it substitutes for)", f.name))
			}
			if p != nil {
				ps, bad = append(ps, p), true
			}
		}
		if bad {
			continue
		}
		switch {
		case s.ref == "":
			ps = append(ps, d.problem(item, "substitution has no name: name is the bundle image of the substitute"))
			continue
		case s.base == "":
			ps = append(ps, d.problem(item, "substitution has no base: base is the name of the bundle the substitute takes the place of"))
			continue
		case s.ref == s.base:
			ps = append(ps, problemAt(s.basePos, fmt.Sprintf("substitution's name and base are both %q: name is the substitute's bundle image, base the bundle it substitutes for", s.ref)))
			continue
		}
		if first, ok := bases[s.base]; ok {
			ps = append(ps, problemAt(s.basePos, fmt.Sprintf("bundle %q is already substituted (by %q at line %d): a bundle has one substitute", s.base, first.ref, first.pos.Line)))
			continue
		}
		if first, ok := refs[s.ref]; ok {
			ps = append(ps, problemAt(s.refPos, fmt.Sprintf("%q already substitutes for %q (line %d): a substitute takes the place of one bundle", s.ref, first.base, first.pos.Line)))
			continue
		}
		bases[s.base], refs[s.ref] = s, s
		out = append(out, s)
	}
	return out, ps
}

// entriesValid checks the entries as fbc validate would: opm refuses a
// substitutes template whose entries are not a valid catalog, since a
// substitution rewrites the channels it finds there.
func entriesValid(ctx context.Context, doc *document, entries *declcfg.Node, cfg *declcfg.DeclarativeConfig) Problems {
	vr, err := validate.ValidateConfig(ctx, cfg, validate.Options{})
	if err != nil {
		return Problems{doc.problem(entries, "checking entries: %v", err)}
	}
	var ps Problems
	for _, d := range vr.Diagnostics {
		if d.Severity != declcfg.SeverityError {
			continue
		}
		if !d.Pos.IsValid() {
			d.Pos = doc.at(entries)
		}
		d.Message = fmt.Sprintf("entries are not a valid catalog: %s [%s]", d.Message, d.Rule)
		ps = append(ps, &d)
	}
	return ps
}

// substitute puts bundle b, rendered from s.ref, in the place of bundle
// s.base in every channel of its package: b's entry takes the base's edges
// and skips the base, the base keeps none, and entries that replaced or
// skipped the base now do so to b (a replaced base is skipped as well, so
// that it stays reachable). Later substitutions see b, so a substitute can
// itself be substituted.
func substitute(cfg *declcfg.DeclarativeConfig, s substitution, b declcfg.Bundle) *declcfg.Finding {
	at := func(format string, args ...any) *declcfg.Finding {
		return problemAt(s.refPos, fmt.Sprintf(format, args...))
	}
	baseAt := func(format string, args ...any) *declcfg.Finding {
		return problemAt(s.basePos, fmt.Sprintf(format, args...))
	}
	base := -1
	var elsewhere []string
	for i := range cfg.Bundles {
		if cfg.Bundles[i].Name != s.base {
			continue
		}
		if cfg.Bundles[i].Package == b.Package {
			base = i
			break
		}
		elsewhere = append(elsewhere, cfg.Bundles[i].Package)
	}
	switch {
	case base < 0 && len(elsewhere) > 0:
		return baseAt("base bundle %q is in package %q, but substitute %q renders to bundle %q of package %q: a substitute belongs to its base's package",
			s.base, elsewhere[0], s.ref, b.Name, b.Package)
	case base < 0:
		return baseAt("base bundle %q is not in the template's entries", s.base)
	}
	if b.Name == s.base {
		return at("substitute %q renders to bundle %q, the base itself: a substitute is a new bundle", s.ref, b.Name)
	}
	for _, o := range cfg.Bundles {
		if o.Name == b.Name && o.Package == b.Package {
			return at("substitute %q renders to bundle %q, which package %q already has", s.ref, b.Name, b.Package)
		}
	}
	bvr, err := cfg.Bundles[base].VersionRelease()
	if err != nil {
		return baseAt("base: %v", err)
	}
	svr, err := b.VersionRelease()
	if err != nil {
		return at("substitute %q: %v", s.ref, err)
	}
	if bvr.Compare(svr) >= 0 {
		return at("substitute %q (bundle %q, %s) does not sort above its base %q (%s): a substitute needs a higher version or release",
			s.ref, b.Name, svr, s.base, bvr)
	}
	for ci := range cfg.Channels {
		ch := &cfg.Channels[ci]
		if ch.Package != b.Package {
			continue
		}
		n := len(ch.Entries)
		for i := 0; i < n; i++ {
			e := &ch.Entries[i]
			if e.Name != s.base {
				continue
			}
			ch.Entries = append(ch.Entries, declcfg.ChannelEntry{
				Name:      b.Name,
				Replaces:  e.Replaces,
				Skips:     append(slices.Clone(e.Skips), s.base),
				SkipRange: e.SkipRange,
				Pos:       e.Pos,
			})
			e = &ch.Entries[i] // append may have moved the entries
			e.Replaces, e.Skips, e.SkipRange = "", nil, ""
		}
		for i := 0; i < n; i++ {
			e := &ch.Entries[i]
			switch {
			case e.Replaces == s.base:
				e.Replaces = b.Name
				e.Skips = append(e.Skips, s.base)
			case slices.Contains(e.Skips, s.base):
				e.Skips = append(slices.DeleteFunc(e.Skips, func(n string) bool { return n == s.base }), b.Name)
			}
		}
	}
	cfg.Bundles = append(cfg.Bundles, b)
	return nil
}
