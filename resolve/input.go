// Package resolve predicts what OLM classic installs in a namespace: it
// resolves the namespace's Subscriptions together against the CatalogSources
// the namespace sees and the CSVs already installed, the way OLM's catalog
// operator does (candidate order, dependency properties, one bundle per
// package, one provider per API, a SAT solver with OLM's preference-driven
// search), and says why, or gives OLM's own message when it does not resolve.
// It also reads the Kubernetes manifests a GitOps repository holds
// (Subscription, CatalogSource, ClusterServiceVersion, OperatorGroup).
package resolve

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// CatalogKey names a CatalogSource.
type CatalogKey struct {
	Namespace string
	Name      string
}

// String is NAMESPACE/NAME, the way kubectl names an object.
func (k CatalogKey) String() string { return k.Namespace + "/" + k.Name }

// olmString is OLM's own rendering of a catalog in bundle identifiers and
// messages: NAME/NAMESPACE.
func (k CatalogKey) olmString() string { return k.Name + "/" + k.Namespace }

// Property is one property of a bundle as OLM serves it: a type and its value
// as JSON text.
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Entry is one bundle in one channel of a catalog, as OLM's resolver sees it
// (one per bundle and channel): the channel entry's edges and the bundle's
// properties.
type Entry struct {
	Name    string
	Package string
	Channel string
	// DefaultChannel says Channel is the package's default channel.
	DefaultChannel bool
	Replaces       string
	Skips          []string
	SkipRange      string
	// Version is the olm.package property's version.
	Version string
	// Properties are the bundle's properties without olm.bundle.object and
	// olm.csv.metadata, which the catalog's gRPC API does not serve.
	Properties []Property
}

// Catalog is the content of one CatalogSource.
type Catalog struct {
	Key CatalogKey
	// Priority is spec.priority: higher wins among catalogs offering a
	// dependency.
	Priority int
	Entries  []Entry
	// Err, when set, is why the catalog cannot be served; OLM fails any
	// resolution in a namespace that sees it.
	Err error
	// Problems are what else keeps opm from serving the catalog (fbc
	// validate explains each); resolution reads the catalog regardless.
	Problems []string
	// bundles are the catalog's bundles by name, for what OLM reads of a
	// CSV at install time (CSVFacts); nil for a catalog made of Entries.
	bundles map[string]*model.Bundle

	// resolver is the catalog as the resolver reads it, made on first use
	// and shared by every namespace that sees the catalog: Entries must not
	// change once a resolution has read them.
	once     sync.Once
	resolver *catalog
}

// Subscription is the part of a Subscription resolution reads.
type Subscription struct {
	Name      string
	Namespace string
	Package   string
	Channel   string
	// Catalog is spec.source in spec.sourceNamespace.
	Catalog     CatalogKey
	StartingCSV string
	// InstalledCSV is status.installedCSV: the CSV this Subscription
	// installed, upgrades start from it.
	InstalledCSV string
	// Pos is where the Subscription's manifest is; zero for one given
	// without a manifest.
	Pos declcfg.Pos
}

// Installed is a ClusterServiceVersion present in the namespace.
type Installed struct {
	Name string
	// Version is the CSV's spec.version.
	Version string
	// Properties are what OLM projected onto the CSV when it installed it
	// (its operatorframework.io/properties annotation): the bundle's served
	// properties.
	Properties []Property
}

// Namespace is one resolution: everything OLM reads when it resolves the
// Subscriptions of a namespace.
type Namespace struct {
	Name string
	// Catalogs are the CatalogSources the namespace sees: its own and those
	// of the global namespace.
	Catalogs []*Catalog
	// GlobalNamespace is where catalogs visible to every namespace live.
	GlobalNamespace string
	Subscriptions   []Subscription
	Installed       []Installed
}

// Install is one bundle OLM installs (or upgrades to).
type Install struct {
	id      string
	Name    string     `json:"name"`
	Package string     `json:"package"`
	Channel string     `json:"channel"`
	Catalog CatalogKey `json:"-"`
	// Replaces is the installed CSV this bundle upgrades; empty for a new
	// install.
	Replaces string `json:"-"`
	// Subscription is the Subscription that asked for the bundle; empty for
	// a dependency (OLM then creates a Subscription named NewSubscription).
	Subscription string `json:"-"`
	// RequiredBy says which chosen bundles' dependencies this bundle
	// satisfies.
	RequiredBy []Requirement `json:"-"`
}

// NewSubscription is the name OLM gives the Subscription it creates for a
// dependency.
func (in Install) NewSubscription() string {
	return fmt.Sprintf("%s-%s-%s-%s", in.Package, in.Channel, in.Catalog.Name, in.Catalog.Namespace)
}

// Requirement is one dependency of a chosen bundle that an install satisfies.
type Requirement struct {
	// Bundle is the requiring bundle's name.
	Bundle string
	// What is OLM's description of the dependency ("an operator providing
	// an API with group: ..., version: ..., kind: ...").
	What string
	// Passed are the candidates OLM prefers but did not choose (they could
	// not be installed, or another choice already satisfied the
	// dependency), in preference order.
	Passed []string
}
