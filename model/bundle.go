package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// Bundle is one olm.bundle blob with its olm.package version parsed and the
// properties OLM acts on decoded.
type Bundle struct {
	Name    string
	Package *Package
	Image   string
	// Blob is the bundle's olm.bundle blob (the first of its name).
	Blob *declcfg.Bundle
	Pos  declcfg.Pos

	// Version is the olm.package property's version as written; empty when
	// the bundle does not have exactly one olm.package property.
	Version string
	// SemVer is Version parsed as strict semver (what FBC requires); zero
	// when VersionErr is set.
	SemVer     semver.Version
	VersionErr error
	// Release is the olm.package property's release as written, if any;
	// ReleaseErr says why it is not a valid release.
	Release    string
	ReleaseErr error

	// LegacyDeprecated marks the legacy olm.deprecated property, which OLM
	// classic reads as "never install".
	LegacyDeprecated bool
	// Deprecation is set when an olm.deprecations entry deprecates the
	// bundle.
	Deprecation *Deprecation
	// Entries are the bundle's entries, one per channel that lists it, in
	// channel order.
	Entries []*Entry
	// Index is the bundle's place in Package.Bundles.
	Index int

	// The typed property values are decoded on first use (Provides,
	// Labels, Requires): simulating upgrades needs none of them.
	propsOnce sync.Once
	provides  []declcfg.GVK
	labels    []string
	requires  []Requirement
	// cluster holds olm.maxOpenShiftVersion and minKubeVersion
	// (MaxOpenShiftVersion, MinKubeVersion), decoded on first use.
	cluster clusterFacts
}

// Requirement is one dependency a bundle declares. Exactly one of GVK,
// Package, Label and Constraint is set, by Type, unless the value does not
// decode (Err).
type Requirement struct {
	// Type is the property type: olm.gvk.required, olm.package.required,
	// olm.label.required or olm.constraint.
	Type       string
	GVK        *declcfg.GVK
	Package    *PackageRequirement
	Label      string
	Constraint *declcfg.Constraint
	Err        error
	Pos        declcfg.Pos
}

// PackageRequirement is an olm.package.required value with its range
// parsed the way OLM parses it (blang/semver ParseRange).
type PackageRequirement struct {
	Name         string
	VersionRange string
	// Range is nil when VersionRange does not parse (RangeErr).
	Range    semver.Range
	RangeErr error
}

func newBundle(p *Package, b *declcfg.Bundle) *Bundle {
	nb := &Bundle{Name: b.Name, Package: p, Image: b.Image, Blob: b, Pos: b.Pos}
	pkgs, err := declcfg.PackageProperties(b.Properties)
	switch {
	case err != nil:
		nb.VersionErr = err
	case len(pkgs) != 1:
		nb.VersionErr = fmt.Errorf("bundle %q must have exactly 1 %q property, found %d", b.Name, declcfg.PropertyPackage, len(pkgs))
	default:
		nb.Version, nb.Release = pkgs[0].Version, pkgs[0].Release
		v, err := semver.Parse(nb.Version)
		if err != nil {
			nb.VersionErr = fmt.Errorf("invalid version %q: %w", nb.Version, err)
		} else {
			nb.SemVer = v
		}
		if nb.Release != "" {
			_, nb.ReleaseErr = declcfg.ParseRelease(nb.Release)
		}
	}
	for _, prop := range b.Properties {
		if prop.Type == declcfg.PropertyDeprecated {
			nb.LegacyDeprecated = true
		}
	}
	return nb
}

// decodeProperties decodes the typed property values, once.
func (b *Bundle) decodeProperties() {
	b.propsOnce.Do(func() {
		for _, prop := range b.Blob.Properties {
			switch prop.Type {
			case declcfg.PropertyGVK:
				var g declcfg.GVK
				if prop.Decode(&g) == nil {
					b.provides = append(b.provides, g)
				}
			case declcfg.PropertyLabel:
				var l declcfg.Label
				if prop.Decode(&l) == nil {
					b.labels = append(b.labels, l.Label)
				}
			case declcfg.PropertyGVKRequired, declcfg.PropertyPackageRequired, declcfg.PropertyLabelRequired, declcfg.PropertyConstraint:
				b.requires = append(b.requires, newRequirement(prop))
			}
		}
	})
}

// Provides lists the olm.gvk properties: the APIs the bundle owns.
func (b *Bundle) Provides() []declcfg.GVK {
	b.decodeProperties()
	return b.provides
}

// Labels lists the olm.label properties.
func (b *Bundle) Labels() []string {
	b.decodeProperties()
	return b.labels
}

// Requires lists the dependencies the bundle declares, in property order:
// one per olm.gvk.required, olm.package.required, olm.label.required and
// olm.constraint property.
func (b *Bundle) Requires() []Requirement {
	b.decodeProperties()
	return b.requires
}

func newRequirement(prop declcfg.Property) Requirement {
	r := Requirement{Type: prop.Type, Pos: prop.Pos}
	switch prop.Type {
	case declcfg.PropertyGVKRequired:
		var g declcfg.GVK
		if r.Err = prop.Decode(&g); r.Err == nil {
			r.GVK = &g
		}
	case declcfg.PropertyPackageRequired:
		var pr declcfg.PackageRequired
		if r.Err = prop.Decode(&pr); r.Err == nil {
			r.Package = &PackageRequirement{Name: pr.PackageName, VersionRange: pr.VersionRange}
			r.Package.Range, r.Package.RangeErr = declcfg.ParseRange(pr.VersionRange)
		}
	case declcfg.PropertyLabelRequired:
		var l declcfg.Label
		if r.Err = prop.Decode(&l); r.Err == nil {
			r.Label = l.Label
		}
	case declcfg.PropertyConstraint:
		var c declcfg.Constraint
		if r.Err = prop.Decode(&c); r.Err == nil {
			r.Constraint = &c
		}
	}
	return r
}

// HasVersion reports whether the bundle's version parsed as strict semver.
func (b *Bundle) HasVersion() bool { return b.VersionErr == nil }

// versionID identifies a semver version (build metadata included) as a
// map key, allocating only for prerelease and build parts.
type versionID struct {
	major, minor, patch uint64
	pre, build          string
}

func idOf(v semver.Version) versionID {
	id := versionID{major: v.Major, minor: v.Minor, patch: v.Patch}
	if len(v.Pre) > 0 {
		parts := make([]string, len(v.Pre))
		for i, p := range v.Pre {
			parts[i] = p.String()
		}
		id.pre = strings.Join(parts, ".")
	}
	if len(v.Build) > 0 {
		id.build = strings.Join(v.Build, ".")
	}
	return id
}

// versionKey is what must be unique per package: the version and the
// release, when both are valid.
type versionKey struct {
	versionID
	release string
}

func (b *Bundle) versionKey() (versionKey, bool) {
	if b.VersionErr != nil || b.ReleaseErr != nil {
		return versionKey{}, false
	}
	return versionKey{idOf(b.SemVer), b.Release}, true
}

// versionText is version[-release], as messages write it.
func (b *Bundle) versionText() string {
	if b.Release == "" {
		return b.SemVer.String()
	}
	return b.SemVer.String() + "-" + b.Release
}

// trailingVersion finds the version a bundle name ends with
// (foo.v1.2.3 -> 1.2.3).
var trailingVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[.-])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)
})

// NameVersion returns the version a bundle name ends with, as bundles are
// conventionally named (<operator>.v<version>).
func NameVersion(name string) (semver.Version, bool) {
	m := trailingVersion().FindStringSubmatch(name)
	if m == nil {
		return semver.Version{}, false
	}
	v, err := semver.Parse(m[1])
	return v, err == nil
}

// Objects returns the bundle's olm.bundle.object manifests as JSON (YAML
// manifests converted, as opm does when it loads them). It decodes them
// on every call.
func (b *Bundle) Objects() ([][]byte, error) {
	raw, err := declcfg.BundleObjects(b.Blob.Properties)
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
	}
	for i, data := range raw {
		j, err := declcfg.ObjectJSON(data)
		if err != nil {
			return nil, fmt.Errorf("bundle %q: olm.bundle.object %d: %w", b.Name, i, err)
		}
		raw[i] = j
	}
	return raw, nil
}

// CSVJSON returns the bundle's ClusterServiceVersion manifest as JSON, nil
// when no olm.bundle.object holds one (declcfg.BundleCSV).
func (b *Bundle) CSVJSON() ([]byte, error) {
	csv, err := declcfg.BundleCSV(b.Blob.Properties)
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
	}
	return csv, nil
}

// InstallMode is one of a CSV's spec.installModes.
type InstallMode = declcfg.CSVInstallMode

// Webhook is one of a CSV's spec.webhookdefinitions.
type Webhook = declcfg.CSVWebhook

// CSVFacts are what OLM reads of a bundle's CSV when it installs it: the
// install modes, the APIServices it owns, its webhooks.
type CSVFacts struct {
	// Source says where they come from: "csv" (the CSV among the bundle's
	// olm.bundle.object properties), "olm.csv.metadata" (which has no
	// webhooks), or "" when the bundle carries neither.
	Source       string
	InstallModes []InstallMode
	// OwnedAPIServices name the owned APIServices (VERSION.GROUP).
	OwnedAPIServices []string
	// Webhooks is nil when Source is not "csv".
	Webhooks []Webhook
}

// Supports reports whether the CSV declares an install mode supported.
func (f CSVFacts) Supports(mode string) bool {
	for _, m := range f.InstallModes {
		if m.Type == mode && m.Supported {
			return true
		}
	}
	return false
}

// CSVFacts reads the bundle's install modes, owned APIServices and
// webhooks from its CSV (olm.bundle.object), else from its
// olm.csv.metadata. It decodes them on every call.
func (b *Bundle) CSVFacts() (CSVFacts, error) {
	owned := func(list []declcfg.CSVAPIServiceDescription) []string {
		var out []string
		for _, a := range list {
			out = append(out, a.Version+"."+a.Group)
		}
		return out
	}
	raw, err := b.CSVJSON()
	if err != nil {
		return CSVFacts{}, err
	}
	if raw != nil {
		csv, err := declcfg.ParseCSV(raw)
		if err != nil {
			return CSVFacts{}, fmt.Errorf("bundle %q: its ClusterServiceVersion: %w", b.Name, err)
		}
		return CSVFacts{Source: "csv", InstallModes: csv.Spec.InstallModes, OwnedAPIServices: owned(csv.Spec.APIServices.Owned),
			Webhooks: append([]Webhook{}, csv.Spec.Webhooks...)}, nil
	}
	for _, p := range b.Blob.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		var m declcfg.CSVMetadata
		if err := p.Decode(&m); err != nil {
			return CSVFacts{}, fmt.Errorf("bundle %q: %s: %w", b.Name, declcfg.PropertyCSVMetadata, err)
		}
		return CSVFacts{Source: declcfg.PropertyCSVMetadata, InstallModes: m.InstallModes, OwnedAPIServices: owned(m.APIServiceDefinitions.Owned)}, nil
	}
	return CSVFacts{}, nil
}
