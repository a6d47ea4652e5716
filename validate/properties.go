package validate

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg"
)

// propertyNode is one item of a blob's properties list.
type propertyNode struct {
	index int
	typ   string
	item  *yaml.Node // the {type, value} object
	value *yaml.Node // nil when absent
}

func (p propertyNode) path() *fieldPath {
	return (*fieldPath)(nil).field("properties").elem(p.index).field("value")
}

// properties checks each property value of a blob against the definition of
// its type and returns the properties for the blob's own rules.
func (c *fileCheck) properties(d *docContext, root *yaml.Node) []propertyNode {
	list := items(field(root, "properties"))
	if len(list) == 0 {
		return nil
	}
	props := make([]propertyNode, 0, len(list))
	for i, item := range list {
		item = declcfg.Deref(item)
		if item == nil || item.Kind != yaml.MappingNode {
			continue // the shape walk reports it
		}
		p := propertyNode{index: i, item: item, typ: strValue(field(item, "type")), value: field(item, "value")}
		props = append(props, p)
		if p.typ == "" {
			continue
		}
		sh := c.schema.properties[p.typ]
		if sh == nil {
			if !c.policyDefines(func(pol *policy) bool { return pol.definesProperty(p.typ) }) {
				c.unknownProperty(d, p)
			}
			continue
		}
		if !isNull(p.value) {
			sh.walk(p.value, p.path(), d.shapeReport)
		}
		switch p.typ {
		case declcfg.PropertyPackageRequired:
			checkVersionRange(d, p.value, p.path())
		case declcfg.PropertyConstraint:
			checkConstraint(d, p.value, p.path(), 0)
		}
	}
	return props
}

// unknownProperty warns about property types that are probably mistakes.
// FBC lets anyone define property types, so a namespaced type nobody knows
// (example.com/tier) is fine.
func (c *fileCheck) unknownProperty(d *docContext, p propertyNode) {
	at := field(p.item, "type")
	where := fmt.Sprintf("properties[%d]", p.index)
	if sug := declcfg.Suggest(p.typ, c.schema.propertyTypes); sug != "" {
		d.reportf(RuleUnknownProperty, at, "%s: unknown property type %q; did you mean %q?", where, p.typ, sug)
		return
	}
	switch {
	case strings.HasPrefix(p.typ, "olm."):
		d.reportf(RuleUnknownProperty, at, "%s: unknown property type %q: the olm. prefix is reserved for OLM's types (%s); OLM ignores this one", where, p.typ, strings.Join(c.schema.propertyTypes, ", "))
	case !strings.ContainsAny(p.typ, "./"):
		d.reportf(RuleUnknownProperty, at, "%s: unknown property type %q: OLM ignores it; if it is your own, namespace it (for example example.com/%s)", where, p.typ, p.typ)
	}
}

// unknownSchema warns about blob schemas that are probably mistakes.
func (c *fileCheck) unknownSchema(d *docContext, root *yaml.Node, schema string) {
	at := field(root, "schema")
	known := make([]string, 0, len(c.schema.schemas))
	for k := range c.schema.schemas {
		known = append(known, k)
	}
	slices.Sort(known)
	if sug := declcfg.Suggest(schema, known); sug != "" {
		d.reportf(RuleUnknownSchema, at, "unknown schema %q; did you mean %q?", schema, sug)
		return
	}
	if strings.HasPrefix(schema, "olm.") {
		d.reportf(RuleUnknownSchema, at, "schema %q is not a catalog schema (%s) but uses the reserved olm. prefix; if this is a template, keep it outside the catalog tree", schema, strings.Join(known, ", "))
	}
}

// checkVersionRange parses olm.package.required's versionRange the way OLM
// does (blang/semver ParseRange, without the empty alternative that crashes
// it).
func checkVersionRange(d *docContext, v *yaml.Node, p *fieldPath) {
	n := field(v, "versionRange")
	r := strValue(n)
	if r == "" {
		return // the shape walk reports an absent or empty range
	}
	if _, err := declcfg.ParseRange(r); err != nil {
		d.reportf(RuleVersionRange, n, "%s.versionRange %q is not a range OLM can parse: %v", p, r, err)
	}
}

// constraintKinds are the mutually exclusive members of an olm.constraint.
var constraintKinds = []string{"cel", "all", "any", "not", "gvk", "package"}

const maxConstraintDepth = 32

// checkConstraint checks that a constraint sets exactly one kind, and so do
// the constraints nested in all, any and not.
func checkConstraint(d *docContext, v *yaml.Node, p *fieldPath, depth int) {
	v = declcfg.Deref(v)
	if v == nil || v.Kind != yaml.MappingNode {
		return // the shape walk reports it
	}
	if depth > maxConstraintDepth {
		d.reportf(RuleConstraint, v, "%s: constraints nest deeper than %d levels", subject(p), maxConstraintDepth)
		return
	}
	var set []string
	for _, k := range constraintKinds {
		if n := field(v, k); n != nil && !isNull(n) {
			set = append(set, k)
		}
	}
	switch len(set) {
	case 0:
		d.reportf(RuleConstraint, v, "%s sets no constraint: give it exactly one of %s", subject(p), strings.Join(constraintKinds, ", "))
	case 1:
	default:
		d.reportf(RuleConstraint, v, "%s sets %s: a constraint has exactly one kind; combine several under all", subject(p), strings.Join(set, " and "))
	}
	if pkg := field(v, "package"); pkg != nil {
		checkVersionRange(d, pkg, p.field("package"))
	}
	if rule := field(field(v, "cel"), "rule"); rule != nil {
		if r := strValue(rule); strings.TrimSpace(r) != "" {
			if why := checkCELRule(r); why != "" {
				d.reportf(RuleConstraint, rule, "%s: CEL rule %s", p.field("cel").field("rule"), why)
			}
		}
	}
	for _, k := range []string{"all", "any", "not"} {
		cp := p.field(k).field("constraints")
		for i, sub := range items(field(field(v, k), "constraints")) {
			checkConstraint(d, sub, cp.elem(i), depth+1)
		}
	}
}
