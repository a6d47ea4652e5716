package resolve

import (
	"encoding/json"
	"sync"

	"github.com/blang/semver/v4"
)

// Property types the resolver reads.
const (
	typePackage         = "olm.package"
	typeGVK             = "olm.gvk"
	typeLabel           = "olm.label"
	typeDeprecated      = "olm.deprecated"
	typeGVKRequired     = "olm.gvk.required"
	typePackageRequired = "olm.package.required"
	typeLabelRequired   = "olm.label.required"
	typeConstraint      = "olm.constraint"
)

// catalog is a catalog as the resolver holds it: a CatalogSource, or the
// "virtual" catalog of the CSVs installed in a namespace (OLM's
// "@existing/NAMESPACE").
type catalog struct {
	key      CatalogKey
	priority int
	virtual  bool
	entries  []*entry
	err      error

	// chains caches the channel order of each package and channel.
	mu     sync.Mutex
	groups map[pkgChannel][]*entry
	chains map[pkgChannel]chainResult
}

type pkgChannel struct{ pkg, channel string }

type chainResult struct {
	chain []*entry
	err   error
}

const existingCatalog = "@existing"

// olmString is the catalog as OLM's identifiers write it.
func (c *catalog) olmString() string {
	if c.virtual {
		return existingCatalog + "/" + c.key.Namespace
	}
	return c.key.olmString()
}

// entry is one candidate bundle: a catalog entry (bundle × channel) or an
// installed CSV.
type entry struct {
	name, pkg, channel string
	defaultChannel     bool
	catalog            *catalog
	replaces           string
	skips              []string
	skipRange          semver.Range
	version            *semver.Version
	// props are the properties the resolver reads: for a catalog entry the
	// served properties followed by the dependencies OLM translates back
	// into properties (so every olm.gvk.required and olm.package.required
	// is there twice, as in OLM).
	props []Property

	// What the entry is, parsed once from props.
	packages   []packageIdentity
	gvks       []gvk
	labels     []string
	deprecated bool

	// referenced marks an installed CSV that a Subscription names in
	// status.installedCSV.
	referenced bool

	celOnce  sync.Once
	celProps []map[string]any
}

type packageIdentity struct {
	name string
	// version is the property's version parsed strictly; nil when it does
	// not parse.
	version *semver.Version
}

type gvk struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// identifier is OLM's variable name for the entry:
// CATALOG/NAMESPACE/CHANNEL/NAME.
func (e *entry) identifier() string {
	return e.catalog.olmString() + "/" + e.channel + "/" + e.name
}

// newCatalogEntry builds a catalog entry the way OLM's registry source does.
func newCatalogEntry(c *catalog, in Entry) *entry {
	e := &entry{
		name: in.Name, pkg: in.Package, channel: in.Channel, defaultChannel: in.DefaultChannel,
		catalog: c, replaces: in.Replaces, skips: in.Skips,
	}
	if v, err := semver.ParseTolerant(in.Version); err == nil {
		e.version = &v
	}
	// An unparsable skipRange is silently ignored, as in OLM.
	if in.SkipRange != "" {
		if r, err := semver.ParseRange(in.SkipRange); err == nil {
			e.skipRange = r
		}
	}
	e.props = append(make([]Property, 0, len(in.Properties)+2), in.Properties...)
	e.props = append(e.props, servedDependencies(in.Properties)...)
	hasPackage := false
	for _, p := range e.props {
		if p.Type == typePackage {
			hasPackage = true
		}
	}
	if !hasPackage {
		v, _ := json.Marshal(struct {
			PackageName string `json:"packageName"`
			Version     string `json:"version"`
		}{in.Package, in.Version})
		e.props = append(e.props, Property{Type: typePackage, Value: v})
	}
	e.parseIdentity()
	return e
}

// servedDependencies are the dependency properties OLM appends to a catalog
// entry: the catalog serves olm.gvk.required and olm.package.required a
// second time as "dependencies", and OLM turns those back into properties.
func servedDependencies(props []Property) []Property {
	var out []Property
	for _, p := range props {
		switch p.Type {
		case typeGVKRequired:
			if b, ok := reencode[requiredGVK](p.Value); ok {
				out = append(out, Property{Type: typeGVKRequired, Value: b})
			}
		case typePackageRequired:
			if b, ok := reencode[requiredPackage](p.Value); ok {
				out = append(out, Property{Type: typePackageRequired, Value: b})
			}
		}
	}
	return out
}

// reencode decodes a value into T and encodes it again (dropping unknown
// keys, in T's key order).
func reencode[T any](value json.RawMessage) (json.RawMessage, bool) {
	var v T
	if json.Unmarshal(value, &v) != nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

// The values of olm.gvk.required and olm.package.required as OLM decodes
// them. They are aliases of unnamed struct types, as in OLM, so that a
// decoding error names the same type.
type (
	requiredGVK = struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
	requiredPackage = struct {
		PackageName  string `json:"packageName"`
		VersionRange string `json:"versionRange"`
	}
)

// newInstalledEntry builds the entry of an installed CSV.
func newInstalledEntry(c *catalog, in Installed) *entry {
	e := &entry{name: in.Name, catalog: c, props: in.Properties}
	v, err := semver.ParseTolerant(in.Version)
	if err != nil {
		v = semver.Version{}
	}
	e.version = &v
	e.parseIdentity()
	// OLM files an installed CSV under the package its olm.package property
	// names (the last one, if several).
	for _, p := range e.packages {
		e.pkg = p.name
	}
	return e
}

// parseIdentity reads what the entry is and provides; values that do not
// decode are skipped, as OLM skips them.
func (e *entry) parseIdentity() {
	for _, p := range e.props {
		switch p.Type {
		case typePackage:
			var v struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}
			if json.Unmarshal(p.Value, &v) != nil {
				continue
			}
			id := packageIdentity{name: v.PackageName}
			if ver, err := semver.Parse(v.Version); err == nil {
				id.version = &ver
			}
			e.packages = append(e.packages, id)
		case typeGVK:
			var v gvk
			if json.Unmarshal(p.Value, &v) == nil {
				e.gvks = append(e.gvks, v)
			}
		case typeLabel:
			var v struct {
				Label string `json:"label"`
			}
			if json.Unmarshal(p.Value, &v) == nil {
				e.labels = append(e.labels, v.Label)
			}
		case typeDeprecated:
			e.deprecated = true
		}
	}
}

// celProperties are the properties as a CEL rule sees them, decoded once.
func (e *entry) celProperties() []map[string]any {
	e.celOnce.Do(func() {
		e.celProps = make([]map[string]any, len(e.props))
		for i, p := range e.props {
			var v any
			if json.Unmarshal(p.Value, &v) != nil {
				continue
			}
			e.celProps[i] = map[string]any{"type": p.Type, "value": v}
		}
	})
	return e.celProps
}
