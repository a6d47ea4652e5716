package olmv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// How operator-controller reads a package. catalogd serves a catalog's
// blobs; operator-controller keeps them in a cache, one file per blob under
// <package>/<schema>/<name>.json (an olm.package blob's package is its name;
// a blob without a name is named after its schema; a later blob of the same
// path replaces an earlier one). Resolving a package, it loads that
// package's folder and nothing else with operator-registry's declcfg.LoadFS
// (v1.73): olm.package, olm.channel, olm.bundle and olm.deprecations blobs
// are decoded with encoding/json into operator-registry's types, and each
// olm.bundle.object property's value as a {"data": base64} object. A blob
// that does not decode fails the package, and the walk over the catalogs
// stops there with the error; a broken blob of another package is never
// read. (operator-registry also turns each bundle object's data from YAML
// into JSON; data that is not YAML is not caught here.)

// packageReading follows one catalog source's documents as they are loaded
// (render.Request.Keep, in catalog order): which packages the catalog has,
// and for the packages resolution reads, each blob's fate as the cache
// files it.
type packageReading struct {
	want map[string]bool
	// names are the catalog's packages, for suggestions.
	names map[string]bool
	// blobs holds, for each wanted package, its cache files and whether
	// the last blob written there decodes.
	blobs map[string]map[cachePath]blobVerdict
}

// cachePath is where operator-controller's cache files a blob, within its
// package's folder.
type cachePath struct{ schema, name string }

// blobVerdict is a blob's problem as operator-registry's loader reports
// it, "" when it decodes; pos is where the blob is.
type blobVerdict struct {
	msg string
	pos declcfg.Pos
}

func newPackageReading(want map[string]bool) *packageReading {
	return &packageReading{want: want, names: map[string]bool{}, blobs: map[string]map[cachePath]blobVerdict{}}
}

// keep notes the document's package and says whether it is decoded: only
// the wanted packages' blobs are, and of those only what operator-registry
// decodes (the others fail their package instead).
func (r *packageReading) keep(doc declcfg.Document) bool {
	schema, pkg, name := doc.Identity()
	if pkg != "" {
		r.names[pkg] = true
	}
	if !r.want[pkg] {
		return false
	}
	if name == "" {
		name = schema
	}
	v := blobVerdict{msg: registryDecode(doc, schema), pos: doc.Pos}
	if r.blobs[pkg] == nil {
		r.blobs[pkg] = map[cachePath]blobVerdict{}
	}
	r.blobs[pkg][cachePath{schema, name}] = v
	return v.msg == ""
}

// broken is the error operator-registry's loader stops at when it loads
// pkg, and where that blob is; "" when every blob decodes. Of several
// broken blobs it names the first in the order the loader walks the
// folder (schema, then name, as file names sort).
func (r *packageReading) broken(pkg string) (string, declcfg.Pos) {
	var paths []cachePath
	for p, v := range r.blobs[pkg] {
		if v.msg != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return "", declcfg.Pos{}
	}
	slices.SortFunc(paths, func(a, b cachePath) int {
		if c := strings.Compare(a.schema, b.schema); c != 0 {
			return c
		}
		return strings.Compare(a.name+".json", b.name+".json")
	})
	v := r.blobs[pkg][paths[0]]
	return v.msg, v.pos
}

// packageNames is the catalog's packages, sorted.
func (r *packageReading) packageNames() []string {
	out := make([]string, 0, len(r.names))
	for n := range r.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// The shapes operator-registry decodes blobs into: their field types and
// JSON names are what encoding/json checks, and their names (without the
// prefix) what its errors say.
type (
	registryPackage struct {
		Schema         string             `json:"schema"`
		Name           string             `json:"name"`
		DefaultChannel string             `json:"defaultChannel"`
		Icon           *registryIcon      `json:"icon,omitempty"`
		Description    string             `json:"description,omitempty"`
		Properties     []registryProperty `json:"properties,omitempty"`
	}
	registryIcon struct {
		Data      []byte `json:"base64data"`
		MediaType string `json:"mediatype"`
	}
	registryChannel struct {
		Schema     string                 `json:"schema"`
		Name       string                 `json:"name"`
		Package    string                 `json:"package"`
		Entries    []registryChannelEntry `json:"entries"`
		Properties []registryProperty     `json:"properties,omitempty"`
	}
	registryChannelEntry struct {
		Name      string   `json:"name"`
		Replaces  string   `json:"replaces,omitempty"`
		Skips     []string `json:"skips,omitempty"`
		SkipRange string   `json:"skipRange,omitempty"`
	}
	registryBundle struct {
		Schema        string                 `json:"schema"`
		Name          string                 `json:"name,omitempty"`
		Package       string                 `json:"package,omitempty"`
		Image         string                 `json:"image"`
		Properties    []registryProperty     `json:"properties,omitempty"`
		RelatedImages []registryRelatedImage `json:"relatedImages,omitempty"`
	}
	registryRelatedImage struct {
		Name  string `json:"name"`
		Image string `json:"image"`
	}
	registryDeprecation struct {
		Schema  string                     `json:"schema"`
		Package string                     `json:"package"`
		Entries []registryDeprecationEntry `json:"entries"`
	}
	registryDeprecationEntry struct {
		Reference registryPackageScopedReference `json:"reference"`
		Message   string                         `json:"message"`
	}
	registryPackageScopedReference struct {
		Schema string `json:"schema"`
		Name   string `json:"name,omitempty"`
	}
	registryProperty struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	registryBundleObject struct {
		Data []byte `json:"data"`
	}
)

// registryDecode is operator-registry's loader on one blob: "" when it
// decodes, else the loader's error.
func registryDecode(doc declcfg.Document, schema string) string {
	// catalogd and the cache hand the loader JSON with sorted keys, so
	// that of two bad fields encoding/json reports the first in that
	// order.
	blob, err := declcfg.NodeToJSON(doc.Node, true)
	if err != nil {
		return err.Error()
	}
	switch schema {
	case declcfg.SchemaPackage:
		var p registryPackage
		if err := json.Unmarshal(blob, &p); err != nil {
			return "parse package: " + registryError(err)
		}
	case declcfg.SchemaChannel:
		var c registryChannel
		if err := json.Unmarshal(blob, &c); err != nil {
			return "parse channel: " + registryError(err)
		}
	case declcfg.SchemaBundle:
		var b registryBundle
		if err := json.Unmarshal(blob, &b); err != nil {
			return "parse bundle: " + registryError(err)
		}
		for i, p := range b.Properties {
			if p.Type != declcfg.PropertyBundleObject {
				continue
			}
			var obj registryBundleObject
			if err := json.Unmarshal(p.Value, &obj); err != nil {
				return fmt.Sprintf("read bundle objects: package %q, bundle %q: parse property at index %d as bundle object: %s", b.Package, b.Name, i, registryError(err))
			}
		}
	case declcfg.SchemaDeprecations:
		var d registryDeprecation
		if err := json.Unmarshal(blob, &d); err != nil {
			return "parse deprecation: " + registryError(err)
		}
	case "":
		// The blob as the cache holds it: encoded again, with a newline.
		return fmt.Sprintf("object '%s\n' is missing root schema field", blob)
	}
	return ""
}

// registryError is err as operator-registry's build of encoding/json says
// it: type errors name operator-registry's types.
func registryError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	if te.Struct != "" || te.Field != "" {
		return "json: cannot unmarshal " + te.Value + " into Go struct field " + strings.TrimPrefix(te.Struct, "registry") + "." + te.Field + " of type " + registryTypeName(te.Type)
	}
	return "json: cannot unmarshal " + te.Value + " into Go value of type " + registryTypeName(te.Type)
}

// registryTypeName is the name of one of the shapes above as Go prints
// operator-registry's type: declcfg.X, or property.Property.
func registryTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return "[]" + registryTypeName(t.Elem())
		}
	case reflect.Pointer:
		return "*" + registryTypeName(t.Elem())
	}
	name, ok := strings.CutPrefix(t.Name(), "registry")
	if !ok || t.PkgPath() != reflect.TypeFor[registryPackage]().PkgPath() {
		return t.String()
	}
	if name == "Property" || name == "BundleObject" {
		return "property." + name
	}
	return "declcfg." + name
}
