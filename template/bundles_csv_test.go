package template

import (
	"encoding/base64"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// TestBundleCSV: the description and first icon of the bundle's CSV (a YAML
// object converted, as opm converts it), each field on its own as opm's
// semver template reads them, or the description of olm.csv.metadata.
func TestBundleCSV(t *testing.T) {
	object := func(manifest string) declcfg.Property {
		return declcfg.MustProperty(declcfg.PropertyBundleObject, map[string]string{"data": base64.StdEncoding.EncodeToString([]byte(manifest))})
	}
	for _, tc := range []struct {
		name    string
		props   []declcfg.Property
		desc    string
		icon    string // decoded data, "" for none
		wantErr bool
	}{
		{name: "json", props: []declcfg.Property{object(`{"kind":"ClusterServiceVersion","spec":{"description":"d","icon":[{"base64data":"aWNvbg==","mediatype":"image/png"}]}}`)},
			desc: "d", icon: "icon"},
		{name: "yaml", props: []declcfg.Property{object("kind: ClusterServiceVersion\nspec:\n  description: d\n  icon:\n  - base64data: aWNvbg==\n    mediatype: image/png\n")},
			desc: "d", icon: "icon"},
		{name: "a wrong description keeps the icon", props: []declcfg.Property{object(`{"kind":"ClusterServiceVersion","spec":{"description":[1],"icon":[{"base64data":"aWNvbg==","mediatype":"image/png"}]}}`)},
			icon: "icon"},
		{name: "icon not base64", props: []declcfg.Property{object(`{"kind":"ClusterServiceVersion","spec":{"icon":[{"base64data":"%%","mediatype":"image/png"}]}}`)}, wantErr: true},
		{name: "csv metadata", props: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyCSVMetadata, declcfg.CSVMetadata{Description: "m"})}, desc: "m"},
		{name: "neither", props: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := bundleCSV(&declcfg.Bundle{Name: "a.v1", Properties: tc.props})
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			icon := ""
			if info.Icon != nil {
				icon = string(info.Icon.Data)
			}
			if info.Description != tc.desc || icon != tc.icon {
				t.Errorf("description %q, icon %q; want %q, %q", info.Description, icon, tc.desc, tc.icon)
			}
		})
	}
}
