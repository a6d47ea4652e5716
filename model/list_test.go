package model

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/fault"
)

func TestDisplayName(t *testing.T) {
	csv := base64.StdEncoding.EncodeToString([]byte(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"p.b"},"spec":{"displayName":"From Objects"}}`))
	for _, tc := range []struct{ name, props, want string }{
		{"bundle object", "- {type: olm.bundle.object, value: {data: " + csv + "}}\n- {type: olm.csv.metadata, value: {displayName: From Metadata}}\n", "From Objects"},
		{"csv metadata", "- {type: olm.csv.metadata, value: {displayName: From Metadata}}\n", "From Metadata"},
		{"neither", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries: [{name: p.a}, {name: p.b, replaces: p.a}]
---
schema: olm.bundle
package: p
name: p.a
image: quay.io/p/p:a
properties:
- {type: olm.package, value: {packageName: p, version: 1.0.0}}
- {type: olm.csv.metadata, value: {displayName: Not The Head}}
---
schema: olm.bundle
package: p
name: p.b
image: quay.io/p/p:b
properties:
- {type: olm.package, value: {packageName: p, version: 1.1.0}}
`+tc.props)
			rows, err := cat.ListPackages("")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].DisplayName != tc.want || rows[0].DefaultChannel != "stable" {
				t.Errorf("rows %+v, want display name %q", rows, tc.want)
			}
		})
	}
}

func TestListRows(t *testing.T) {
	cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries: [{name: p.b, replaces: p.a, skips: [p.x]}, {name: p.a}]
---
schema: olm.channel
package: p
name: alpha
entries: [{name: p.a}, {name: p.b}]
---
schema: olm.bundle
package: p
name: p.a
image: quay.io/p/p:a
properties: [{type: olm.package, value: {packageName: p, version: 1.0.0}}]
---
schema: olm.bundle
package: p
name: p.b
image: quay.io/p/p:b
properties: [{type: olm.package, value: {packageName: p, version: 1.1.0}}]
`)
	chans, err := cat.ListChannels("p")
	if err != nil {
		t.Fatal(err)
	}
	if len(chans) != 2 || chans[0].Channel != "alpha" || chans[0].HeadError != "multiple channel heads: p.a, p.b" || chans[1].Head != "p.b" {
		t.Errorf("channels %+v", chans)
	}
	bundles, err := cat.ListBundles("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bundles {
		got = append(got, b.Channel+"/"+b.Bundle+"<"+b.Replaces+"!"+strings.Join(b.Skips, ",")+"@"+b.Image)
	}
	want := "alpha/p.a<!@quay.io/p/p:a alpha/p.b<!@quay.io/p/p:b stable/p.a<!@quay.io/p/p:a stable/p.b<p.a!p.x@quay.io/p/p:b"
	if strings.Join(got, " ") != want {
		t.Errorf("bundles\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if _, err := cat.ListBundles("q"); err == nil || fault.KindOf(err) != fault.Usage || !strings.Contains(err.Error(), `package "q" is not in the catalog (it has p)`) {
		t.Errorf("unknown package: %v", err)
	}
}
