// Package constraints reads the value of an olm.constraint property exactly
// as OLM does (operator-framework/api pkg/constraints): unknown keys and
// values over 128 KiB are refused with OLM's messages. The package and type
// names are OLM's too, because Go's JSON errors name them ("... of type
// constraints.GVKConstraint") and fbc reports OLM's text.
package constraints

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Constraint is one olm.constraint value: a failure message and one kind of
// requirement. When several kinds are set, OLM uses the first of gvk,
// package, all, any, not, cel.
type Constraint struct {
	FailureMessage string              `json:"failureMessage,omitempty"`
	Cel            *Cel                `json:"cel,omitempty"`
	Package        *PackageConstraint  `json:"package,omitempty"`
	GVK            *GVKConstraint      `json:"gvk,omitempty"`
	All            *CompoundConstraint `json:"all,omitempty"`
	Any            *CompoundConstraint `json:"any,omitempty"`
	Not            *CompoundConstraint `json:"not,omitempty"`
}

// Cel is a CEL rule over the candidate bundle's properties.
type Cel struct {
	Rule string `json:"rule"`
}

// CompoundConstraint holds the children of all, any and not.
type CompoundConstraint struct {
	Constraints []Constraint `json:"constraints"`
}

// GVKConstraint requires a bundle providing an API.
type GVKConstraint struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// PackageConstraint requires a bundle of a package in a version range.
type PackageConstraint struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// MaxSize is the largest value OLM reads (its comment says 64 KiB; the code
// allows 2<<16 bytes).
const MaxSize = 2 << 16

// Parse reads one value. Like OLM it reads the first JSON value only and
// matches keys case-insensitively (encoding/json), but refuses unknown ones.
func Parse(v []byte) (Constraint, error) {
	var c Constraint
	if len(v) > MaxSize {
		return c, fmt.Errorf("olm.constraint value is greater than max constraint size %d bytes", MaxSize)
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.DisallowUnknownFields()
	err := d.Decode(&c)
	return c, err
}
