package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

const (
	kindCSV = declcfg.KindCSV
	kindCRD = "CustomResourceDefinition"

	// annotationProperties is the CSV annotation holding extra properties.
	annotationProperties = "olm.properties"
	// AnnotationSkipRange is the CSV annotation holding an entry's skipRange.
	AnnotationSkipRange = "olm.skipRange"
)

// definitionKey is an owned or required CRD or APIService of a CSV.
type definitionKey struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// csvInfo is what rendering needs from a ClusterServiceVersion. Fields are
// read the way opm reads them: spec keys exactly (opm looks them up in a
// map), nested structs case-insensitively (opm decodes them into structs).
type csvInfo struct {
	Name        string
	Annotations map[string]string
	Labels      map[string]string
	Version     string
	Release     string // JSON text of a numeric release, or the string
	Replaces    string
	Skips       []string

	OwnedCRDs, RequiredCRDs               []definitionKey
	OwnedAPIServices, RequiredAPIServices []definitionKey

	// Description and the first icon describe the package (--with-channels).
	Description string
	Icon        *declcfg.CSVIcon

	RelatedImages  []declcfg.RelatedImage
	OperatorImages []string
	// Properties come from the olm.properties annotation.
	Properties []typedProperty
}

// SkipRange is the olm.skipRange annotation.
func (c *csvInfo) SkipRange() string { return c.Annotations[AnnotationSkipRange] }

// parseCSV reads a CSV object. Errors name the field at fault.
func parseCSV(o *kubeObject) (*csvInfo, error) {
	c := &csvInfo{Name: o.name()}
	if c.Name == "" {
		return nil, fmt.Errorf("the ClusterServiceVersion has no metadata.name")
	}
	md, _ := o.Object["metadata"].(map[string]any)
	var err error
	if c.Annotations, err = stringMap(md["annotations"], "metadata.annotations"); err != nil {
		return nil, err
	}
	if c.Labels, err = stringMap(md["labels"], "metadata.labels"); err != nil {
		return nil, err
	}
	raw, ok := o.Object["spec"]
	if !ok || raw == nil {
		return nil, fmt.Errorf("the ClusterServiceVersion has no spec")
	}
	specJSON, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(specJSON, &spec); err != nil {
		return nil, fmt.Errorf("spec must be a mapping")
	}
	field := func(key string, v any) error {
		r, ok := spec[key]
		if !ok || string(r) == "null" {
			return nil
		}
		if err := json.Unmarshal(r, v); err != nil {
			return fmt.Errorf("spec.%s: %s", key, typeErrorWords(err))
		}
		return nil
	}
	if err := field("version", &c.Version); err != nil {
		return nil, err
	}
	if c.Version == "" {
		return nil, fmt.Errorf("the ClusterServiceVersion has no spec.version")
	}
	if r, ok := spec["release"]; ok && string(r) != "null" {
		var s string
		if json.Unmarshal(r, &s) == nil {
			c.Release = s
		} else if bytes.ContainsAny(r[:1], "-0123456789") {
			c.Release = string(r)
		} else {
			return nil, fmt.Errorf("spec.release must be a string or a number")
		}
	}
	if err := field("replaces", &c.Replaces); err != nil {
		return nil, err
	}
	if err := field("skips", &c.Skips); err != nil {
		return nil, err
	}
	var defs struct {
		Owned    []definitionKey `json:"owned"`
		Required []definitionKey `json:"required"`
	}
	if err := field("customresourcedefinitions", &defs); err != nil {
		return nil, err
	}
	c.OwnedCRDs, c.RequiredCRDs = defs.Owned, defs.Required
	defs.Owned, defs.Required = nil, nil
	if err := field("apiservicedefinitions", &defs); err != nil {
		return nil, err
	}
	c.OwnedAPIServices, c.RequiredAPIServices = defs.Owned, defs.Required
	if err := field("description", &c.Description); err != nil {
		return nil, err
	}
	var icons []declcfg.CSVIcon
	if err := field("icon", &icons); err != nil {
		return nil, err
	}
	if len(icons) > 0 {
		c.Icon = &icons[0]
	}
	if err := field("relatedImages", &c.RelatedImages); err != nil {
		return nil, err
	}
	if c.OperatorImages, err = operatorImages(specJSON); err != nil {
		return nil, err
	}
	if p, ok := c.Annotations[annotationProperties]; ok {
		if err := json.Unmarshal([]byte(p), &c.Properties); err != nil {
			return nil, fmt.Errorf("metadata.annotations[%q] is not a JSON list of {type, value} properties: %s", annotationProperties, typeErrorWords(err))
		}
		for i, prop := range c.Properties {
			if prop.Type == "" || len(prop.Value) == 0 {
				return nil, fmt.Errorf("metadata.annotations[%q]: property %d needs a type and a value", annotationProperties, i)
			}
		}
	}
	return c, nil
}

// operatorImages lists the images of the deployment install strategy's
// containers and init containers, in order, without duplicates.
func operatorImages(specJSON []byte) ([]string, error) {
	type container struct {
		Image string `json:"image"`
	}
	var spec struct {
		Install struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				Deployments []struct {
					Spec struct {
						Template struct {
							Spec struct {
								Containers     []container `json:"containers"`
								InitContainers []container `json:"initContainers"`
							} `json:"spec"`
						} `json:"template"`
					} `json:"spec"`
				} `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
	}
	if err := json.Unmarshal(specJSON, &spec); err != nil {
		return nil, fmt.Errorf("spec.install: %s", typeErrorWords(err))
	}
	if spec.Install.Strategy != "deployment" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range spec.Install.Spec.Deployments {
		for _, cs := range [][]container{d.Spec.Template.Spec.Containers, d.Spec.Template.Spec.InitContainers} {
			for _, c := range cs {
				if !seen[c.Image] {
					seen[c.Image] = true
					out = append(out, c.Image)
				}
			}
		}
	}
	return out, nil
}

func stringMap(v any, where string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a mapping of strings, not %s", where, jsonKind(v))
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			if e == nil {
				continue
			}
			return nil, fmt.Errorf("%s[%q] must be a string, not %s (quote it in YAML)", where, k, jsonKind(e))
		}
		out[k] = s
	}
	return out, nil
}

// typeErrorWords shortens encoding/json errors to the field and the types.
func typeErrorWords(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		if te.Field != "" {
			return fmt.Sprintf("%s: expected %s, found a JSON %s", te.Field, goTypeWords(te.Type.String()), te.Value)
		}
		return fmt.Sprintf("expected %s, found a JSON %s", goTypeWords(te.Type.String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// crdInfo is what rendering needs from a CustomResourceDefinition.
type crdInfo struct {
	Group, Kind, Plural string
	Versions            []string
}

// parseCRD reads the group, kind, plural and served versions of a v1 or
// v1beta1 CRD (v1beta1 may also name a single spec.version).
func parseCRD(o *kubeObject) (*crdInfo, error) {
	spec, ok := o.Object["spec"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the CustomResourceDefinition has no spec")
	}
	names, _ := spec["names"].(map[string]any)
	c := &crdInfo{}
	var err error
	str := func(m map[string]any, key, where string) string {
		v, ok := m[key]
		if !ok || v == nil || err != nil {
			return ""
		}
		s, isStr := v.(string)
		if !isStr {
			err = fmt.Errorf("%s must be a string, not %s", where, jsonKind(v))
		}
		return s
	}
	c.Group = str(spec, "group", "spec.group")
	c.Kind = str(names, "kind", "spec.names.kind")
	c.Plural = str(names, "plural", "spec.names.plural")
	if vs, ok := spec["versions"]; ok && vs != nil {
		list, isList := vs.([]any)
		if !isList {
			return nil, fmt.Errorf("spec.versions must be a list, not %s", jsonKind(vs))
		}
		for i, v := range list {
			m, _ := v.(map[string]any)
			if name := str(m, "name", fmt.Sprintf("spec.versions[%d].name", i)); name != "" {
				c.Versions = append(c.Versions, name)
			}
		}
	}
	if strings.HasSuffix(o.apiVersion(), "/v1beta1") {
		if v := str(spec, "version", "spec.version"); v != "" {
			c.Versions = append(c.Versions, v)
		}
	}
	return c, err
}

// isCRD reports whether an object is a CRD opm reads: kind
// CustomResourceDefinition at version v1 or v1beta1 (whatever the group).
func isCRD(o *kubeObject) bool {
	if o.kind() != kindCRD {
		return false
	}
	av := o.apiVersion()
	v := av[strings.LastIndexByte(av, '/')+1:]
	return v == "v1" || v == "v1beta1"
}
