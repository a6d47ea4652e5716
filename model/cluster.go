package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// MaxOpenShift is a bundle's olm.maxOpenShiftVersion as OLM reads it
// (operator-lifecycle-manager's openshift.maxOpenShiftVersion): the raw
// value with its quotes trimmed, parsed tolerantly (blang ParseTolerant),
// and refused when it has a patch, a prerelease or build metadata, when it
// is empty, or when the bundle has more than one such property.
type MaxOpenShift struct {
	// Raw is the value as the catalog writes it (JSON).
	Raw string
	// Version is the release; zero when Err is set.
	Version declcfg.MinorVersion
	// Err says why OLM cannot read the value. OLM then marks the cluster
	// not upgradeable for as long as the bundle is installed.
	Err error
	// Loose says how the value differs from MAJOR.MINOR when OLM reads it
	// all the same ("v4.18", "4.18.0", "4"); empty when it is written as
	// MAJOR.MINOR, as a string or a number.
	Loose string
	Pos   declcfg.Pos
}

// ErrSeveralMaxOpenShift is the error of a bundle with more than one
// olm.maxOpenShiftVersion property, which OLM refuses.
var ErrSeveralMaxOpenShift = errors.New("is one of several olm.maxOpenShiftVersion properties of the bundle, which OLM refuses")

// ParseMaxOpenShiftVersion reads one olm.maxOpenShiftVersion value the way
// OLM does. loose is set when OLM reads the value although it is not
// written MAJOR.MINOR. The errors and loose are predicates, to follow the
// value: `"4.18.1" has a patch ...`.
func ParseMaxOpenShiftVersion(raw json.RawMessage) (v declcfg.MinorVersion, loose string, err error) {
	// OLM trims the quotes of the raw JSON: "4.18" and 4.18 read alike.
	value := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if value == "" {
		return declcfg.MinorVersion{}, "", errors.New("is empty, which OLM refuses")
	}
	sv, err := semver.ParseTolerant(value)
	if err != nil {
		return declcfg.MinorVersion{}, "", errors.New("is not a version OLM can read")
	}
	if sv.Patch != 0 || len(sv.Pre) > 0 || len(sv.Build) > 0 {
		return declcfg.MinorVersion{}, "", errors.New("has a patch, prerelease or build part, which OLM refuses")
	}
	v = declcfg.MinorVersion{Major: sv.Major, Minor: sv.Minor}
	if value != v.String() {
		loose = "is not written MAJOR.MINOR; OLM reads it as " + v.String()
	}
	return v, loose, nil
}

// clusterFacts are what a bundle says about the clusters it runs on,
// decoded on first use: most commands never ask.
type clusterFacts struct {
	once    sync.Once
	max     *MaxOpenShift
	minKube string
	kubeErr error
}

// MaxOpenShiftVersion returns the bundle's olm.maxOpenShiftVersion, nil
// when it has none.
func (b *Bundle) MaxOpenShiftVersion() *MaxOpenShift {
	b.cluster.once.Do(b.decodeCluster)
	return b.cluster.max
}

// MinKubeVersion returns the CSV's spec.minKubeVersion as written, from
// olm.csv.metadata or else from the ClusterServiceVersion among the
// olm.bundle.object manifests; "" when the bundle declares none. The error
// says why the manifests could not be read.
func (b *Bundle) MinKubeVersion() (string, error) {
	b.cluster.once.Do(b.decodeCluster)
	return b.cluster.minKube, b.cluster.kubeErr
}

func (b *Bundle) decodeCluster() {
	f := &b.cluster
	hasObjects := false
	for _, p := range b.Blob.Properties {
		switch p.Type {
		case declcfg.PropertyMaxOCPVersion:
			if f.max != nil {
				f.max.Err = ErrSeveralMaxOpenShift
				continue
			}
			m := &MaxOpenShift{Raw: string(p.Value), Pos: p.Pos}
			m.Version, m.Loose, m.Err = ParseMaxOpenShiftVersion(p.Value)
			f.max = m
		case declcfg.PropertyCSVMetadata:
			var md struct {
				MinKubeVersion string `json:"minKubeVersion"`
			}
			if err := p.Decode(&md); err != nil {
				f.kubeErr = fmt.Errorf("bundle %q: %w", b.Name, err)
			} else if f.minKube == "" {
				f.minKube = md.MinKubeVersion
			}
		case declcfg.PropertyBundleObject:
			hasObjects = true
		}
	}
	if f.minKube != "" || !hasObjects {
		return
	}
	raw, err := b.CSVJSON()
	if err != nil {
		f.kubeErr = err
		return
	}
	if raw == nil {
		return
	}
	csv, err := declcfg.ParseCSV(raw)
	if err != nil {
		f.kubeErr = fmt.Errorf("bundle %q: ClusterServiceVersion: %w", b.Name, err)
		return
	}
	f.minKube = csv.Spec.MinKubeVersion
}

// ParseMinKubeVersion reads a minKubeVersion the way OLM classic does when
// it installs a CSV (coreos/go-semver after trimming a leading v: exactly
// MAJOR.MINOR.PATCH, with an optional prerelease and build metadata).
// A value it cannot parse fails the CSV's requirements on every cluster.
func ParseMinKubeVersion(s string) (semver.Version, error) {
	t := strings.TrimPrefix(s, "v")
	core := t
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return semver.Version{}, fmt.Errorf("minKubeVersion %q is not MAJOR.MINOR.PATCH, which OLM requires", s)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return semver.Version{}, fmt.Errorf("minKubeVersion %q is not MAJOR.MINOR.PATCH, which OLM requires", s)
		}
	}
	v, err := semver.ParseTolerant(t)
	if err != nil {
		return semver.Version{}, fmt.Errorf("minKubeVersion %q: %v", s, err)
	}
	return v, nil
}
