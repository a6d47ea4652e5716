package model

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// TestSkipRangeVectors pins skipRange parsing to blang/semver v4 (every case
// of ranges.json: matches, non-matches and exact error texts) and checks
// that the edge index's intervals hold every match.
func TestSkipRangeVectors(t *testing.T) {
	data := sharedtest.ReadVector(t, "ranges.json")
	var rv struct {
		Blang []struct {
			Range      string   `json:"range"`
			Matches    []string `json:"matches"`
			NonMatches []string `json:"non_matches"`
			Error      string   `json:"error"`
		} `json:"skipRange_blang_semver_v4_ParseRange"`
	}
	if err := json.Unmarshal(data, &rv); err != nil || len(rv.Blang) == 0 {
		t.Fatalf("ranges.json: %v, %d cases", err, len(rv.Blang))
	}
	for _, c := range rv.Blang {
		t.Run(c.Range, func(t *testing.T) {
			r, err := declcfg.ParseRange(c.Range)
			if c.Error != "" {
				if err == nil || err.Error() != c.Error {
					t.Fatalf("error = %v, want %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			bounds := rangeBounds(c.Range)
			for _, m := range c.Matches {
				v := semver.MustParse(m)
				if !r(v) {
					t.Errorf("%s should match", m)
				}
				if !slices.ContainsFunc(bounds, func(iv interval) bool { return iv.contains(v) }) {
					t.Errorf("%s matches but lies outside the index bounds %v", m, bounds)
				}
			}
			for _, m := range c.NonMatches {
				if r(semver.MustParse(m)) {
					t.Errorf("%s should not match", m)
				}
			}
		})
	}
}

// FuzzRangeBounds checks that the skipRange index never hides a match: any
// version blang's range matches lies inside one of the index intervals.
func FuzzRangeBounds(f *testing.F) {
	for _, s := range []string{">=1.0.0 <2.0.0", "< 1.0.0 !0.0.0", "1.x", ">1.2.x", "! 1.0.0", "<1.0.0 || >=2.0.0 <3.0.0",
		"=1.0.0 || =2.0.0", ">= 1.0.0", "1.0.0 - 2.0.0", "<=1.0.0+1", "!=1.2.x", ">=0.1.0-1556661347 <0.1.0-1556661832"} {
		f.Add(s, "1.0.0")
		f.Add(s, "0.0.1")
		f.Add(s, "2.0.0-alpha")
	}
	f.Fuzz(func(t *testing.T, rng, ver string) {
		if len(rng) > 200 {
			return
		}
		r, err := declcfg.ParseRange(rng)
		if err != nil {
			return
		}
		v, err := semver.Parse(ver)
		if err != nil || !r(v) {
			return
		}
		for _, iv := range rangeBounds(rng) {
			if iv.contains(v) {
				return
			}
		}
		t.Fatalf("range %q matches %s but no index interval %v contains it", rng, ver, rangeBounds(rng))
	})
}
