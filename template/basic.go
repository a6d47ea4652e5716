package template

import (
	"context"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// A basic template is
//
//	schema: olm.template.basic
//	entries: [any FBC blob, or a bundle stub {schema: olm.bundle, image: REF}]
//
// Stubs are replaced by the bundle their image renders to; every other blob
// passes through as written.

// stub is a bundle entry of a basic template.
type stub struct {
	ref string
	pos declcfg.Pos
	// name is the bundle name a basic template's stub may state (opm
	// accepts and ignores it; real templates write it to say which bundle
	// a digest is), checked against the rendered bundle.
	name    string
	namePos declcfg.Pos
}

func renderBasic(ctx context.Context, doc *document, opts Options) (*Result, error) {
	res := &Result{Kind: KindBasic}
	cfg, stubs, err := doc.basicStubs(res)
	if err != nil {
		return nil, err
	}
	rendered, err := renderRefs(ctx, opts.Render, stubs)
	if err != nil {
		return nil, err
	}
	var ps Problems
	for i, st := range stubs {
		b := rendered[i].Bundle
		if st.name != "" && st.name != b.Name {
			ps = append(ps, problemAt(st.namePos, fmt.Sprintf("bundle stub says name %q, but %q renders to bundle %q", st.name, st.ref, b.Name)))
		}
		cfg.Bundles = append(cfg.Bundles, b)
	}
	if len(ps) > 0 {
		return nil, ps
	}
	res.Config = cfg
	return res, nil
}

// basicStubs reads a basic template's entries: its blobs, in cfg, and its
// bundle stubs, in entry order; res takes its warnings.
func (doc *document) basicStubs(res *Result) (*declcfg.DeclarativeConfig, []stub, error) {
	top, ps := doc.fields(doc.root)
	var entries *declcfg.Node
	for _, f := range top {
		switch strings.ToLower(f.name) {
		case "schema":
		case "entries":
			entries = f.value
		default:
			res.Warnings = append(res.Warnings, doc.warning(f.key, "unknown field %q in a basic template (opm ignores it); a basic template has only schema and entries", f.name))
		}
	}
	cfg := &declcfg.DeclarativeConfig{}
	var stubs []stub
	blobs, ps, err := doc.entryBlobs(entries, "basic template", "an FBC blob or a bundle stub", res, ps)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range blobs {
		if e.blob.Bundle == nil {
			e.blob.AddTo(cfg)
			continue
		}
		s, sps := doc.stub(e.node)
		ps = append(ps, sps...)
		if len(sps) == 0 {
			stubs = append(stubs, s)
		}
	}
	if len(ps) > 0 {
		return nil, nil, ps
	}
	return cfg, stubs, nil
}

// entryBlob is one decoded entry of a template's entries list.
type entryBlob struct {
	node *declcfg.Node
	blob declcfg.Blob
}

// entryBlobs decodes a template's entries: a list of FBC blobs. Problems
// are added to ps (the template's so far), loader warnings to res; what
// names the template and entry what an entry may be, in messages. A template
// with no entries and no other problem holds nothing: an *EmptyError.
func (d *document) entryBlobs(entries *declcfg.Node, what, entry string, res *Result, ps Problems) ([]entryBlob, Problems, error) {
	switch {
	case declcfg.IsNull(entries) || entries.Kind == declcfg.SequenceNode && len(entries.Content) == 0:
		if len(ps) == 0 {
			return nil, nil, &EmptyError{Pos: d.at(d.root), Msg: what + " has no entries"}
		}
		return nil, append(ps, d.problem(d.root, "%s has no entries", what)), nil
	case entries.Kind != declcfg.SequenceNode:
		return nil, append(ps, d.problem(entries, "entries must be a list, not %s", declcfg.KindName(entries))), nil
	}
	var out []entryBlob
	for _, en := range entries.Content {
		en = declcfg.Deref(en)
		pos := d.at(en)
		if en.Kind != declcfg.MappingNode {
			ps = append(ps, d.problem(en, "an entry must be an object (%s), not %s", entry, declcfg.KindName(en)))
			continue
		}
		blob, errs, ok := declcfg.DecodeDocument(declcfg.Document{Pos: pos, Node: en})
		for _, e := range errs {
			p := e.Finding()
			if e.Warning {
				res.Warnings = append(res.Warnings, &p)
			} else {
				ps = append(ps, &p)
			}
		}
		if ok {
			out = append(out, entryBlob{node: en, blob: blob})
		}
	}
	return out, ps, nil
}

// stub checks that a bundle entry is a stub: schema and image, and at most
// the bundle's name. Like opm, a package, properties or related images are
// refused (rendering supplies them); unlike opm, so is any other field,
// which opm would drop without a word.
func (d *document) stub(n *declcfg.Node) (stub, Problems) {
	fs, ps := d.fields(n)
	s := stub{pos: d.at(n)}
	var extra []string
	var imageNode *declcfg.Node
	for _, f := range fs {
		switch strings.ToLower(f.name) {
		case "schema":
		case "image":
			imageNode = f.value
			ref, p := d.str(f.value, "image")
			if p != nil {
				ps = append(ps, p)
			}
			s.ref = strings.TrimSpace(ref)
		case "name":
			name, p := d.str(f.value, "name")
			if p != nil {
				ps = append(ps, p)
			}
			s.name, s.namePos = strings.TrimSpace(name), d.at(f.value)
		default:
			extra = append(extra, f.name)
		}
	}
	if len(extra) > 0 {
		ps = append(ps, d.problem(n, "bundle entry has %s %s: in a basic template a bundle is a stub with only schema and image, and optionally the bundle's name (its package, properties and related images come from rendering the image)",
			plural(len(extra), "field", "fields"), quoteList(extra)))
	} else if s.ref == "" && len(ps) == 0 {
		at := n
		if imageNode != nil {
			at = imageNode
		}
		ps = append(ps, d.problem(at, "bundle entry has no image: a bundle stub names the bundle image to render"))
	}
	return s, ps
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}
