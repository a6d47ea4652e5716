// Package resolvetest reads the dependency-resolution scenarios verified
// against OLM's own resolver (testdata/resolve/dependency-vectors.json, a
// copy of the shared dependency.json) for the tests of resolve and of the
// CLI. It is used by tests only.
package resolvetest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Vector is one scenario. Conventions (olm-dependency-resolution.md §8):
// the main catalog is CatalogSource "catalog" in namespace "ns", the global
// namespace is "olm", a Subscription is named PACKAGE-CHANNEL unless it has
// a name, an installed bundle carries the properties of the catalog bundle
// of that name.
type Vector struct {
	Name          string            `json:"name"`
	Catalog       []json.RawMessage `json:"catalog"`
	Subscriptions []Subscription    `json:"subscriptions"`
	Installed     []string          `json:"installed"`
	ExtraCatalogs []struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Priority  int               `json:"priority"`
		Catalog   []json.RawMessage `json:"catalog"`
	} `json:"extra_catalogs"`
	Expect struct {
		InstalledBundles      []string          `json:"installed_bundles"`
		InstalledBundlesOneOf [][]string        `json:"installed_bundles_one_of"`
		Channels              map[string]string `json:"channels"`
		Catalogs              map[string]string `json:"catalogs"`
		ErrorContains         string            `json:"error_contains"`
		ErrorContainsAll      []string          `json:"error_contains_all"`
	} `json:"expect"`
}

// Subscription is a scenario's Subscription.
type Subscription struct {
	Package      string `json:"package"`
	Channel      string `json:"channel"`
	StartingCSV  string `json:"startingCSV"`
	InstalledCSV string `json:"installedCSV"`
	Name         string `json:"name"`
}

// Scenario conventions.
const (
	Namespace       = "ns"
	MainCatalog     = "catalog"
	GlobalNamespace = "olm"
)

// SubscriptionName is the name of the scenario's i-th Subscription.
func (v *Vector) SubscriptionName(i int) string {
	s := v.Subscriptions[i]
	if s.Name != "" {
		return s.Name
	}
	return s.Package + "-" + s.Channel
}

// ExtraNamespace is the namespace of an extra catalog.
func (v *Vector) ExtraNamespace(i int) string {
	if ns := v.ExtraCatalogs[i].Namespace; ns != "" {
		return ns
	}
	return Namespace
}

// JSONStream writes blobs as a JSON stream, one a line.
func JSONStream(blobs []json.RawMessage) []byte {
	var buf bytes.Buffer
	for _, b := range blobs {
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Load reads every scenario.
func Load(tb testing.TB) []Vector {
	tb.Helper()
	_, self, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(self), "..", "..", "testdata", "resolve", "dependency-vectors.json")
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	var vs []Vector
	if err := json.Unmarshal(data, &vs); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	if len(vs) == 0 {
		tb.Fatalf("%s holds no scenarios", file)
	}
	return vs
}
