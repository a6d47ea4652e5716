package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// propertyNode is one item of a blob's properties list.
type propertyNode struct {
	index int
	typ   string
	item  *declcfg.Node // the {type, value} object
	value *declcfg.Node // nil when absent
}

func (p propertyNode) path() *shape.Path {
	return (*shape.Path)(nil).Field("properties").Elem(p.index).Field("value")
}

// properties checks each property value of a blob against the definition of
// its type and returns the properties for the blob's own rules.
func (c *fileCheck) properties(d *docContext, root *declcfg.Node) []propertyNode {
	list := items(field(root, "properties"))
	if len(list) == 0 {
		return nil
	}
	props := make([]propertyNode, 0, len(list))
	maxOCP := 0
	for i, item := range list {
		item = declcfg.Deref(item)
		if item == nil || item.Kind != declcfg.MappingNode {
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
		if !declcfg.IsNull(p.value) {
			sh.Walk(p.value, p.path(), d.shapeReport)
		}
		switch p.typ {
		case declcfg.PropertyPackageRequired:
			checkVersionRange(d, p.value, p.path())
		case declcfg.PropertyConstraint:
			checkConstraint(d, p.value, p.path(), 0)
		case declcfg.PropertyMaxOCPVersion:
			maxOCP++
			checkMaxOpenShift(d, p, maxOCP)
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
func (c *fileCheck) unknownSchema(d *docContext, root *declcfg.Node, schema string) {
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
		olm := slices.DeleteFunc(known, func(k string) bool { return !strings.HasPrefix(k, "olm.") })
		d.reportf(RuleUnknownSchema, at, "schema %q is not a catalog schema (%s) but uses the reserved olm. prefix; if this is a template, keep it outside the catalog tree", schema, strings.Join(olm, ", "))
	}
}

// checkVersionRange parses olm.package.required's versionRange the way OLM
// does (blang/semver ParseRange, without the empty alternative that crashes
// it).
func checkVersionRange(d *docContext, v *declcfg.Node, p *shape.Path) {
	n := field(v, "versionRange")
	r := strValue(n)
	if r == "" {
		return // the shape walk reports an absent or empty range
	}
	if _, err := declcfg.ParseRange(r); err != nil {
		d.reportf(RuleVersionRange, n, "%s.versionRange %q is not a range OLM can parse: %v", p, r, err)
	}
}

// checkMaxOpenShift reads olm.maxOpenShiftVersion the way OLM does
// (model.ParseMaxOpenShiftVersion): a string or a number, MAJOR.MINOR.
// nth counts the blob's olm.maxOpenShiftVersion properties so far: OLM
// refuses a second one. Other kinds than strings and numbers are the shape
// walk's.
func checkMaxOpenShift(d *docContext, p propertyNode, nth int) {
	v := declcfg.Deref(p.value)
	if nth > 1 {
		d.reportf(RuleMaxOpenShift, p.item, "properties[%d]: a second olm.maxOpenShiftVersion property; OLM refuses a bundle with several and blocks cluster upgrades while it is installed: keep one", p.index)
		return
	}
	if v == nil || v.Kind != declcfg.ScalarNode {
		return
	}
	var raw string
	switch v.Tag {
	case "!!str":
		raw = strconv.Quote(v.Value)
	case "!!int", "!!float":
		raw = v.Value
		if f, err := strconv.ParseFloat(v.Value, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) != v.Value {
			d.reportf(RuleMaxOpenShift, v, "%s %s is a number, which YAML reads as %s (and so do OLM and opm, from a YAML catalog): quote it, %q", p.path(), v.Value, strconv.FormatFloat(f, 'f', -1, 64), v.Value)
			return
		}
	default:
		return
	}
	if _, loose, err := model.ParseMaxOpenShiftVersion(json.RawMessage(raw)); err != nil {
		d.reportf(RuleMaxOpenShift, v, "%s %s %v: OLM blocks cluster upgrades while the bundle is installed; write MAJOR.MINOR, e.g. \"4.18\"", p.path(), raw, err)
	} else if loose != "" {
		d.reportf(RuleMaxOpenShift, v, "%s %s %s; write MAJOR.MINOR, e.g. \"4.18\"", p.path(), raw, loose)
	}
}

// constraintKinds are the mutually exclusive members of an olm.constraint.
var constraintKinds = []string{"cel", "all", "any", "not", "gvk", "package"}

const maxConstraintDepth = 32

// checkConstraint checks that a constraint sets exactly one kind, and so do
// the constraints nested in all, any and not.
func checkConstraint(d *docContext, v *declcfg.Node, p *shape.Path, depth int) {
	v = declcfg.Deref(v)
	if v == nil || v.Kind != declcfg.MappingNode {
		return // the shape walk reports it
	}
	if depth > maxConstraintDepth {
		d.reportf(RuleConstraint, v, "%s: constraints nest deeper than %d levels", p.Subject(), maxConstraintDepth)
		return
	}
	var set []string
	for _, k := range constraintKinds {
		if n := field(v, k); n != nil && !declcfg.IsNull(n) {
			set = append(set, k)
		}
	}
	switch len(set) {
	case 0:
		d.reportf(RuleConstraint, v, "%s sets no constraint: give it exactly one of %s", p.Subject(), strings.Join(constraintKinds, ", "))
	case 1:
	default:
		d.reportf(RuleConstraint, v, "%s sets %s: a constraint has exactly one kind; combine several under all", p.Subject(), strings.Join(set, " and "))
	}
	if pkg := field(v, "package"); pkg != nil {
		checkVersionRange(d, pkg, p.Field("package"))
	}
	if rule := field(field(v, "cel"), "rule"); rule != nil {
		if r := strValue(rule); strings.TrimSpace(r) != "" {
			if why := checkCELRule(r); why != "" {
				d.reportf(RuleConstraint, rule, "%s: CEL rule %s", p.Field("cel").Field("rule"), why)
			}
		}
	}
	for _, k := range []string{"all", "any", "not"} {
		cp := p.Field(k).Field("constraints")
		for i, sub := range items(field(field(v, k), "constraints")) {
			checkConstraint(d, sub, cp.Elem(i), depth+1)
		}
	}
}
