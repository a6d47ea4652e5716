package declcfg

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/internal/borrow"
)

// Blob is one decoded document: exactly one of the pointers is set.
type Blob struct {
	Schema      string
	Package     *Package
	Channel     *Channel
	Bundle      *Bundle
	Deprecation *Deprecation
	Meta        *Meta
}

// Name returns the blob's package and name (empty where the schema has none).
func (b Blob) Name() (pkg, name string) {
	switch {
	case b.Package != nil:
		return b.Package.Name, ""
	case b.Channel != nil:
		return b.Channel.Package, b.Channel.Name
	case b.Bundle != nil:
		return b.Bundle.Package, b.Bundle.Name
	case b.Deprecation != nil:
		return b.Deprecation.Package, ""
	case b.Meta != nil:
		return b.Meta.Package, b.Meta.Name
	}
	return "", ""
}

// AddTo appends the blob to cfg.
func (b Blob) AddTo(cfg *DeclarativeConfig) {
	switch {
	case b.Package != nil:
		cfg.Packages = append(cfg.Packages, *b.Package)
	case b.Channel != nil:
		cfg.Channels = append(cfg.Channels, *b.Channel)
	case b.Bundle != nil:
		cfg.Bundles = append(cfg.Bundles, *b.Bundle)
	case b.Deprecation != nil:
		cfg.Deprecations = append(cfg.Deprecations, *b.Deprecation)
	case b.Meta != nil:
		cfg.Others = append(cfg.Others, *b.Meta)
	}
}

// decoder reads typed values out of nodes, collecting problems instead of
// stopping at the first one.
type decoder struct {
	file string
	opts DecodeOptions
	errs []*LoadError
}

func (d *decoder) pos(n *Node) Pos {
	return Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *Node, rule, format string, args ...any) {
	d.errs = append(d.errs, &LoadError{Pos: d.pos(n), Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) warnf(n *Node, rule, format string, args ...any) {
	d.errs = append(d.errs, &LoadError{Pos: d.pos(n), Rule: rule, Msg: fmt.Sprintf(format, args...), Warning: true})
}

func deref(n *Node) *Node {
	for i := 0; n != nil && n.Kind == AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// object is a mapping node with JSON-style field lookup: an exact key match
// wins, otherwise a case-insensitive one (as encoding/json, and so opm, do).
type object struct {
	d     *decoder
	node  *Node
	pairs []pair
}

func (d *decoder) object(n *Node, what string) (*object, bool) {
	n = deref(n)
	if n == nil || n.Kind != MappingNode {
		if n != nil {
			d.errorf(n, RuleFieldType, "%s must be an object, not %s", what, KindName(n))
		}
		return nil, false
	}
	pairs, err := mappingPairs(n)
	if err != nil {
		var pe *parseError
		if errors.As(err, &pe) {
			d.errs = append(d.errs, &LoadError{Pos: Pos{File: d.file, Line: pe.Line, Col: pe.Col}, Rule: RuleDuplicateKey, Msg: pe.Msg})
		}
		return nil, false
	}
	return &object{d: d, node: n, pairs: pairs}, true
}

// field finds a key; warnCase reports keys that match only case-insensitively.
func (o *object) field(name string) (*Node, *Node) {
	for _, p := range o.pairs {
		if p.key == name {
			return p.keyNode, deref(p.value)
		}
	}
	for _, p := range o.pairs {
		if strings.EqualFold(p.key, name) {
			if p.keyNode != nil {
				o.d.warnf(p.keyNode, RuleKeyCase, "key %q is read as %q only because opm matches keys case-insensitively; write %q", p.key, name, name)
			}
			return p.keyNode, deref(p.value)
		}
	}
	return nil, nil
}

func (o *object) str(name string) (string, *Node) {
	_, v := o.field(name)
	if v == nil {
		return "", nil
	}
	if v.Kind == ScalarNode && v.Tag == "!!null" {
		return "", v
	}
	if _, yaml11 := YAML11Bool(v); yaml11 || v.Kind != ScalarNode || v.Tag != "!!str" && v.Tag != "!!timestamp" {
		o.d.errorf(v, RuleFieldType, "%q must be a string, not %s", name, NotStringText(v))
		return "", v
	}
	return borrow.Own(v.Value), v
}

func (o *object) list(name string) ([]*Node, *Node) {
	_, v := o.field(name)
	if v == nil || (v.Kind == ScalarNode && v.Tag == "!!null") {
		return nil, v
	}
	if v.Kind != SequenceNode {
		o.d.errorf(v, RuleFieldType, "%q must be a list, not %s", name, KindName(v))
		return nil, v
	}
	out := make([]*Node, len(v.Content))
	for i, c := range v.Content {
		out[i] = deref(c)
	}
	return out, v
}

// isList reports whether a value is a list (list's second result).
func isList(n *Node) bool { return n != nil && n.Kind == SequenceNode }

// DecodeDocument turns a document into a typed blob. Problems (wrong field
// types, a missing schema, bad base64) are returned; the blob is still as
// complete as the document allows. ok is false when no blob could be made.
func DecodeDocument(doc Document) (blob Blob, errs []*LoadError, ok bool) {
	return DecodeDocumentWith(doc, DecodeOptions{})
}

// DecodeOptions says what DecodeDocumentWith keeps.
type DecodeOptions struct {
	// Values, when set, says which properties' values the caller reads
	// (by type). The others are checked as they would be encoded, and
	// reported alike, but not encoded: their Value is nil. validate reads
	// the value of olm.package only, and encoding the rest (a CSV's
	// metadata above all) was most of the cost of decoding.
	Values func(propertyType string) bool
}

// DecodeDocumentWith is DecodeDocument with options.
func DecodeDocumentWith(doc Document, opts DecodeOptions) (blob Blob, errs []*LoadError, ok bool) {
	d := &decoder{file: doc.Pos.File, opts: opts}
	o, ok := d.object(doc.Node, "a catalog document")
	if !ok {
		return Blob{}, d.errs, false
	}
	// Each key is read once, so each problem with it is reported once.
	schema, sn := o.str("schema")
	name, _ := o.str("name")
	var pkg string
	if schema != SchemaPackage {
		pkg, _ = o.str("package")
	}
	if sn == nil || schema == "" {
		if _, yaml11 := YAML11Bool(sn); sn == nil || sn.Tag == "!!null" || sn.Tag == "!!str" && !yaml11 {
			d.errorf(doc.Node, RuleMissingSchema, "document has no \"schema\" field; every catalog blob needs one (olm.package, olm.channel, olm.bundle, olm.deprecations or a custom schema)")
		}
		return Blob{}, d.errs, false
	}
	pos := doc.Pos
	blob.Schema = schema
	switch schema {
	case SchemaPackage:
		blob.Package = d.pkg(o, pos, name)
	case SchemaChannel:
		blob.Channel = d.channel(o, pos, pkg, name)
	case SchemaBundle:
		blob.Bundle = d.bundle(o, pos, pkg, name)
	case SchemaDeprecations:
		blob.Deprecation = d.deprecation(o, pos, pkg)
	default:
		raw, err := NodeToJSON(o.node, true)
		if err != nil {
			d.nodeErr(err)
			return Blob{}, d.errs, false
		}
		blob.Meta = &Meta{Schema: schema, Package: pkg, Name: name, Blob: raw, Pos: pos}
	}
	return blob, d.errs, true
}

func (d *decoder) nodeErr(err error) {
	var pe *parseError
	if errors.As(err, &pe) {
		rule := RuleSyntax
		if strings.HasPrefix(pe.Msg, "duplicate key") {
			rule = RuleDuplicateKey
		}
		d.errs = append(d.errs, &LoadError{Pos: Pos{File: d.file, Line: pe.Line, Col: pe.Col}, Rule: rule, Msg: pe.Msg})
		return
	}
	d.errs = append(d.errs, &LoadError{Pos: Pos{File: d.file}, Rule: RuleSyntax, Msg: err.Error()})
}

func (d *decoder) pkg(o *object, pos Pos, name string) *Package {
	p := &Package{Schema: SchemaPackage, Name: name, Pos: pos}
	var dn *Node
	p.DefaultChannel, dn = o.str("defaultChannel")
	if dn != nil {
		p.DefaultChannelPos = d.pos(dn)
	}
	p.Description, _ = o.str("description")
	if _, in := o.field("icon"); in != nil && !(in.Kind == ScalarNode && in.Tag == "!!null") {
		if io, ok := d.object(in, "icon"); ok {
			icon := &Icon{}
			data, dn := io.str("base64data")
			icon.MediaType, _ = io.str("mediatype")
			if data != "" {
				b, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					d.errorf(dn, RuleFieldType, "icon base64data is not valid base64: %v", err)
				}
				icon.Data = b
			}
			p.Icon = icon
		}
	}
	p.Properties = d.properties(o)
	return p
}

func (d *decoder) channel(o *object, pos Pos, pkg, name string) *Channel {
	c := &Channel{Schema: SchemaChannel, Name: name, Package: pkg, Pos: pos}
	entries, en := o.list("entries")
	if isList(en) {
		// [] and a missing list are written back as opm writes them: []
		// and null.
		c.Entries = make([]ChannelEntry, 0, len(entries))
	}
	for _, en := range entries {
		eo, ok := d.object(en, "a channel entry")
		if !ok {
			continue
		}
		e := ChannelEntry{Pos: d.pos(en)}
		e.Name, _ = eo.str("name")
		var rn, srn *Node
		e.Replaces, rn = eo.str("replaces")
		if rn != nil {
			e.ReplacesPos = d.pos(rn)
		}
		e.SkipRange, srn = eo.str("skipRange")
		if srn != nil {
			e.SkipRangePos = d.pos(srn)
		}
		skips, _ := eo.list("skips")
		for _, sn := range skips {
			if _, yaml11 := YAML11Bool(sn); yaml11 || sn.Kind != ScalarNode || (sn.Tag != "!!str" && sn.Tag != "!!null") {
				d.errorf(sn, RuleFieldType, "\"skips\" items must be strings, not %s", NotStringText(sn))
				continue
			}
			if sn.Tag == "!!null" {
				e.Skips = append(e.Skips, "")
				continue
			}
			e.Skips = append(e.Skips, borrow.Own(sn.Value))
		}
		c.Entries = append(c.Entries, e)
	}
	c.Properties = d.properties(o)
	return c
}

func (d *decoder) bundle(o *object, pos Pos, pkg, name string) *Bundle {
	b := &Bundle{Schema: SchemaBundle, Name: name, Package: pkg, Pos: pos}
	b.Image, _ = o.str("image")
	b.Properties = d.properties(o)
	ris, _ := o.list("relatedImages")
	for _, rn := range ris {
		ro, ok := d.object(rn, "a related image")
		if !ok {
			continue
		}
		ri := RelatedImage{Pos: d.pos(rn)}
		ri.Name, _ = ro.str("name")
		ri.Image, _ = ro.str("image")
		b.RelatedImages = append(b.RelatedImages, ri)
	}
	return b
}

func (d *decoder) deprecation(o *object, pos Pos, pkg string) *Deprecation {
	dep := &Deprecation{Schema: SchemaDeprecations, Package: pkg, Pos: pos}
	entries, en := o.list("entries")
	if isList(en) {
		dep.Entries = make([]DeprecationEntry, 0, len(entries))
	}
	for _, en := range entries {
		eo, ok := d.object(en, "a deprecation entry")
		if !ok {
			continue
		}
		e := DeprecationEntry{Pos: d.pos(en)}
		e.Message, _ = eo.str("message")
		if _, rn := eo.field("reference"); rn != nil {
			if ro, ok := d.object(rn, "a deprecation reference"); ok {
				var nn *Node
				e.Reference.Schema, _ = ro.str("schema")
				e.Reference.Name, nn = ro.str("name")
				e.ReferencePos = d.pos(rn)
				if nn != nil {
					e.NamePos = d.pos(nn)
				}
			}
		}
		dep.Entries = append(dep.Entries, e)
	}
	return dep
}

func (d *decoder) properties(o *object) []Property {
	items, _ := o.list("properties")
	if len(items) == 0 {
		return nil
	}
	props := make([]Property, 0, len(items))
	for _, pn := range items {
		po, ok := d.object(pn, "a property")
		if !ok {
			continue
		}
		p := Property{Pos: d.pos(pn)}
		p.Type, _ = po.str("type")
		if _, vn := po.field("value"); vn != nil {
			if d.opts.Values != nil && !d.opts.Values(p.Type) {
				if err := checkJSON(vn); err != nil {
					d.nodeErr(err)
					continue
				}
				props = append(props, p)
				continue
			}
			// opm reads a catalog's documents into maps, which its
			// writers give back with their keys sorted.
			raw, err := NodeToJSON(vn, true)
			if err != nil {
				d.nodeErr(err)
				continue
			}
			p.Value = raw
		}
		props = append(props, p)
	}
	return props
}
