package declcfg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Property types with a typed value.
const (
	PropertyPackage         = "olm.package"
	PropertyGVK             = "olm.gvk"
	PropertyPackageRequired = "olm.package.required"
	PropertyGVKRequired     = "olm.gvk.required"
	PropertyBundleObject    = "olm.bundle.object"
	PropertyCSVMetadata     = "olm.csv.metadata"
	PropertyConstraint      = "olm.constraint"
	PropertyChannel         = "olm.channel"
	PropertyLabel           = "olm.label"
	PropertyLabelRequired   = "olm.label.required"
	PropertyDeprecated      = "olm.deprecated"
	PropertyMaxOCPVersion   = "olm.maxOpenShiftVersion"
)

// Property is a typed key/value attached to a package, channel or bundle.
// Value is kept as the JSON it was written as (key order preserved).
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`

	Pos Pos `json:"-"`
}

// PackageProperty is the value of olm.package.
type PackageProperty struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// GVK is the value of olm.gvk and olm.gvk.required.
type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// PackageRequired is the value of olm.package.required.
type PackageRequired struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// BundleObject is the value of olm.bundle.object: one manifest of the bundle,
// base64-encoded JSON or YAML.
type BundleObject struct {
	Data []byte `json:"data"`
}

// Label is the value of olm.label.
type Label struct {
	Label string `json:"label"`
}

// Constraint is the value of olm.constraint: exactly one of the constraint
// kinds is set.
type Constraint struct {
	FailureMessage string              `json:"failureMessage,omitempty"`
	Cel            *CelConstraint      `json:"cel,omitempty"`
	All            *CompoundConstraint `json:"all,omitempty"`
	Any            *CompoundConstraint `json:"any,omitempty"`
	Not            *CompoundConstraint `json:"not,omitempty"`
	GVK            *GVK                `json:"gvk,omitempty"`
	Package        *PackageRequired    `json:"package,omitempty"`
}

// CelConstraint is a CEL rule over bundle properties.
type CelConstraint struct {
	Rule string `json:"rule"`
}

// CompoundConstraint combines constraints.
type CompoundConstraint struct {
	Constraints []Constraint `json:"constraints"`
}

// HasProperty reports whether props hold a property of type typ.
func HasProperty(props []Property, typ string) bool {
	for _, p := range props {
		if p.Type == typ {
			return true
		}
	}
	return false
}

// NewProperty builds a property from a typed value.
func NewProperty(typ string, value any) (Property, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		return Property{}, fmt.Errorf("encoding %s property: %w", typ, err)
	}
	return Property{Type: typ, Value: bytes.TrimRight(buf.Bytes(), "\n")}, nil
}

// MustProperty is NewProperty for values that always encode.
func MustProperty(typ string, value any) Property {
	p, err := NewProperty(typ, value)
	if err != nil {
		panic(err)
	}
	return p
}

// Decode unmarshals the property's value into v.
func (p Property) Decode(v any) error {
	if err := json.Unmarshal(p.Value, v); err != nil {
		return fmt.Errorf("property of type %q: %w", p.Type, err)
	}
	return nil
}

// PackageProperties returns the olm.package values of props, in order.
func PackageProperties(props []Property) ([]PackageProperty, error) {
	var out []PackageProperty
	for _, p := range props {
		if p.Type != PropertyPackage {
			continue
		}
		var v PackageProperty
		if err := decodePackageProperty(p.Value, &v); err != nil {
			return nil, fmt.Errorf("property of type %q: %w", p.Type, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// decodePackageProperty accepts release as a string or a number, as bundle
// CSVs write it either way.
func decodePackageProperty(raw json.RawMessage, v *PackageProperty) error {
	if simplePackageProperty(raw, v) {
		return nil
	}
	return decodePackagePropertyJSON(raw, v)
}

func decodePackagePropertyJSON(raw json.RawMessage, v *PackageProperty) error {
	var aux struct {
		PackageName string          `json:"packageName"`
		Version     string          `json:"version"`
		Release     json.RawMessage `json:"release,omitempty"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return err
	}
	v.PackageName, v.Version = aux.PackageName, aux.Version
	if len(aux.Release) > 0 && string(aux.Release) != "null" {
		var s string
		if err := json.Unmarshal(aux.Release, &s); err != nil {
			var n json.Number
			if err := json.Unmarshal(aux.Release, &n); err != nil {
				return fmt.Errorf("release must be a string: %s", aux.Release)
			}
			s = n.String()
		}
		v.Release = s
	}
	return nil
}

// Version returns the single olm.package version of a bundle, or an error
// naming how many olm.package properties it has.
func (b *Bundle) Version() (string, error) {
	pkgs, err := PackageProperties(b.Properties)
	if err != nil {
		return "", err
	}
	if len(pkgs) != 1 {
		return "", fmt.Errorf("bundle %q must have exactly 1 %q property, found %d", b.Name, PropertyPackage, len(pkgs))
	}
	return pkgs[0].Version, nil
}

// BundleObjects returns the decoded olm.bundle.object manifests of props
// (each the raw bytes the property's base64 data holds).
func BundleObjects(props []Property) ([][]byte, error) {
	var out [][]byte
	for i, p := range props {
		if p.Type != PropertyBundleObject {
			continue
		}
		data, err := DecodeBundleObject(p.Value)
		if err != nil {
			return nil, fmt.Errorf("property[%d] %s: %w", i, p.Type, err)
		}
		out = append(out, data)
	}
	return out, nil
}

// DecodeBundleObject decodes an olm.bundle.object value ({"data": base64}).
func DecodeBundleObject(value json.RawMessage) ([]byte, error) {
	var v struct {
		Data *string `json:"data"`
	}
	if err := json.Unmarshal(value, &v); err != nil {
		return nil, err
	}
	if v.Data == nil {
		return nil, fmt.Errorf("missing data")
	}
	out, err := base64.StdEncoding.DecodeString(*v.Data)
	if err != nil {
		return nil, fmt.Errorf("data is not base64: %w", err)
	}
	return out, nil
}

// simplePackageProperty reads the common shape of an olm.package value
// without encoding/json: one object whose keys are exactly packageName,
// version and release, each a string of printable ASCII without escapes.
// It gives up (false, v untouched) on anything else, which then takes the
// general path; when it accepts, the result is the general path's. Every
// bundle of a catalog has one such value: the model reads them all.
func simplePackageProperty(raw []byte, v *PackageProperty) bool {
	var out PackageProperty
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		i++
	} else {
		for {
			key, j, ok := simpleString(raw, i)
			if !ok {
				return false
			}
			j = skipSpace(raw, j)
			if j >= len(raw) || raw[j] != ':' {
				return false
			}
			val, j, ok := simpleString(raw, skipSpace(raw, j+1))
			if !ok {
				return false
			}
			switch key {
			case "packageName":
				out.PackageName = val
			case "version":
				out.Version = val
			case "release":
				out.Release = val
			default:
				return false
			}
			j = skipSpace(raw, j)
			if j >= len(raw) {
				return false
			}
			if raw[j] == '}' {
				i = j + 1
				break
			}
			if raw[j] != ',' {
				return false
			}
			i = skipSpace(raw, j+1)
		}
	}
	if skipSpace(raw, i) != len(raw) {
		return false
	}
	*v = out
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// simpleString reads a JSON string at b[i] made of printable ASCII without
// escapes, and returns it with the index after its closing quote.
func simpleString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return string(b[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", i, false
		}
	}
	return "", i, false
}
