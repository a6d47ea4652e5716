package repo

import (
	"fmt"

	"github.com/fbc-project/fbc/declcfg"
)

// Template types ci.yaml maps (operator-pipelines' names).
const (
	TypeBasic  = "olm.template.basic"
	TypeSemver = "olm.semver"
)

// CI is an operator's ci.yaml, as far as fbc reads it: the fbc section.
// Root keeps the whole document for checks beyond what fbc reads.
type CI struct {
	File string
	Root *declcfg.Node
	// FBC is the fbc section; nil when ci.yaml has none.
	FBC *FBC
	// Warnings are what the file does that the pipelines accept but
	// should not be left so: keys written twice in a mapping (the last
	// counts).
	Warnings Problems
}

// FBC is ci.yaml's fbc section.
type FBC struct {
	Pos        declcfg.Pos
	Enabled    bool
	EnabledPos declcfg.Pos // zero when enabled is not written
	// Mappings is fbc.catalog_mapping in file order.
	Mappings []Mapping
}

// Mapping is one item of fbc.catalog_mapping: a template and the catalogs
// rendered from it.
type Mapping struct {
	Pos         declcfg.Pos
	Template    string // template_name, a file in catalog-templates/
	TemplatePos declcfg.Pos
	Type        string // olm.template.basic or olm.semver
	TypePos     declcfg.Pos
	Catalogs    []string    // catalog_names
	CatalogsPos declcfg.Pos // the list's
	CatalogPos  []declcfg.Pos
}

// ParseCI reads ci.yaml. Only what fbc uses is checked, and only for what
// it must be to be used: an fbc mapping, catalog_mapping a list of mappings
// whose template_name and type are strings and catalog_names a list of
// strings. operator-pipelines' schema (which keys are allowed, the enums)
// is a check of its own.
func ParseCI(file string, data []byte) (*CI, error) {
	return ciOf(declcfg.ParseFile(file, data))
}

func ciOf(f *declcfg.File) (*CI, error) {
	d, err := parseDoc(f)
	if err != nil {
		return nil, err
	}
	file := f.Path
	ci := &CI{File: file, Root: d.root, Warnings: d.warnings}
	k, fbc := declcfg.PipelineKeys.Lookup(d.root, "fbc")
	if k == nil {
		return ci, nil
	}
	ci.FBC = &FBC{Pos: d.at(k)}
	if declcfg.IsNull(fbc) {
		return ci, nil
	}
	if fbc.Kind != declcfg.MappingNode {
		d.problem(fbc, "fbc must be a mapping (enabled, catalog_mapping), not %s", kindName(fbc))
		return nil, d.ps
	}
	if k, v := declcfg.PipelineKeys.Lookup(fbc, "enabled"); k != nil {
		ci.FBC.EnabledPos = d.at(v)
		ci.FBC.Enabled, _ = d.boolean(v, "fbc.enabled")
	}
	if _, v := declcfg.PipelineKeys.Lookup(fbc, "catalog_mapping"); !declcfg.IsNull(v) {
		if v.Kind != declcfg.SequenceNode {
			d.problem(v, "fbc.catalog_mapping must be a list, not %s", kindName(v))
		} else {
			for i, it := range v.Content {
				if m, ok := d.mapping(declcfg.Deref(it), i); ok {
					ci.FBC.Mappings = append(ci.FBC.Mappings, m)
				}
			}
		}
	}
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	return ci, nil
}

func (d *doc) mapping(n *declcfg.Node, i int) (Mapping, bool) {
	what := fmt.Sprintf("fbc.catalog_mapping[%d]", i)
	m := Mapping{Pos: d.at(n)}
	if n.Kind != declcfg.MappingNode {
		d.problem(n, "%s must be a mapping (template_name, type, catalog_names), not %s", what, kindName(n))
		return m, false
	}
	ok := true
	need := func(key string) *declcfg.Node {
		k, v := declcfg.PipelineKeys.Lookup(n, key)
		if k == nil {
			d.problem(n, "%s has no %s", what, key)
			ok = false
			return nil
		}
		if declcfg.IsNull(v) {
			d.problem(v, "%s.%s is empty", what, key)
			ok = false
			return nil
		}
		return v
	}
	if v := need("template_name"); v != nil {
		var good bool
		m.Template, good = d.str(v, what+".template_name")
		m.TemplatePos = d.at(v)
		ok = ok && good
		if good && m.Template == "" {
			d.problem(v, "%s.template_name is empty", what)
			ok = false
		}
	}
	if v := need("type"); v != nil {
		var good bool
		m.Type, good = d.str(v, what+".type")
		m.TypePos = d.at(v)
		ok = ok && good
	}
	if v := need("catalog_names"); v != nil {
		var good bool
		m.Catalogs, m.CatalogPos, good = d.strings(v, what+".catalog_names")
		m.CatalogsPos = d.at(v)
		ok = ok && good
	}
	return m, ok
}

// MappingsOf returns the mappings of a template, in file order.
func (ci *CI) MappingsOf(template string) []Mapping {
	if ci.FBC == nil {
		return nil
	}
	var out []Mapping
	for _, m := range ci.FBC.Mappings {
		if m.Template == template {
			out = append(out, m)
		}
	}
	return out
}

// Mapping finds the template's mapping the way the release bot does: the
// first catalog_mapping item naming it.
func (ci *CI) Mapping(template string) (Mapping, bool) {
	ms := ci.MappingsOf(template)
	if len(ms) == 0 {
		return Mapping{}, false
	}
	return ms[0], true
}
