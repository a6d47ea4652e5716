package profile

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	v1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

const (
	kindCSV = "ClusterServiceVersion"
	kindCRD = "CustomResourceDefinition"
)

// bundle is one bundle's contents, parsed once for every check.
type bundle struct {
	in        *validate.BundleContents
	pkg, name string
	objects   []*object
	// csv is the ClusterServiceVersion: decoded from its manifest
	// (csvObj), or, for a catalog bundle without one, made from
	// olm.csv.metadata (partial: no install strategy, webhooks, icon,
	// related images, name or version of its own).
	csv     *v1alpha1.ClusterServiceVersion
	csvObj  *object
	partial bool
	crds    []*crd
	// files maps a bundle file's name to it (bundle directories and
	// images), for positions within manifests.
	files map[string]*validate.BundleFile
	// roots caches parsed files (fileRoot).
	roots map[string]*declcfg.Node
	// problems are manifests the checks cannot read.
	problems []finding
}

// object is one manifest of a bundle.
type object struct {
	validate.BundleObject
	apiVersion, kind, name string
}

func (o *object) label() string {
	return fmt.Sprintf("%s %q", o.kind, o.name)
}

// parseBundle reads what the checks need: every object's identity, the
// CSV and the CRDs.
func parseBundle(in *validate.BundleContents, crds *crdCache) *bundle {
	b := &bundle{in: in}
	if in.Bundle != nil {
		b.pkg, b.name = in.Bundle.Package, in.Bundle.Name
	}
	if len(in.Files) > 0 {
		b.files = make(map[string]*validate.BundleFile, len(in.Files))
		for i := range in.Files {
			b.files[in.Files[i].Name] = &in.Files[i]
		}
	}
	for _, bo := range in.Objects {
		o := &object{BundleObject: bo, apiVersion: bo.APIVersion, kind: bo.Kind, name: bo.Name}
		b.objects = append(b.objects, o)
		switch {
		case o.kind == kindCSV && b.csvObj == nil:
			csv := &v1alpha1.ClusterServiceVersion{}
			if err := json.Unmarshal(bo.JSON, csv); err != nil {
				b.problems = append(b.problems, finding{rule: validate.RuleCSVFields, sev: declcfg.SeverityError, at: o.Pos,
					msg: fmt.Sprintf("%s does not decode as a ClusterServiceVersion: %v; the profiles cannot check it", o.label(), jsonProblem(err))})
				continue
			}
			b.csv, b.csvObj = csv, o
		case o.kind == kindCRD:
			c, err := crds.parse(o)
			if err != nil {
				b.problems = append(b.problems, finding{rule: validate.RuleCRDInvalid, sev: declcfg.SeverityError, at: o.Pos,
					msg: fmt.Sprintf("%s does not decode as a CustomResourceDefinition: %v", o.label(), jsonProblem(err))})
				continue
			}
			b.crds = append(b.crds, c)
		}
	}
	if b.csv == nil && in.FromCatalog && in.Bundle != nil {
		b.csv, b.partial = csvFromMetadata(in.Bundle)
	}
	return b
}

// jsonProblem words a decoding error without Go type names where it can.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asTypeError(err, &te); ok && te.Field != "" {
		return fmt.Sprintf("%s is a JSON %s, which does not fit", te.Field, te.Value)
	}
	return err.Error()
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*target = te
	}
	return ok
}

// csvFromMetadata makes the ClusterServiceVersion the checks can see in a
// catalog bundle that carries only olm.csv.metadata. The name and version
// are the bundle's.
func csvFromMetadata(bl *declcfg.Bundle) (*v1alpha1.ClusterServiceVersion, bool) {
	for _, p := range bl.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		// The property keeps CSV fields under their spec names (matched
		// without regard to case, as encoding/json does), except for the
		// CRD descriptions; its annotations and labels are the CSV's
		// metadata's and, under the same names, the spec's too. One
		// decode reads them all: the value holds the description, icons
		// and examples, and decoding it twice was a tenth of the profiles'
		// time on a catalog of olm.csv.metadata.
		var md struct {
			v1alpha1.ClusterServiceVersionSpec
			// These shadow the spec's fields of the same names.
			Annotations map[string]string                  `json:"annotations"`
			Labels      map[string]string                  `json:"labels"`
			CRDs        v1alpha1.CustomResourceDefinitions `json:"crdDescriptions"`
		}
		if json.Unmarshal(p.Value, &md) != nil {
			return nil, false // the catalog rules report the property's shape
		}
		csv := &v1alpha1.ClusterServiceVersion{Spec: md.ClusterServiceVersionSpec}
		csv.APIVersion = v1alpha1.SchemeGroupVersion.String()
		csv.Kind = kindCSV
		csv.Name = bl.Name
		csv.Annotations, csv.Labels = md.Annotations, md.Labels
		s := &csv.Spec
		s.Annotations, s.Labels = maps.Clone(md.Annotations), maps.Clone(md.Labels)
		s.CustomResourceDefinitions = md.CRDs
		if v, err := bl.Version(); err == nil {
			_ = s.Version.UnmarshalJSON([]byte(fmt.Sprintf("%q", v)))
		}
		return csv, true
	}
	return nil, false
}

// csvName names the CSV in messages (the bundle's name for a CSV made from
// olm.csv.metadata).
func (b *bundle) csvName() string {
	if b.csv != nil && b.csv.Name != "" {
		return b.csv.Name
	}
	return b.name
}

// csvPos is where findings about the CSV point: its manifest, or the
// bundle blob.
func (b *bundle) csvPos() declcfg.Pos {
	if b.csvObj != nil {
		return b.csvObj.Pos
	}
	if b.partial && b.in.CSVMetadataPos != (declcfg.Pos{}) {
		return b.in.CSVMetadataPos
	}
	return b.in.Pos
}

// objectNamed finds an object by kind and name.
func (b *bundle) objectNamed(kind, name string) *object {
	for _, o := range b.objects {
		if o.kind == kind && o.name == name {
			return o
		}
	}
	return nil
}

// apiGroup is the group of an apiVersion ("" for the core group).
func apiGroup(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}
