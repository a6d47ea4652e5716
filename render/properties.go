package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// compactJSON encodes v like opm's property builder: no HTML escaping, no
// trailing newline, struct fields in declaration order.
func compactJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values built from strings reach here; they always encode.
		panic(fmt.Sprintf("encoding property value: %v", err))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

type packageValue struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// bundleProperties derives a bundle's properties exactly as opm does
// (pkg/registry parse.go and ObjectsAndPropertiesFromBundle):
//
//  1. properties.yaml entries, then the olm.package built from the
//     annotations, the CSV's olm.properties annotation and one olm.gvk per
//     provided API, de-duplicated by type and value text;
//  2. olm.gvk become a set (with the provided APIs); the last olm.package
//     wins and is rebuilt; everything else is kept;
//  3. dependencies.yaml: olm.gvk -> olm.gvk.required, olm.package ->
//     olm.package.required, any other type kept as is;
//  4. required CRDs and APIServices -> olm.gvk.required (a set);
//  5. one olm.bundle.object per manifest;
//  6. sorted by type, then value text; bundle objects moved last.
//
// It also returns the version of the first olm.package of step 1, which is
// what opm's image reference template sees.
func bundleProperties(p *bundleParser, pkg string, csv *csvInfo, csvM *manifest, md *bundleMetadata, provided, required []apiKey, objects []*kubeObject) ([]declcfg.Property, string, *Error) {
	var listed []typedProperty
	listed = append(listed, md.properties...)
	listed = append(listed, typedProperty{Type: declcfg.PropertyPackage, Value: compactJSON(packageValue{pkg, csv.Version, csv.Release})})
	listed = append(listed, csv.Properties...)
	for _, k := range provided {
		listed = append(listed, typedProperty{Type: declcfg.PropertyGVK, Value: compactJSON(declcfg.GVK{Group: k.Group, Kind: k.Kind, Version: k.Version})})
	}
	listed = dedupe(listed)

	// bad is the error for a listed property: at its value in the
	// properties file it came from, or at the CSV.
	bad := func(tp typedProperty, err error) *Error {
		for i, q := range md.properties {
			if q.Type == tp.Type && bytes.Equal(q.Value, tp.Value) {
				return p.invalidMetadata(md.propsFile, md.propsData, md.propsLine, itemError("properties", i, "value", err))
			}
		}
		return p.invalid(csvM.file, csvM.line, err)
	}
	badDep := func(i int, field string, err error) *Error {
		return p.invalidMetadata(md.depsFile, md.depsData, md.depsLine, itemError("dependencies", i, field, err))
	}

	var (
		out          []declcfg.Property
		gvks         = map[declcfg.GVK]bool{}
		gvkRequired  = map[declcfg.GVK]bool{}
		pkgProp      *declcfg.Property
		firstVersion string
		sawPackage   bool
	)
	addGVK := func(set map[declcfg.GVK]bool, typ string, g declcfg.GVK) {
		if !set[g] {
			set[g] = true
			out = append(out, declcfg.Property{Type: typ, Value: compactJSON(g)})
		}
	}
	for _, tp := range listed {
		switch tp.Type {
		case declcfg.PropertyGVK:
			var g declcfg.GVK
			if err := json.Unmarshal(tp.Value, &g); err != nil {
				return nil, "", bad(tp, fmt.Errorf("property %s %s: %s", tp.Type, tp.Value, typeErrorWords(err)))
			}
			addGVK(gvks, declcfg.PropertyGVK, g)
		case declcfg.PropertyPackage:
			pp, err := decodePackage(tp.Value)
			if err != nil {
				return nil, "", bad(tp, fmt.Errorf("property %s %s: %v", tp.Type, tp.Value, err))
			}
			if !sawPackage {
				firstVersion, sawPackage = pp.Version, true
			}
			prop := declcfg.Property{Type: declcfg.PropertyPackage, Value: compactJSON(pp)}
			pkgProp = &prop
		default:
			out = append(out, declcfg.Property{Type: tp.Type, Value: tp.Value})
		}
	}
	for i, d := range md.dependencies {
		switch d.Type {
		case declcfg.PropertyGVK:
			var g declcfg.GVK
			if err := json.Unmarshal(d.Value, &g); err != nil {
				return nil, "", badDep(i, "value", fmt.Errorf("dependencies[%d] (%s): value %s", i, d.Type, typeErrorWords(err)))
			}
			addGVK(gvkRequired, declcfg.PropertyGVKRequired, g)
		case declcfg.PropertyPackage:
			var v struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}
			if err := json.Unmarshal(d.Value, &v); err != nil {
				return nil, "", badDep(i, "value", fmt.Errorf("dependencies[%d] (%s): value %s", i, d.Type, typeErrorWords(err)))
			}
			out = append(out, declcfg.Property{Type: declcfg.PropertyPackageRequired, Value: compactJSON(declcfg.PackageRequired{PackageName: v.PackageName, VersionRange: v.Version})})
		default:
			if len(d.Value) == 0 {
				return nil, "", badDep(i, "", fmt.Errorf("dependencies[%d] (%s): \"value\" is missing", i, d.Type))
			}
			out = append(out, declcfg.Property{Type: d.Type, Value: d.Value})
		}
	}
	for _, k := range provided {
		addGVK(gvks, declcfg.PropertyGVK, declcfg.GVK{Group: k.Group, Kind: k.Kind, Version: k.Version})
	}
	for _, k := range required {
		addGVK(gvkRequired, declcfg.PropertyGVKRequired, declcfg.GVK{Group: k.Group, Kind: k.Kind, Version: k.Version})
	}
	for _, o := range objects {
		out = append(out, bundleObjectProperty(o.JSON))
	}
	out = append(out, *pkgProp)
	sortProperties(out)
	return moveObjectsLast(out), firstVersion, nil
}

// decodePackage reads an olm.package value; release may be a string or a
// number.
func decodePackage(raw json.RawMessage) (packageValue, error) {
	pps, err := declcfg.PackageProperties([]declcfg.Property{{Type: declcfg.PropertyPackage, Value: raw}})
	if err != nil {
		return packageValue{}, err
	}
	pp := pps[0]
	return packageValue{pp.PackageName, pp.Version, pp.Release}, nil
}

// bundleObjectProperty wraps a manifest's JSON as olm.bundle.object.
func bundleObjectProperty(objJSON []byte) declcfg.Property {
	v := make([]byte, 0, base64.StdEncoding.EncodedLen(len(objJSON))+11)
	v = append(v, `{"data":"`...)
	v = base64.StdEncoding.AppendEncode(v, objJSON)
	v = append(v, `"}`...)
	return declcfg.Property{Type: declcfg.PropertyBundleObject, Value: v}
}

// dedupe drops repeated (type, value text) pairs, keeping the first.
func dedupe(in []typedProperty) []typedProperty {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, p := range in {
		k := p.Type + "\x00" + string(p.Value)
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// sortProperties orders by type, then by the value's JSON text.
func sortProperties(props []declcfg.Property) {
	slices.SortStableFunc(props, func(a, b declcfg.Property) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return bytes.Compare(a.Value, b.Value)
	})
}

// moveObjectsLast puts olm.bundle.object and olm.csv.metadata after every
// other property, keeping the relative order of both groups.
func moveObjectsLast(props []declcfg.Property) []declcfg.Property {
	out := make([]declcfg.Property, 0, len(props))
	var objs []declcfg.Property
	for _, p := range props {
		if p.Type == declcfg.PropertyBundleObject || p.Type == declcfg.PropertyCSVMetadata {
			objs = append(objs, p)
			continue
		}
		out = append(out, p)
	}
	return append(out, objs...)
}

// sortRelatedImages orders by image with sort.Slice, not a stable sort:
// opm does, and entries with the same image but different names (common:
// "foo_bar" and "foo-bar" aliases) come out in sort.Slice's order, which is
// deterministic for a given input order.
func sortRelatedImages(ris []declcfg.RelatedImage) {
	sort.Slice(ris, func(i, j int) bool { return ris[i].Image < ris[j].Image })
}
