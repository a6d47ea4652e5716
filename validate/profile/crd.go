package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crd is one CustomResourceDefinition of a bundle. Its schemas stay JSON
// text until a check needs them: they are most of a catalog's bytes, and
// most checks only need names and versions.
type crd struct {
	obj   *object
	beta  bool // apiextensions.k8s.io/v1beta1
	group string
	names apiextv1.CustomResourceDefinitionNames
	scope string
	// versions in spec order.
	versions []crdVersion
	// preserveUnknownFields and selectable mark the CRDs whose validity
	// depends on their schemas beyond the schemas themselves.
	preserveUnknownFields bool
	selectable            bool
	// key identifies the CRD's exact text.
	key contentKey
	// reduced is the CRD with every schema replaced by a stand-in; see
	// libraryObject.
	reduced *apiextv1.CustomResourceDefinition
}

type crdVersion struct {
	name            string
	served, storage bool
	// schema identifies the exact text of the version's openAPIV3Schema
	// (v1 only; zero when there is none): crdify's same-version
	// comparison depends on nothing else.
	schema contentKey
}

// contentKey identifies a byte string: two 64-bit hashes with independent
// seeds, so that equal keys mean equal text for any practical purpose.
type contentKey [2]uint64

var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func keyOf(data []byte) contentKey {
	return contentKey{maphash.Bytes(keySeeds[0], data), maphash.Bytes(keySeeds[1], data)}
}

// The shadow types decode a v1 CRD with its schemas left as JSON text:
// encoding/json prefers the outer field of the same name to the embedded
// one.
type crdV1Doc struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              crdV1SpecDoc                            `json:"spec"`
	Status            apiextv1.CustomResourceDefinitionStatus `json:"status,omitempty"`
}

type crdV1SpecDoc struct {
	apiextv1.CustomResourceDefinitionSpec
	Versions []crdV1VersionDoc `json:"versions"`
}

type crdV1VersionDoc struct {
	apiextv1.CustomResourceDefinitionVersion
	Schema *schemaDoc `json:"schema,omitempty"`
}

type schemaDoc struct {
	OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema,omitempty"`
}

type crdV1beta1Doc struct {
	Spec struct {
		Group                 string                                 `json:"group"`
		Names                 apiextv1.CustomResourceDefinitionNames `json:"names"`
		Scope                 string                                 `json:"scope"`
		Version               string                                 `json:"version"`
		PreserveUnknownFields *bool                                  `json:"preserveUnknownFields"`
		RawVersions           []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
		} `json:"versions"`
	} `json:"spec"`
}

// crdCache shares the parsed form of identical CRDs between bundles.
type crdCache struct {
	mu     sync.Mutex
	parsed map[contentKey]*crd
}

// parse parses a CRD manifest, or finds its twin parsed before; the
// result belongs to o (its position), the rest is shared and read-only.
func (cc *crdCache) parse(o *object) (*crd, error) {
	key := keyOf(o.JSON)
	cc.mu.Lock()
	twin := cc.parsed[key]
	cc.mu.Unlock()
	if twin == nil {
		c, err := parseCRD(o, key)
		if err != nil {
			return nil, err
		}
		// The cache keeps no manifest: its bytes are the bundle's.
		kept := *c
		kept.obj = nil
		cc.mu.Lock()
		if cc.parsed == nil {
			cc.parsed = map[contentKey]*crd{}
		}
		cc.parsed[key] = &kept
		cc.mu.Unlock()
		twin = &kept
	}
	c := *twin
	c.obj = o
	return &c, nil
}

func parseCRD(o *object, key contentKey) (*crd, error) {
	c := &crd{obj: o, key: key}
	switch o.apiVersion {
	case "apiextensions.k8s.io/v1":
		var doc crdV1Doc
		if err := json.Unmarshal(o.JSON, &doc); err != nil {
			return nil, err
		}
		s := &doc.Spec
		c.group, c.names, c.scope = s.Group, s.Names, string(s.Scope)
		c.preserveUnknownFields = s.PreserveUnknownFields
		for _, v := range s.Versions {
			cv := crdVersion{name: v.Name, served: v.Served, storage: v.Storage}
			if v.Schema != nil && !isNull(v.Schema.OpenAPIV3Schema) {
				cv.schema = keyOf(v.Schema.OpenAPIV3Schema)
			}
			if len(v.SelectableFields) > 0 {
				c.selectable = true
			}
			c.versions = append(c.versions, cv)
		}
		c.reduced = reducedV1(&doc)
	case "apiextensions.k8s.io/v1beta1":
		c.beta = true
		var doc crdV1beta1Doc
		if err := json.Unmarshal(o.JSON, &doc); err != nil {
			return nil, err
		}
		s := &doc.Spec
		c.group, c.names, c.scope = s.Group, s.Names, s.Scope
		c.preserveUnknownFields = s.PreserveUnknownFields == nil || *s.PreserveUnknownFields
		for _, v := range s.RawVersions {
			c.versions = append(c.versions, crdVersion{name: v.Name, served: v.Served, storage: v.Storage})
		}
		if len(s.RawVersions) == 0 && s.Version != "" {
			// v1beta1's single-version form.
			c.versions = append(c.versions, crdVersion{name: s.Version, served: true, storage: true})
		}
	default:
		return nil, fmt.Errorf("apiVersion %q is not apiextensions.k8s.io/v1 or v1beta1", o.apiVersion)
	}
	return c, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// reducedV1 is the CRD with each schema replaced by {type: object}.
//
// operator-framework/api's CRD validator runs the API server's CRD
// validation and then drops every error whose field path contains
// "openAPIV3Schema" or "status", so what it reports never depends on what
// a schema says, only on whether there is one, with three exceptions: the
// defaults in a schema matter when spec.preserveUnknownFields is true,
// selectable fields are checked against the schema, and a schema that
// passes validation but cannot make a validator (an API server safety net
// that needs an invalid schema to fire). Per-version schemas that are all
// identical are hoisted to spec.validation during conversion, which only
// moves the dropped paths. So CRDs without preserveUnknownFields and
// selectable fields are validated in this form, which skips the schema
// validation that costs nearly all of the validator's time; the others in
// full. TestReducedCRDVerdicts checks the two forms agree on every CRD of
// the corpus.
func reducedV1(doc *crdV1Doc) *apiextv1.CustomResourceDefinition {
	out := &apiextv1.CustomResourceDefinition{TypeMeta: doc.TypeMeta, ObjectMeta: doc.ObjectMeta, Status: doc.Status}
	out.Spec = doc.Spec.CustomResourceDefinitionSpec
	out.Spec.Versions = make([]apiextv1.CustomResourceDefinitionVersion, len(doc.Spec.Versions))
	for i, v := range doc.Spec.Versions {
		out.Spec.Versions[i] = v.CustomResourceDefinitionVersion
		if v.Schema != nil {
			out.Spec.Versions[i].Schema = &apiextv1.CustomResourceValidation{}
			if !isNull(v.Schema.OpenAPIV3Schema) {
				out.Spec.Versions[i].Schema.OpenAPIV3Schema = &apiextv1.JSONSchemaProps{Type: "object"}
			}
		}
	}
	return out
}

// needsFullValidation reports whether the CRD validator must see the real
// schemas (see reducedV1).
func (c *crd) needsFullValidation() bool {
	return c.beta || c.preserveUnknownFields || c.selectable
}

// libraryObject is what the CRD validator gets: a fresh object (the
// validator sets defaults in it), reduced when that gives the same verdict.
func (c *crd) libraryObject() (any, error) {
	if !c.needsFullValidation() {
		return c.reduced.DeepCopy(), nil
	}
	return c.fullObject()
}

// fullObject decodes the whole CRD, schemas included.
func (c *crd) fullObject() (any, error) {
	if c.beta {
		out := &apiextv1beta1.CustomResourceDefinition{}
		return out, json.Unmarshal(c.obj.JSON, out)
	}
	out := &apiextv1.CustomResourceDefinition{}
	return out, json.Unmarshal(c.obj.JSON, out)
}

// version finds a version by name.
func (c *crd) version(name string) *crdVersion {
	for i := range c.versions {
		if c.versions[i].name == name {
			return &c.versions[i]
		}
	}
	return nil
}

// storageVersion is the version marked storage ("" when none is).
func (c *crd) storageVersion() string {
	for _, v := range c.versions {
		if v.storage {
			return v.name
		}
	}
	return ""
}
