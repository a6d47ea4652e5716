package mirror

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/internal/fault"
)

func TestParseConfig(t *testing.T) {
	const head = "apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\n"
	cases := []struct {
		name, text string
		err        []string // each a line of the error
		run        bool     // a Run error, not Input
	}{
		{name: "not YAML", text: "a: [", err: []string{"isc.yaml: not valid YAML: line 1:"}},
		{name: "empty", text: "# nothing\n", err: []string{"isc.yaml: empty configuration"}},
		{name: "no kind", text: "apiVersion: mirror.openshift.io/v2alpha1\nmirror: {}\n", err: []string{"isc.yaml:1:1: configuration missing `kind`"}},
		{name: "another kind", text: "apiVersion: mirror.openshift.io/v2alpha1\nkind: DeleteImageSetConfiguration\n", err: []string{`isc.yaml:2:7: cannot parse "DeleteImageSetConfiguration" as "ImageSetConfiguration"`}},
		{name: "oc-mirror v1", text: "apiVersion: mirror.openshift.io/v1alpha2\nkind: ImageSetConfiguration\nmirror: {}\n", err: []string{`isc.yaml:1:13: apiVersion "mirror.openshift.io/v1alpha2" is oc-mirror v1's ImageSetConfiguration: fbc reads oc-mirror v2's (apiVersion: mirror.openshift.io/v2alpha1)`}},
		{name: "unknown apiVersion", text: "apiVersion: v1\nkind: ImageSetConfiguration\n", err: []string{`isc.yaml:1:13: unknown apiVersion "v1"`}},
		{name: "no mirror", text: head, err: []string{"isc.yaml:1:1: configuration missing the `mirror` stanza"}},
		{name: "delete", text: head + "mirror: {}\ndelete: {}\n", err: []string{"isc.yaml:4:1: delete: is not allowed in ImageSetConfiguration"}},
		{name: "no operators", text: head + "mirror:\n  platform:\n    channels: [{name: stable-4.20}]\n", err: []string{"the configuration lists no catalog (mirror.operators): nothing to plan"}, run: true},
		{
			name: "unknown fields, with the closest",
			text: head + "mirror:\n  operators:\n  - catalog: quay.io/x/y:v1\n    packages:\n    - name: a\n      minversion: 1.0.0\n      chanels: []\n",
			err: []string{
				`isc.yaml:8:7: unknown field "mirror.operators[0].packages[0].minversion" (did you mean "minVersion"?)`,
				`isc.yaml:9:7: unknown field "mirror.operators[0].packages[0].chanels" (did you mean "channels"?)`,
			},
		},
		{
			name: "values of the wrong type",
			text: head + "mirror:\n  operators:\n  - catalog: quay.io/x/y:v1\n    full: yes please\n    packages:\n    - name: a\n      maxVersion: 1.0\n",
			err: []string{
				`isc.yaml:6:11: mirror.operators[0].full must be true or false, not a string`,
				`isc.yaml:9:19: mirror.operators[0].packages[0].maxVersion must be a string, not a number: quote it ("1.0")`,
			},
		},
		{
			name: "oc-mirror's checks",
			text: head + "mirror:\n  operators:\n  - catalog: quay.io/x/y:v1\n    packages:\n    - name: a\n      minVersion: latest\n    - name: a\n      channels:\n      - name: s\n      - name: s\n        maxVersion: x.y\n  - catalog: quay.io/x/y:v1\n",
			err: []string{
				`isc.yaml:8:19: invalid configuration: catalog "quay.io/x/y:v1": operator "a": minVersion "latest" must respect semantic versioning notation`,
				`isc.yaml:9:13: invalid configuration: catalog "quay.io/x/y:v1": duplicate package entry "a"`,
				`isc.yaml:12:15: invalid configuration: catalog "quay.io/x/y:v1": operator "a": duplicate channel entry "s"`,
				`isc.yaml:13:21: invalid configuration: catalog "quay.io/x/y:v1": operator "a": channel "s": maxVersion "x.y" must respect semantic versioning notation`,
				`isc.yaml:14:14: invalid configuration: catalog "quay.io/x/y:v1": duplicate found in configuration (first at line 5)`,
			},
		},
		{name: "a package without name", text: head + "mirror:\n  operators:\n  - catalog: quay.io/x/y:v1\n    packages:\n    - channels: [{name: s}]\n", err: []string{`isc.yaml:7:7: failed to validate catalog filter: package "" at index [0] is invalid: name must be specified`}},
		{name: "two documents", text: head + "mirror: {operators: [{catalog: c}]}\n---\nkind: X\n", err: []string{"isc.yaml:4:1: an ImageSetConfiguration is one document"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("isc.yaml", []byte(tc.text))
			require.Error(t, err)
			kind := fault.Input
			if tc.run {
				kind = fault.Run
			}
			assert.Equal(t, kind, fault.KindOf(err), "kind of %v", err)
			for _, want := range tc.err {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestParseConfigKeeps(t *testing.T) {
	text := `apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  platform:
    channels: [{name: stable-4.20}]
  additionalImages: [{name: quay.io/x/y:v1}]
  operators:
  - catalog: registry.redhat.io/redhat/redhat-operator-index:v4.20
    targetCatalog: mirror/redhat
    targetTag: v1
    packages:
    - name: a
      defaultChannel: stable
      channels:
      - name: stable
        minVersion: 1.0.0
        maxVersion: "2.0.0"
  - catalog: oci:///tmp/layout
    full: true
`
	cfg, err := ParseConfig("isc.yaml", []byte(text))
	require.NoError(t, err)
	require.Len(t, cfg.Operators, 2)
	op := cfg.Operators[0]
	assert.Equal(t, "registry.redhat.io/redhat/redhat-operator-index:v4.20", op.Catalog)
	assert.Equal(t, "isc.yaml:8:14", op.CatalogPos.String())
	assert.Equal(t, "mirror/redhat", op.TargetCatalog)
	assert.Equal(t, "v1", op.TargetTag)
	require.Len(t, op.Packages, 1)
	p := op.Packages[0]
	assert.Equal(t, "stable", p.DefaultChannel)
	require.Len(t, p.Channels, 1)
	assert.Equal(t, Channel{Name: "stable", MinVersion: "1.0.0", MaxVersion: "2.0.0"}, Channel{Name: p.Channels[0].Name, MinVersion: p.Channels[0].MinVersion, MaxVersion: p.Channels[0].MaxVersion})
	assert.Equal(t, "isc.yaml:17:21", p.Channels[0].MaxVersionPos.String())
	assert.True(t, cfg.Operators[1].Full)
	var ignored []string
	for _, i := range cfg.Ignored {
		ignored = append(ignored, i.Field+"@"+i.Pos.String())
	}
	assert.Equal(t, []string{"mirror.platform@isc.yaml:4:3", "mirror.additionalImages@isc.yaml:6:3"}, ignored)
}
