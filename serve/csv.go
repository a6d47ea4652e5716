package serve

import (
	"encoding/base64"
	"encoding/json"

	"github.com/fbc-project/fbc/declcfg"
)

// A bundle described by an olm.csv.metadata property instead of its
// manifests still gets a csvJson from opm serve: a ClusterServiceVersion
// made from the metadata, the package's icon and (when the metadata has
// none) description, the bundle's version and related images. OLM's
// packageserver reads it. The types below give that JSON its exact shape:
// the field order, names and omissions of operator-framework/api's
// ClusterServiceVersion as encoding/json writes it (HTML escaped, maps
// sorted, unknown metadata fields dropped).

// madeUpCSV is the ClusterServiceVersion opm writes for csv.metadata.
type madeUpCSV struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	Metadata   struct {
		Name        string            `json:"name,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Install struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				Deployments []struct{} `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
		Version  string `json:"version"`
		Maturity string `json:"maturity,omitempty"`
		// customresourcedefinitions and apiservicedefinitions are structs,
		// so always written, as {} when empty.
		CRDs           declcfg.CSVCRDs          `json:"customresourcedefinitions"`
		APIServices    declcfg.CSVAPIServices   `json:"apiservicedefinitions"`
		NativeAPIs     []declcfg.CSVGVK         `json:"nativeAPIs,omitempty"`
		MinKubeVersion string                   `json:"minKubeVersion,omitempty"`
		DisplayName    string                   `json:"displayName"`
		Description    string                   `json:"description,omitempty"`
		Keywords       []string                 `json:"keywords,omitempty"`
		Maintainers    []declcfg.CSVMaintainer  `json:"maintainers,omitempty"`
		Provider       declcfg.CSVAppLink       `json:"provider"`
		Links          []declcfg.CSVAppLink     `json:"links,omitempty"`
		Icon           []declcfg.CSVIcon        `json:"icon,omitempty"`
		InstallModes   []declcfg.CSVInstallMode `json:"installModes,omitempty"`
		Cleanup        struct {
			Enabled bool `json:"enabled"`
		} `json:"cleanup"`
		RelatedImages []declcfg.RelatedImage `json:"relatedImages,omitempty"`
	} `json:"spec"`
	Status struct {
		Cleanup struct{} `json:"cleanup"`
	} `json:"status"`
}

// makeCSV builds the CSV JSON opm serves for a bundle described by
// olm.csv.metadata.
func makeCSV(meta json.RawMessage, name, version string, pkg *packageInfo, related []declcfg.RelatedImage) (string, error) {
	var m declcfg.CSVMetadata
	if err := json.Unmarshal(meta, &m); err != nil {
		return "", err
	}
	var csv madeUpCSV
	csv.Kind, csv.APIVersion = declcfg.KindCSV, "operators.coreos.com/v1alpha1"
	csv.Metadata.Name, csv.Metadata.Labels, csv.Metadata.Annotations = name, m.Labels, m.Annotations
	s := &csv.Spec
	// The stub strategy keeps OLM's packageserver from writing to a nil map.
	s.Install.Strategy = "deployment"
	s.Version = version
	s.Maturity, s.NativeAPIs = m.Maturity, m.NativeAPIs
	s.CRDs, s.APIServices = m.CRDDescriptions, m.APIServiceDefinitions
	s.MinKubeVersion, s.DisplayName, s.Description = m.MinKubeVersion, m.DisplayName, m.Description
	s.Keywords, s.Maintainers, s.Provider, s.Links, s.InstallModes = m.Keywords, m.Maintainers, m.Provider, m.Links, m.InstallModes
	if pkg != nil {
		if pkg.icon != nil {
			s.Icon = []declcfg.CSVIcon{{Data: base64.StdEncoding.EncodeToString(pkg.icon.Data), MediaType: pkg.icon.MediaType}}
		}
		if s.Description == "" {
			s.Description = pkg.description
		}
	}
	for _, ri := range related {
		s.RelatedImages = append(s.RelatedImages, declcfg.RelatedImage{Name: ri.Name, Image: ri.Image})
	}
	data, err := json.Marshal(csv)
	if err != nil {
		return "", err
	}
	return string(data), nil
}
