package graph

import (
	"encoding/json"
	"errors"
	"testing"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

type rangeCase struct {
	Range      string   `json:"range"`
	Matches    []string `json:"matches"`
	NonMatches []string `json:"non_matches"`
	Error      string   `json:"error"`
}

type rangeVectors struct {
	Probes      []string    `json:"probe_versions"`
	Masterminds []rangeCase `json:"version_range_masterminds_semver_v3_NewConstraint"`
	CRD         struct {
		Cases []struct {
			Input    string `json:"input"`
			Accepted bool   `json:"accepted"`
		} `json:"cases"`
	} `json:"clusterextension_version_crd_cel_regex"`
}

func loadRangeVectors(t *testing.T) rangeVectors {
	data := sharedtest.ReadVector(t, "ranges.json")
	var rv rangeVectors
	if err := json.Unmarshal(data, &rv); err != nil {
		t.Fatalf("ranges.json: %v", err)
	}
	if len(rv.Masterminds) == 0 || len(rv.CRD.Cases) == 0 {
		t.Fatal("ranges.json: missing cases")
	}
	return rv
}

// TestVersionRangeVectors pins the v1 version constraint to Masterminds
// semver v3 applied as operator-controller applies it.
func TestVersionRangeVectors(t *testing.T) {
	rv := loadRangeVectors(t)
	for _, c := range rv.Masterminds {
		t.Run(c.Range, func(t *testing.T) {
			r, err := ParseVersionRange(c.Range)
			if c.Error != "" {
				if err == nil || errors.Unwrap(err) == nil || errors.Unwrap(err).Error() != c.Error {
					t.Fatalf("error = %v, want one wrapping %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			for _, m := range c.Matches {
				if !r.Contains(blang.MustParse(m)) {
					t.Errorf("%s should match", m)
				}
			}
			for _, m := range c.NonMatches {
				if r.Contains(blang.MustParse(m)) {
					t.Errorf("%s should not match", m)
				}
			}
		})
	}
}

// TestClusterExtensionVersionAdmission checks the CRD's CEL rule for
// spec.source.catalog.version.
func TestClusterExtensionVersionAdmission(t *testing.T) {
	rv := loadRangeVectors(t)
	for _, c := range rv.CRD.Cases {
		if got, why := ClusterExtensionAccepts(c.Input); got != c.Accepted {
			t.Errorf("ClusterExtensionAccepts(%q) = %v (%s), want %v", c.Input, got, why, c.Accepted)
		}
	}
	long := ">=1.0.0 <2.0.0 || >=3.0.0 <4.0.0 || >=5.0.0 <6.0.0 || >=7.0.0 <8.0.0"
	if ok, why := ClusterExtensionAccepts(long); ok || why != "longer than 64 characters" {
		t.Errorf("a %d-character range: got %v %q", len(long), ok, why)
	}
}

func TestLegacyVersionRelease(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"1.0.0+1", "1.0.0", 1},     // a release beats none
		{"1.0.0+2", "1.0.0+10", -1}, // releases compare numerically
		{"1.0.0+02", "1.0.0", 0},    // not a release (leading zero): plain build metadata
		{"1.0.0+abc", "1.0.0+abd", -1},
		{"1.0.1", "1.0.0+9", 1},
		{"1.0.0-rc.1+5", "1.0.0", -1},
	} {
		a, b := blang.MustParse(tc.a), blang.MustParse(tc.b)
		if got := legacyVersionRelease(a).compare(legacyVersionRelease(b)); got != tc.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
