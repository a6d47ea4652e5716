package declcfg

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVersionReleaseOrder(t *testing.T) {
	bundle := func(version, release string, csvAnnotations map[string]string, asMetadata bool) Bundle {
		b := Bundle{Name: "b", Properties: []Property{MustProperty(PropertyPackage, PackageProperty{PackageName: "p", Version: version, Release: release})}}
		if csvAnnotations == nil {
			return b
		}
		if asMetadata {
			b.Properties = append(b.Properties, MustProperty(PropertyCSVMetadata, CSVMetadata{Annotations: csvAnnotations}))
			return b
		}
		csv, _ := json.Marshal(map[string]any{"kind": "ClusterServiceVersion", "metadata": map[string]any{"annotations": csvAnnotations}})
		b.Properties = append(b.Properties, MustProperty(PropertyBundleObject, BundleObject{Data: csv}))
		return b
	}
	subst := map[string]string{"olm.substitutesFor": "b.v1.0.0"}
	tests := []struct {
		name   string
		a, b   Bundle
		want   int
		wantA  string
		errSub string
	}{
		{"version first", bundle("1.0.1", "", nil, false), bundle("1.0.0", "9", nil, false), 1, "1.0.1", ""},
		{"a release above none", bundle("1.0.0", "1", nil, false), bundle("1.0.0", "", nil, false), 1, "1.0.0 release 1", ""},
		{"releases as prerelease identifiers", bundle("1.0.0", "2", nil, false), bundle("1.0.0", "10", nil, false), -1, "1.0.0 release 2", ""},
		{"alphanumeric above numeric", bundle("1.0.0", "a", nil, false), bundle("1.0.0", "10", nil, false), 1, "1.0.0 release a", ""},
		{"build metadata does not order", bundle("1.0.0+2", "", nil, false), bundle("1.0.0", "", nil, false), 0, "1.0.0+2", ""},
		{"legacy: build metadata is the release", bundle("1.0.0+2", "", subst, false), bundle("1.0.0", "", nil, false), 1, "1.0.0 release 2", ""},
		{"legacy through olm.csv.metadata", bundle("1.0.0+2", "", subst, true), bundle("1.0.0", "1", nil, false), 1, "1.0.0 release 2", ""},
		{"legacy needs the annotation set", bundle("1.0.0+2", "", map[string]string{"olm.substitutesFor": ""}, false), bundle("1.0.0", "", nil, false), 0, "1.0.0+2", ""},
		{"bad release", bundle("1.0.0", "01", nil, false), bundle("1.0.0", "", nil, false), 0, "", `bundle "b": release "01": segment 0`},
		{"legacy bad release", bundle("1.0.0+01", "", subst, false), bundle("1.0.0", "", nil, false), 0, "", "so the build metadata"},
		{"long release", bundle("1.0.0", "123456789012345678901", nil, false), bundle("1.0.0", "", nil, false), 0, "", "longer than 20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.a.VersionRelease()
			if tt.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Fatalf("got %v, want an error with %q", err, tt.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := tt.b.VersionRelease()
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Compare(b); got != tt.want {
				t.Errorf("compare %s with %s: %d, want %d", a, b, got, tt.want)
			}
			if got := b.Compare(a); got != -tt.want {
				t.Errorf("compare %s with %s: %d, want %d", b, a, got, -tt.want)
			}
			if a.String() != tt.wantA {
				t.Errorf("string %q, want %q", a, tt.wantA)
			}
		})
	}
}
