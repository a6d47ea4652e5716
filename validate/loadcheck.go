package validate

import (
	"fmt"
	"slices"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// LoadCheck finds, a bundle document at a time, what makes opm refuse to
// load a catalog it reads a bundle of: property values of the types opm
// decodes that do not decode into them (field-type), olm.package properties
// that are not exactly one, naming the bundle's package, with a strict
// semver version (package-property, bundle-version, and missing-field or
// empty-value for its packageName and version), olm.bundle.object data that
// is not base64, or YAML that does not convert to JSON (bundle-object, and
// missing or empty data), and more than one olm.csv.metadata
// (invalid-value). Each finding is the one fbc validate reports for the
// same problem, by the same code: rule id, message, position, package and
// bundle. fbc validate checks more under the same rules (an object without
// apiVersion, kind or name, JSON that does not parse), which opm loads as
// it is. fbc serve asks it, so that it refuses what opm refuses, with the
// words fbc validate uses.
//
// A LoadCheck is not safe for concurrent use; one per loading goroutine.
type LoadCheck struct {
	fc *fileCheck
}

// NewLoadCheck returns a LoadCheck. It is cheap: the built-in schema's
// property definitions are compiled (once per process) when a value is
// first shape-checked.
func NewLoadCheck() *LoadCheck {
	c := &checker{severity: ruleSeverities()}
	return &LoadCheck{fc: c.newFileCheck()}
}

// opmDecodes says which property types opm decodes into a type of its own
// when it loads a bundle; a value of one of them that does not decode
// makes it refuse the catalog. For olm.package and olm.bundle.object an
// absent or empty field is refused too: opm cannot parse an empty version,
// a missing packageName does not name the bundle's package, and empty data
// is no manifest.
var opmDecodes = map[string]bool{
	declcfg.PropertyPackage:         true,
	declcfg.PropertyGVK:             true,
	declcfg.PropertyGVKRequired:     true,
	declcfg.PropertyPackageRequired: true,
	declcfg.PropertyChannel:         true,
	declcfg.PropertyBundleObject:    true,
	declcfg.PropertyCSVMetadata:     true,
}

// requiredStrings are, for the property types whose absent or empty
// fields opm refuses, those fields (as the schema defines them: #PackageValue,
// #BundleObject). A value that decodes and has them all as non-empty
// strings has nothing a shape walk would report that opm refuses, so it is
// not walked.
var requiredStrings = map[string][]string{
	declcfg.PropertyPackage:      {"packageName", "version"},
	declcfg.PropertyBundleObject: {"data"},
}

// hasStrings reports whether mapping n has each of keys as a non-empty
// string.
func hasStrings(n *declcfg.Node, keys []string) bool {
	for _, k := range keys {
		if strValue(field(n, k)) == "" {
			return false
		}
	}
	return true
}

// loadRules are the rules of the checks LoadCheck runs whose findings make
// opm refuse a bundle (packageProperty also checks releases, which opm
// does not refuse).
var loadRules = map[string]bool{
	declcfg.RuleFieldType: true,
	RuleMissingField:      true,
	RuleEmptyValue:        true,
	RulePackageProperty:   true,
	RuleBundleVersion:     true,
	RuleBundleObject:      true,
	RuleInvalidValue:      true,
}

// Bundle checks one olm.bundle document (its tree as the loader parsed it,
// manifests included) of package pkg named name, and returns what opm
// would refuse in it, sorted as fbc validate sorts. decodes, when not nil,
// says whether the value of the i-th item of the bundle's properties
// decodes into the type opm decodes it into (the caller decodes them
// anyway): a value that does is not checked against its schema shape, as
// opm loads it whatever the shape says. The error is a bug in the built-in
// schema.
func (l *LoadCheck) Bundle(doc declcfg.Document, pkg, name string, decodes func(i int) bool) ([]declcfg.Finding, error) {
	c := l.fc
	c.diags = c.diags[:0]
	d := &docContext{c: c, file: doc.Pos.File, ref: blobRef{pkg: pkg, bundle: name}}
	root := declcfg.Deref(doc.Node)
	b := &declcfg.Bundle{Package: pkg, Name: name}
	var pkgProps []propertyNode
	csvMetadatas := 0
	for i, item := range items(field(root, "properties")) {
		item = declcfg.Deref(item)
		if item == nil || item.Kind != declcfg.MappingNode {
			continue
		}
		p := propertyNode{index: i, item: item, typ: strValue(field(item, "type")), value: field(item, "value")}
		if !opmDecodes[p.typ] {
			continue
		}
		required, strict := requiredStrings[p.typ]
		if !declcfg.IsNull(p.value) && (decodes == nil || !decodes(i) || !hasStrings(p.value, required)) {
			if c.schema == nil {
				s, err := compiledSchema()
				if err != nil {
					return nil, err
				}
				c.schema = s
			}
			sh := c.schema.properties[p.typ]
			sh.Walk(p.value, p.path(), func(rule string, n *declcfg.Node, _ *shape.Path, msg string) {
				if rule == declcfg.RuleFieldType || strict && (rule == RuleMissingField || rule == RuleEmptyValue) {
					d.report(rule, n, msg)
				}
			})
		}
		switch p.typ {
		case declcfg.PropertyPackage:
			pkgProps = append(pkgProps, p)
		case declcfg.PropertyBundleObject:
			c.checkBundleObject(d, p, fmt.Sprintf("properties[%d]", p.index), true)
		case declcfg.PropertyCSVMetadata:
			csvMetadatas++
			csvMetadataCount(d, name, p, csvMetadatas)
		}
	}
	c.packageProperties(d, root, b, pkgProps)
	out := slices.DeleteFunc(slices.Clone(c.diags), func(f declcfg.Finding) bool { return !loadRules[f.Rule] })
	declcfg.SortFindings(out)
	return out, nil
}
