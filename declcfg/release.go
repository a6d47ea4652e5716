package declcfg

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// MaxReleaseLength is the longest release OLM accepts (the CSV CRD's limit).
const MaxReleaseLength = 20

// Release is an olm.package release: dot-separated semver prerelease
// identifiers that tell rebuilds of one version apart. nil is no release.
type Release []semver.PRVersion

// ParseRelease parses a release as OLM does: at most MaxReleaseLength
// characters of dot-separated alphanumeric identifiers, numeric ones without
// leading zeros. "" is no release.
func ParseRelease(s string) (Release, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > MaxReleaseLength {
		return nil, fmt.Errorf("release %q is longer than %d characters", s, MaxReleaseLength)
	}
	segs := strings.Split(s, ".")
	r := make(Release, 0, len(segs))
	for i, seg := range segs {
		pr, err := semver.NewPRVersion(seg)
		if err != nil {
			return nil, fmt.Errorf("release %q: segment %d: %v", s, i, err)
		}
		r = append(r, pr)
	}
	return r, nil
}

func (r Release) String() string {
	parts := make([]string, len(r))
	for i, p := range r {
		parts[i] = p.String()
	}
	return strings.Join(parts, ".")
}

// Compare orders releases: any release is above none; otherwise identifiers
// compare as semver prerelease identifiers do.
func (r Release) Compare(o Release) int {
	switch {
	case len(r) == 0 && len(o) == 0:
		return 0
	case len(r) == 0:
		return -1
	case len(o) == 0:
		return 1
	}
	return semver.Version{Pre: r}.Compare(semver.Version{Pre: o})
}

// VersionRelease is a bundle's place in OLM's order of bundles: its version,
// then its release.
type VersionRelease struct {
	Version semver.Version
	Release Release
}

// Compare orders by version, then release.
func (v VersionRelease) Compare(o VersionRelease) int {
	if c := v.Version.Compare(o.Version); c != 0 {
		return c
	}
	return v.Release.Compare(o.Release)
}

func (v VersionRelease) String() string {
	if len(v.Release) == 0 {
		return v.Version.String()
	}
	return v.Version.String() + " release " + v.Release.String()
}

// annotationSubstitutesFor marks a CSV that substitutes for another; OLM
// reads such a bundle's build metadata as its release.
const annotationSubstitutesFor = "olm.substitutesFor"

// VersionRelease reads a bundle's version and release from its single
// olm.package property, as OLM orders bundles. A bundle without a release
// whose CSV has the olm.substitutesFor annotation (the older way to publish
// a rebuild) has its version's build metadata read as the release, and the
// build metadata dropped.
func (b *Bundle) VersionRelease() (VersionRelease, error) {
	pkgs, err := PackageProperties(b.Properties)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("bundle %q: %w", b.Name, err)
	}
	if len(pkgs) != 1 {
		return VersionRelease{}, fmt.Errorf("bundle %q must have exactly 1 %q property, found %d", b.Name, PropertyPackage, len(pkgs))
	}
	v, err := semver.Parse(pkgs[0].Version)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("bundle %q: version %q is not strict semver: %v", b.Name, pkgs[0].Version, err)
	}
	r, err := ParseRelease(pkgs[0].Release)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("bundle %q: %v", b.Name, err)
	}
	vr := VersionRelease{Version: v, Release: r}
	if len(r) == 0 && len(v.Build) > 0 && b.substitutesFor() {
		if vr.Release, err = ParseRelease(strings.Join(v.Build, ".")); err != nil {
			return VersionRelease{}, fmt.Errorf("bundle %q: its CSV has %s, so the build metadata of version %q is its release, but: %v",
				b.Name, annotationSubstitutesFor, pkgs[0].Version, err)
		}
		vr.Version.Build = nil
	}
	return vr, nil
}

// substitutesFor reports whether the bundle's CSV (in olm.bundle.object or
// olm.csv.metadata) has a non-empty olm.substitutesFor annotation.
func (b *Bundle) substitutesFor() bool {
	for _, p := range b.Properties {
		var md CSVMetadata
		if p.Type == PropertyCSVMetadata && p.Decode(&md) == nil && md.Annotations[annotationSubstitutesFor] != "" {
			return true
		}
	}
	raw, err := BundleCSV(b.Properties)
	if err != nil || raw == nil {
		return false
	}
	csv, _ := ParseCSV(raw)
	return csv.Metadata.Annotations[annotationSubstitutesFor] != ""
}
