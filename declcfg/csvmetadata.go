package declcfg

import "encoding/json"

// The olm.csv.metadata value mirrors the fields of operator-framework/api's
// v1alpha1 types that opm copies from a ClusterServiceVersion, with their
// JSON names, order and omitempty rules, so that encoding a value writes
// what opm writes (render's migration makes it, serve makes a CSV back from
// it). Decoding is as strict as opm's: a field of the wrong shape is an
// error.

// CSVDescriptor is a spec, status or action descriptor of a CRD or API
// service description.
type CSVDescriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

// CSVResourceReference names a resource an API creates.
type CSVResourceReference struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// CSVCRDDescription describes a custom resource a CSV owns or requires.
type CSVCRDDescription struct {
	Name              string                 `json:"name"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []CSVResourceReference `json:"resources,omitempty"`
	StatusDescriptors []CSVDescriptor        `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []CSVDescriptor        `json:"specDescriptors,omitempty"`
	ActionDescriptor  []CSVDescriptor        `json:"actionDescriptors,omitempty"`
}

// CSVAPIServiceDescription describes an API service a CSV owns or requires.
type CSVAPIServiceDescription struct {
	Name              string                 `json:"name"`
	Group             string                 `json:"group"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DeploymentName    string                 `json:"deploymentName,omitempty"`
	ContainerPort     int32                  `json:"containerPort,omitempty"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []CSVResourceReference `json:"resources,omitempty"`
	StatusDescriptors []CSVDescriptor        `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []CSVDescriptor        `json:"specDescriptors,omitempty"`
	ActionDescriptor  []CSVDescriptor        `json:"actionDescriptors,omitempty"`
}

// CSVCRDs are the custom resources a CSV owns and requires
// (spec.customresourcedefinitions, olm.csv.metadata's crdDescriptions).
type CSVCRDs struct {
	Owned    []CSVCRDDescription `json:"owned,omitempty"`
	Required []CSVCRDDescription `json:"required,omitempty"`
}

// CSVAPIServices are the API services a CSV owns and requires
// (spec.apiservicedefinitions, olm.csv.metadata's apiServiceDefinitions).
type CSVAPIServices struct {
	Owned    []CSVAPIServiceDescription `json:"owned,omitempty"`
	Required []CSVAPIServiceDescription `json:"required,omitempty"`
}

// CSVInstallMode says whether an install mode is supported.
type CSVInstallMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

// CSVAppLink is a named URL (links, provider).
type CSVAppLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

// CSVMaintainer is a maintainer of the operator.
type CSVMaintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

// CSVGVK is a group, version and kind (nativeAPIs).
type CSVGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// CSVMetadata is the value of olm.csv.metadata: the parts of a
// ClusterServiceVersion that catalog consumers display (its metadata's
// annotations and labels, the rest from its spec). apiServiceDefinitions,
// crdDescriptions and provider are structs, so omitempty never drops them:
// opm always writes them, as {} when empty.
type CSVMetadata struct {
	Annotations           map[string]string `json:"annotations,omitempty"`
	APIServiceDefinitions CSVAPIServices    `json:"apiServiceDefinitions"`
	CRDDescriptions       CSVCRDs           `json:"crdDescriptions"`
	Description           string            `json:"description,omitempty"`
	DisplayName           string            `json:"displayName,omitempty"`
	InstallModes          []CSVInstallMode  `json:"installModes,omitempty"`
	Keywords              []string          `json:"keywords,omitempty"`
	Labels                map[string]string `json:"labels,omitempty"`
	Links                 []CSVAppLink      `json:"links,omitempty"`
	Maintainers           []CSVMaintainer   `json:"maintainers,omitempty"`
	Maturity              string            `json:"maturity,omitempty"`
	MinKubeVersion        string            `json:"minKubeVersion,omitempty"`
	NativeAPIs            []CSVGVK          `json:"nativeAPIs,omitempty"`
	Provider              CSVAppLink        `json:"provider"`
}
