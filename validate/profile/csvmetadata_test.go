package profile

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	v1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// csvFromMetadataTwice is how csvFromMetadata read the property before it
// decoded it once: the spec, then the fields the spec does not name.
func csvFromMetadataTwice(bl *declcfg.Bundle) (*v1alpha1.ClusterServiceVersion, bool) {
	for _, p := range bl.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		csv := &v1alpha1.ClusterServiceVersion{}
		var md struct {
			Annotations map[string]string                  `json:"annotations"`
			Labels      map[string]string                  `json:"labels"`
			CRDs        v1alpha1.CustomResourceDefinitions `json:"crdDescriptions"`
		}
		if json.Unmarshal(p.Value, &csv.Spec) != nil || json.Unmarshal(p.Value, &md) != nil {
			return nil, false
		}
		csv.APIVersion = v1alpha1.SchemeGroupVersion.String()
		csv.Kind = kindCSV
		csv.Name = bl.Name
		csv.Annotations, csv.Labels = md.Annotations, md.Labels
		s := &csv.Spec
		s.CustomResourceDefinitions = md.CRDs
		if v, err := bl.Version(); err == nil {
			_ = s.Version.UnmarshalJSON([]byte(fmt.Sprintf("%q", v)))
		}
		return csv, true
	}
	return nil, false
}

func metadataBundle(value string) *declcfg.Bundle {
	return &declcfg.Bundle{Name: "op.v1.0.0", Package: "op", Properties: []declcfg.Property{
		{Type: declcfg.PropertyPackage, Value: json.RawMessage(`{"packageName":"op","version":"1.0.0"}`)},
		{Type: declcfg.PropertyCSVMetadata, Value: json.RawMessage(value)},
	}}
}

// TestCSVFromMetadataReadsAsTwoDecodes: the CSV made from olm.csv.metadata
// in one decode is the one two decodes made (the spec's annotations and
// labels included), on crafted values: keys in other cases, both CRD
// fields, nulls and values of the wrong type.
func TestCSVFromMetadataReadsAsTwoDecodes(t *testing.T) {
	var bundles []*declcfg.Bundle
	for _, value := range []string{
		`{}`,
		`{"displayName":"Op","annotations":{"a":"1","alm-examples":"[]"},"labels":{"l":"v"},"crdDescriptions":{"owned":[{"name":"as.example.com","version":"v1","kind":"A"}]}}`,
		`{"Annotations":{"a":"1"},"LABELS":{"l":"v"},"crddescriptions":{"required":[{"name":"bs.example.com","version":"v1","kind":"B"}]}}`,
		`{"customresourcedefinitions":{"owned":[{"name":"x.example.com"}]},"crdDescriptions":{"owned":[{"name":"y.example.com"}]}}`,
		`{"annotations":null,"keywords":["a"],"maturity":"stable","minKubeVersion":"1.25.0","nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}]}`,
		`{"annotations":{"a":1}}`,
		`{"labels":"not a map"}`,
		`{"crdDescriptions":[]}`,
		`[]`,
	} {
		bundles = append(bundles, metadataBundle(value))
	}
	if read := compareCSVReads(t, bundles); read != 5 {
		t.Fatalf("%d of the crafted values made a CSV, want 5", read)
	}
}

// TestCSVFromMetadataReadsAsTwoDecodesOnCorpus compares the two on every
// bundle of the corpus's olm.csv.metadata catalogs.
func TestCSVFromMetadataReadsAsTwoDecodesOnCorpus(t *testing.T) {
	corpus := sharedtest.Corpus(t)
	var bundles []*declcfg.Bundle
	for _, c := range []string{"certified-operators/catalogs/v4.18", "community-operators-prod/catalogs/v4.22"} {
		cfg, err := declcfg.Load(context.Background(), []string{filepath.Join(corpus, c)}, declcfg.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfg.Bundles {
			bundles = append(bundles, &cfg.Bundles[i])
		}
	}
	if read := compareCSVReads(t, bundles); read < len(bundles)/2 {
		t.Fatalf("only %d of %d bundles made a CSV", read, len(bundles))
	}
}

func compareCSVReads(t *testing.T, bundles []*declcfg.Bundle) (read int) {
	t.Helper()
	for i, bl := range bundles {
		got, gotOK := csvFromMetadata(bl)
		want, wantOK := csvFromMetadataTwice(bl)
		if gotOK != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("bundle %d (%s): one decode gave %v %+v, two gave %v %+v", i, bl.Name, gotOK, got, wantOK, want)
		}
		if gotOK {
			read++
		}
	}
	return read
}
