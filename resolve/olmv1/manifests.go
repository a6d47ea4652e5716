// Package olmv1 predicts what OLM v1 (operator-controller v1.11) does with
// ClusterExtensions: whether the API server admits them (the
// ClusterExtension CRD's schema and CEL rules), which bundle its resolver
// picks across the ClusterCatalogs (or its exact error), why, and whether
// the bundle installs with the extension's configuration. The per-catalog
// rules (channels, version range, successors, deprecations, version and
// release order) are graph's; this package walks the catalogs the way
// operator-controller's CatalogResolver does.
package olmv1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Group is the API group of ClusterCatalogs and ClusterExtensions.
const Group = "olm.operatorframework.io"

// metadataNameLabel is the label catalogd's webhook puts on every
// ClusterCatalog, so that a selector can name a catalog.
const metadataNameLabel = "olm.operatorframework.io/metadata.name"

// ClusterCatalog is what resolution reads of a ClusterCatalog.
type ClusterCatalog struct {
	Name string
	// Labels are metadata.labels with catalogd's metadata.name label.
	Labels map[string]string
	// Priority is spec.priority (default 0).
	Priority int32
	// Unavailable is spec.availabilityMode Unavailable: operator-controller
	// leaves the catalog out before it walks the catalogs.
	Unavailable bool
	// NotServing is a Serving condition in status whose status is not
	// True: operator-controller's resolution fails on such a catalog. A
	// manifest without status (what a repository holds) is served.
	NotServing bool
	// ServingMessage is the Serving condition's reason and message, if
	// any.
	ServingMessage string
	// Image is spec.source.image.ref, the catalog image catalogd unpacks.
	Image string
	Pos   declcfg.Pos
}

// ClusterExtension is a ClusterExtension manifest: the fields resolution
// reads, and the whole object for admission.
type ClusterExtension struct {
	Name string
	// Namespace is spec.namespace, where the bundle's namespaced objects go.
	Namespace string
	// SourceType is spec.source.sourceType.
	SourceType string
	// The spec.source.catalog fields.
	PackageName string
	Version     string
	Channels    []string
	Selector    *LabelSelector
	// Policy is upgradeConstraintPolicy as written ("" is the default,
	// CatalogProvided).
	Policy string
	// Installed is status.install.bundle; nil for a fresh install.
	Installed *InstalledBundle
	// Config is spec.config, nil when absent.
	Config *Config
	// Pos is where the manifest starts.
	Pos declcfg.Pos

	// object is the manifest as plain values, node its document tree
	// (nil for an item of a List), for admission and field positions.
	object map[string]any
	node   *declcfg.Node
}

// InstalledBundle is status.install.bundle: the bundle an extension runs.
type InstalledBundle struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Release is recorded with BundleReleaseSupport (experimental CRD).
	Release *string `json:"release,omitempty"`
}

// Config is spec.config.
type Config struct {
	ConfigType string
	// Inline is spec.config.inline as JSON; nil when absent.
	Inline json.RawMessage
}

// LabelSelector is spec.source.catalog.selector.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []SelectorRequirement
}

// SelectorRequirement is one matchExpressions entry.
type SelectorRequirement struct {
	Key      string
	Operator string
	Values   []string
}

// decodeObject reads a manifest's JSON into plain values, numbers as
// int64 where they are whole, as the API server decodes them.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := normalize(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

// at reads a nested value; nil when a step is missing or not an object.
func at(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ParseClusterCatalog reads a ClusterCatalog manifest (raw JSON). Values
// of the wrong type are errors: the API server would refuse the object.
func ParseClusterCatalog(pos declcfg.Pos, raw []byte) (ClusterCatalog, error) {
	obj, err := decodeObject(raw)
	if err != nil {
		return ClusterCatalog{}, err
	}
	c := ClusterCatalog{Name: str(at(obj, "metadata", "name")), Pos: pos, Labels: map[string]string{}}
	if c.Name == "" {
		return c, fieldError([]string{"metadata", "name"}, "metadata.name is required")
	}
	if labels, ok := at(obj, "metadata", "labels").(map[string]any); ok {
		for k, v := range labels {
			s, ok := v.(string)
			if !ok {
				return c, fieldError([]string{"metadata", "labels", k}, "metadata.labels.%s: want a string, got %s", k, withArticle(typeName(v)))
			}
			c.Labels[k] = s
		}
	}
	c.Labels[metadataNameLabel] = c.Name
	switch p := at(obj, "spec", "priority").(type) {
	case nil:
	case int64:
		if p < -2147483648 || p > 2147483647 {
			return c, fieldError([]string{"spec", "priority"}, "spec.priority: %d is outside the 32-bit range the CRD allows", p)
		}
		c.Priority = int32(p)
	default:
		return c, fieldError([]string{"spec", "priority"}, "spec.priority: want an integer, got %s", withArticle(typeName(p)))
	}
	switch m := at(obj, "spec", "availabilityMode"); m {
	case nil, "Available":
	case "Unavailable":
		c.Unavailable = true
	default:
		return c, fieldError([]string{"spec", "availabilityMode"}, "spec.availabilityMode: Unsupported value: %s: supported values: \"Available\", \"Unavailable\"", quoteValue(m))
	}
	c.Image = str(at(obj, "spec", "source", "image", "ref"))
	if conds, ok := at(obj, "status", "conditions").([]any); ok {
		for _, cond := range conds {
			if str(at(cond, "type")) != "Serving" {
				continue
			}
			if st := str(at(cond, "status")); st != "True" {
				c.NotServing = true
				msg := strings.TrimSpace(str(at(cond, "reason")) + ": " + str(at(cond, "message")))
				c.ServingMessage = strings.Trim(msg, ": ")
				if c.ServingMessage == "" {
					c.ServingMessage = "Serving is " + st
				}
			}
		}
	}
	return c, nil
}

// ParseClusterExtension reads a ClusterExtension manifest (raw JSON, and
// its document tree when it has one, for field positions). It is lenient:
// fields of the wrong type are left empty here and refused by Admit, as
// the API server refuses them.
func ParseClusterExtension(pos declcfg.Pos, raw []byte, node *declcfg.Node) (ClusterExtension, error) {
	obj, err := decodeObject(raw)
	if err != nil {
		return ClusterExtension{}, err
	}
	e := ClusterExtension{Name: str(at(obj, "metadata", "name")), Pos: pos, object: obj, node: node}
	if e.Name == "" {
		return e, fieldError([]string{"metadata", "name"}, "metadata.name is required")
	}
	e.Namespace = str(at(obj, "spec", "namespace"))
	e.SourceType = str(at(obj, "spec", "source", "sourceType"))
	cat := at(obj, "spec", "source", "catalog")
	e.PackageName = str(at(cat, "packageName"))
	e.Version = str(at(cat, "version"))
	e.Policy = str(at(cat, "upgradeConstraintPolicy"))
	if chans, ok := at(cat, "channels").([]any); ok {
		for _, c := range chans {
			if s, ok := c.(string); ok {
				e.Channels = append(e.Channels, s)
			}
		}
	}
	if sel, ok := at(cat, "selector").(map[string]any); ok {
		e.Selector = &LabelSelector{MatchLabels: map[string]string{}}
		if ml, ok := sel["matchLabels"].(map[string]any); ok {
			for k, v := range ml {
				if s, ok := v.(string); ok {
					e.Selector.MatchLabels[k] = s
				}
			}
		}
		if exprs, ok := sel["matchExpressions"].([]any); ok {
			for _, x := range exprs {
				r := SelectorRequirement{Key: str(at(x, "key")), Operator: str(at(x, "operator"))}
				if vals, ok := at(x, "values").([]any); ok {
					for _, v := range vals {
						if s, ok := v.(string); ok {
							r.Values = append(r.Values, s)
						}
					}
				}
				e.Selector.MatchExpressions = append(e.Selector.MatchExpressions, r)
			}
		}
	}
	if cfg, ok := at(obj, "spec", "config").(map[string]any); ok {
		e.Config = &Config{ConfigType: str(cfg["configType"])}
		if in, ok := cfg["inline"]; ok && in != nil {
			e.Config.Inline, _ = json.Marshal(in)
		}
	}
	if b, ok := at(obj, "status", "install", "bundle").(map[string]any); ok {
		ib := &InstalledBundle{Name: str(b["name"]), Version: str(b["version"])}
		if r, ok := b["release"].(string); ok {
			ib.Release = &r
		}
		if ib.Name != "" || ib.Version != "" {
			e.Installed = ib
		}
	}
	return e, nil
}

// FieldPos is where a field of the manifest is written: the position of
// the deepest part of path the document has (the object's start when it
// has none, or for an item of a List). Path elements are mapping keys or,
// for sequences, indexes.
func (e *ClusterExtension) FieldPos(path ...string) declcfg.Pos {
	return FieldPos(e.Pos, e.node, path...)
}

// FieldPos is where a field of a manifest is written: the position of the
// deepest part of path the document tree node has, in the file of pos
// (pos itself when node is nil or has none of path). Path elements are
// mapping keys or, for sequences, indexes.
func FieldPos(pos declcfg.Pos, node *declcfg.Node, path ...string) declcfg.Pos {
	if node == nil {
		return pos
	}
	at, n := pos, fieldRoot(node)
	for _, p := range path {
		key, next := declcfg.ManifestKeys.Step(n, p)
		if next == nil {
			break
		}
		if key == nil {
			key = next // a sequence's item
		}
		at = declcfg.Pos{File: pos.File, Line: key.Line, Col: key.Column}
		if next.Kind == declcfg.ScalarNode {
			at = declcfg.Pos{File: pos.File, Line: next.Line, Col: next.Column}
		}
		n = next
	}
	return at
}

// FieldNode is the value at path in a manifest's document tree node, as
// FieldPos walks it; nil when the tree has no such field.
func FieldNode(node *declcfg.Node, path ...string) *declcfg.Node {
	if node == nil {
		return nil
	}
	n := fieldRoot(node)
	for _, p := range path {
		if _, n = declcfg.ManifestKeys.Step(n, p); n == nil {
			return nil
		}
	}
	return n
}

// fieldRoot is the object a document tree node holds.
func fieldRoot(node *declcfg.Node) *declcfg.Node {
	n := declcfg.Deref(node)
	if n.Kind == declcfg.DocumentNode && len(n.Content) > 0 {
		n = declcfg.Deref(n.Content[0])
	}
	return n
}

// FieldError is a problem with one field of a manifest, which Path (as
// FieldPos takes it) locates.
type FieldError struct {
	Path []string
	Msg  string
}

func (e *FieldError) Error() string { return e.Msg }

func fieldError(path []string, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// withArticle puts "a" or "an" before an OpenAPI type name.
func withArticle(t string) string {
	switch {
	case t == "null":
		return t
	case strings.IndexByte("aeiou", t[0]) >= 0:
		return "an " + t
	}
	return "a " + t
}

// typeName names a JSON value's type the way OpenAPI does.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// quoteValue renders a bad value the way the API server's field errors
// do: strings quoted, numbers and booleans plain, the rest as JSON.
func quoteValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64, float64, bool:
		return fmt.Sprint(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
