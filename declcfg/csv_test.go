package declcfg

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
)

func objectProp(t *testing.T, manifest string) Property {
	t.Helper()
	return MustProperty(PropertyBundleObject, map[string]string{"data": base64.StdEncoding.EncodeToString([]byte(manifest))})
}

// TestBundleCSV: the first object whose kind (that key exactly) is
// ClusterServiceVersion, YAML converted; objects that do not decode are
// errors, until the CSV is found.
func TestBundleCSV(t *testing.T) {
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.b"}}`
	csv := `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"a.v1"}}`
	pkg := MustProperty(PropertyPackage, PackageProperty{PackageName: "a", Version: "1.0.0"})
	for _, tc := range []struct {
		name    string
		props   []Property
		want    string
		wantErr bool
	}{
		{name: "none", props: []Property{pkg}},
		{name: "only other objects", props: []Property{pkg, objectProp(t, crd)}},
		{name: "json", props: []Property{pkg, objectProp(t, crd), objectProp(t, csv)}, want: csv},
		{name: "yaml converted", props: []Property{objectProp(t, "kind: ClusterServiceVersion\nmetadata:\n  name: a.v1\n")},
			want: `{"kind":"ClusterServiceVersion","metadata":{"name":"a.v1"}}`},
		{name: "the first of two", props: []Property{objectProp(t, csv), objectProp(t, `{"kind":"ClusterServiceVersion","metadata":{"name":"b"}}`)}, want: csv},
		{name: "kind in another case is not one", props: []Property{objectProp(t, `{"KIND":"ClusterServiceVersion"}`)}},
		{name: "kind not a string", props: []Property{objectProp(t, `{"kind":["ClusterServiceVersion"]}`)}},
		{name: "invalid json is not one", props: []Property{objectProp(t, `{"kind":"ClusterServiceVersion",}`)}},
		{name: "bad yaml before it", props: []Property{objectProp(t, "a: [1\n"), objectProp(t, csv)}, wantErr: true},
		{name: "bad base64", props: []Property{{Type: PropertyBundleObject, Value: json.RawMessage(`{"data":"%%"}`)}}, wantErr: true},
		{name: "bad yaml after it", props: []Property{objectProp(t, csv), objectProp(t, "a: [1\n")}, want: csv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BundleCSV(tc.props)
			if (err != nil) != tc.wantErr || string(got) != tc.want {
				t.Fatalf("BundleCSV = %s, %v; want %s (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestParseCSV: the fields fbc reads, under operator-framework/api's names;
// a field of the wrong shape is the error, and the others are read.
func TestParseCSV(t *testing.T) {
	data := []byte(`{"kind":"ClusterServiceVersion","metadata":{"name":"a.v1","annotations":{"olm.skipRange":"<1.0.0"},"labels":{"l":"v"}},
		"spec":{"version":"1.0.0","replaces":"a.v0","skips":["a.v0.1"],"displayName":"A","description":"d","minKubeVersion":"1.25.0",
		"icon":[{"base64data":"iVBO","mediatype":"image/png"}],"relatedImages":[{"name":"x","image":"quay.io/x@sha256:1"}],
		"installModes":[{"type":"AllNamespaces","supported":true}],
		"customresourcedefinitions":{"owned":[{"name":"as.example.com","version":"v1","kind":"A"}]},
		"apiservicedefinitions":{"required":[{"group":"g","version":"v1","kind":"K","name":"v1.g"}]},
		"webhookdefinitions":[{"type":"ConversionWebhook","generateName":"w","deploymentName":"d","conversionCRDs":["as.example.com"]}]}}`)
	c, err := ParseCSV(data)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Spec
	if c.Kind != KindCSV || c.Metadata.Name != "a.v1" || c.Metadata.Annotations["olm.skipRange"] != "<1.0.0" || c.Metadata.Labels["l"] != "v" ||
		s.Version != "1.0.0" || s.Replaces != "a.v0" || len(s.Skips) != 1 || s.DisplayName != "A" || s.Description != "d" ||
		s.MinKubeVersion != "1.25.0" || len(s.Icon) != 1 || s.Icon[0].MediaType != "image/png" || s.Icon[0].Data != "iVBO" ||
		len(s.RelatedImages) != 1 || s.RelatedImages[0].Image != "quay.io/x@sha256:1" || len(s.InstallModes) != 1 ||
		len(s.CRDs.Owned) != 1 || s.CRDs.Owned[0].Kind != "A" || len(s.APIServices.Required) != 1 || s.APIServices.Required[0].Group != "g" ||
		len(s.Webhooks) != 1 || s.Webhooks[0].ConversionCRDs[0] != "as.example.com" {
		t.Errorf("ParseCSV = %+v", c)
	}

	c, err = ParseCSV([]byte(`{"kind":"ClusterServiceVersion","spec":{"description":7,"icon":[{"base64data":"AA==","mediatype":"image/png"}]}}`))
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "spec.description" || c == nil || len(c.Spec.Icon) != 1 {
		t.Errorf("a wrong description: %+v, %v", c, err)
	}
	if c, err := ParseCSV([]byte(`{"kind":`)); err == nil || c == nil {
		t.Errorf("invalid JSON: %+v, %v", c, err)
	}
}
