package declcfg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/internal/manifestscan"
)

// KindCSV is the kind of a ClusterServiceVersion.
const KindCSV = "ClusterServiceVersion"

// CSV is a ClusterServiceVersion as operator-framework/api's v1alpha1
// types decode it with encoding/json, the fields fbc reads: the one type a
// CSV's JSON is read into (the olm.csv.metadata migration, the package's
// icon and description, the bundle's display name, install modes,
// webhooks and minKubeVersion, the release's substitutesFor, the
// manifests fbc resolve reads). A field of the wrong shape is an error, as
// it is for opm and OLM; encoding/json still fills in every other field.
// render reads bundle files' CSVs with opm's registry rules instead (spec
// keys exactly, from a map), images reads only their image references
// (one pass, no decoding), and repo reads a bundle directory's CSV file as
// the pipelines' Python does.
type CSV struct {
	Kind       string        `json:"kind"`
	APIVersion string        `json:"apiVersion"`
	Metadata   CSVObjectMeta `json:"metadata"`
	Spec       CSVSpec       `json:"spec"`
}

// CSVObjectMeta is what fbc reads of a CSV's metadata.
type CSVObjectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Annotations map[string]string `json:"annotations"`
	Labels      map[string]string `json:"labels"`
}

// CSVSpec is what fbc reads of a CSV's spec: most of what olm.csv.metadata
// copies, under the same names (the embedded CSVMetadata; its annotations,
// labels, crdDescriptions and apiServiceDefinitions come from elsewhere in
// a CSV and stay empty), and the rest.
type CSVSpec struct {
	CSVMetadata
	Version       string         `json:"version"`
	Replaces      string         `json:"replaces"`
	Skips         []string       `json:"skips"`
	Icon          []CSVIcon      `json:"icon"`
	RelatedImages []RelatedImage `json:"relatedImages"`
	CRDs          CSVCRDs        `json:"customresourcedefinitions"`
	APIServices   CSVAPIServices `json:"apiservicedefinitions"`
	Webhooks      []CSVWebhook   `json:"webhookdefinitions"`
}

// CSVIcon is an entry of a CSV's spec.icon, its data base64 as written.
type CSVIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// CSVWebhook is an entry of a CSV's spec.webhookdefinitions.
type CSVWebhook struct {
	Type           string   `json:"type"`
	GenerateName   string   `json:"generateName"`
	DeploymentName string   `json:"deploymentName"`
	ConversionCRDs []string `json:"conversionCRDs"`
}

// ParseCSV decodes a CSV's JSON. The error, when the JSON is an object, is
// the first field of the wrong shape (a *json.UnmarshalTypeError naming
// it), and the CSV, never nil, holds every other field.
func ParseCSV(data []byte) (*CSV, error) {
	var c CSV
	err := json.Unmarshal(data, &c)
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		// The path of a field of the embedded CSVMetadata is the JSON's.
		te.Field = strings.Replace(te.Field, "spec.CSVMetadata.", "spec.", 1)
	}
	return &c, err
}

// IsCSV reports whether a manifest's JSON is a ClusterServiceVersion: a
// JSON object whose kind (that key exactly, as Kubernetes' unstructured
// objects read it) is ClusterServiceVersion.
func IsCSV(data []byte) bool {
	m, err := manifestscan.Scan(data)
	return err == nil && m.Kind == KindCSV
}

// BundleCSV finds a bundle's ClusterServiceVersion among its
// olm.bundle.object properties as opm does when it loads a bundle: the
// first object that IsCSV, YAML converted (ObjectJSON). It returns the
// CSV's JSON, nil when no object is one; an object whose data does not
// decode is an error, naming the property.
func BundleCSV(props []Property) ([]byte, error) {
	for i, p := range props {
		if p.Type != PropertyBundleObject {
			continue
		}
		data, err := DecodeBundleObject(p.Value)
		if err == nil {
			data, err = ObjectJSON(data)
		}
		if err != nil {
			return nil, fmt.Errorf("properties[%d] (%s): %w", i, p.Type, err)
		}
		if IsCSV(data) {
			return data, nil
		}
	}
	return nil, nil
}
