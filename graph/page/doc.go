// Package page builds the upgrade-graph page that `fbc graph -o html` and
// `fbc diff -o html` write: one self-contained HTML file whose script draws
// a package's channels, edges and simulated upgrades from a JSON document
// embedded in it.
//
// Everything the page says about upgrades is computed here, in Go, with the
// graph package's resolvers: heads, each bundle's next step and why, how
// many upgrades its path takes and how it ends, the dead ends `fbc
// upgrade-path --all` finds, where OLM classic and OLM v1 part ways. The
// page's script only draws: it follows the next steps given here to show a
// path, and never decides one. Document is that data; its JSON is what the
// tests compare (the HTML around it may change without touching them).
package page

import "github.com/fbc-project/fbc/graph"

// Document is everything a page shows.
type Document struct {
	// Kind is "graph" for `fbc graph -o html`, "diff" for `fbc diff -o
	// html`.
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Catalog is the catalog as named on the command line (graph pages),
	// for the commands the page shows; Old and New are diff's.
	Catalog string `json:"catalog,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	// Channel is the channel the page opens on, "" for the view of every
	// channel.
	Channel string `json:"channel,omitempty"`
	// Packages are the packages shown, by name: every package of the
	// catalog, the one asked for, or (diff) those the change touched.
	Packages []*Package `json:"packages"`
	// Unchanged counts, on a diff page, the packages the change left as
	// they were (not shown).
	Unchanged int `json:"unchanged,omitempty"`
	// Diff is the diff's verdict and findings, on a diff page.
	Diff *Diff `json:"diff,omitempty"`
	// Warnings are the problems the simulations worked around, as fbc
	// prints them on standard error.
	Warnings []string `json:"warnings,omitempty"`
}

// Package is one package's graph: its bundles along the version axis, its
// channels, and one view per channel plus one of every channel.
type Package struct {
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	// OldDefaultChannel is, on a diff page, the default channel before
	// the change when it changed.
	OldDefaultChannel string `json:"oldDefaultChannel,omitempty"`
	// Deprecated is the olm.deprecations message of the package.
	Deprecated string `json:"deprecated,omitempty"`
	// Status is, on a diff page, "added", "removed" or "changed".
	Status string `json:"status,omitempty"`
	// Bundles are every node of the package's views, in ascending version
	// order (those without a version first): bundles, and the names
	// entries and edges give that have no olm.bundle. Other fields refer
	// to a bundle by its index here.
	Bundles  []*Bundle  `json:"bundles"`
	Channels []*Channel `json:"channels"`
	// Views are the package seen through every channel at once (Channel
	// ""), then through each channel, by name.
	Views []*View `json:"views"`
	// Lifecycle is the package's io.openshift.operators.lifecycles.v1alpha1
	// blob: the support phases of its minor versions.
	Lifecycle []*LifecycleVersion `json:"lifecycle,omitempty"`
	// Problems counts the bundles with a problem the survey finds (graph
	// pages) or the findings (diff pages), for the package picker.
	Problems int `json:"problems"`
	// Changes and Findings are, on a diff page, what the change did to
	// the package, as fbc diff lists them.
	Changes  []string            `json:"changes,omitempty"`
	Findings []graph.FindingJSON `json:"findings,omitempty"`
}

// Bundle is one node: a bundle of the package, or a name an entry or an
// edge gives without an olm.bundle.
type Bundle struct {
	Name string `json:"name"`
	// Version is the olm.package version, "" when there is none.
	Version string `json:"version,omitempty"`
	// OldVersion is, on a diff page, the version before the change when
	// the change edited it.
	OldVersion string `json:"oldVersion,omitempty"`
	// Missing marks a name without an olm.bundle.
	Missing bool `json:"missing,omitempty"`
	// Deprecated is the olm.deprecations message of the bundle.
	Deprecated string `json:"deprecated,omitempty"`
	// LegacyDeprecated marks the olm.deprecated property: OLM classic
	// never installs the bundle.
	LegacyDeprecated bool `json:"legacyDeprecated,omitempty"`
	// Dependencies names the first property by which the bundle declares
	// dependencies, "" when it declares none.
	Dependencies string `json:"dependencies,omitempty"`
	// Lifecycle names the Lifecycle version of the bundle's MAJOR.MINOR.
	Lifecycle string `json:"lifecycle,omitempty"`
	// Status is, on a diff page, "added" or "removed".
	Status string `json:"status,omitempty"`
}

// Channel is one olm.channel blob.
type Channel struct {
	Name       string `json:"name"`
	Deprecated string `json:"deprecated,omitempty"`
	// Status is, on a diff page, "added" or "removed".
	Status string `json:"status,omitempty"`
	// Heads are the entries no other entry replaces or skips (a valid
	// channel has one).
	Heads   []int    `json:"heads"`
	Entries []*Entry `json:"entries"`
}

// Entry is a channel entry as written.
type Entry struct {
	Bundle    int      `json:"bundle"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`
	// SkippedBy names an entry of the channel that skips this one: OLM
	// classic never offers it.
	SkippedBy string `json:"skippedBy,omitempty"`
	// Status is, on a diff page, "added" or "removed".
	Status string `json:"status,omitempty"`
}

// View is the package seen through one channel (a subscription to it), or
// through every channel at once.
type View struct {
	// Channel is "" for the view of every channel.
	Channel string `json:"channel"`
	// Nodes are the bundles drawn, ascending: the channels' entries, the
	// names their edges give and, in the view of every channel, the
	// bundles no channel lists.
	Nodes []int `json:"nodes"`
	// Edges are the replaces and skips edges, from the older bundle to
	// the newer one.
	Edges []*Edge `json:"edges"`
	// Ranges are the skipRange edges: the nodes a range contains, and the
	// entry it upgrades them to.
	Ranges []*Range `json:"ranges,omitempty"`
	// Classic and V1 simulate a Subscription and a ClusterExtension of
	// the view's channel (of no channel, in the view of every channel); on
	// a diff page, in the new catalog, and OldClassic and OldV1 in the
	// old one.
	Classic    *Sim `json:"classic"`
	V1         *Sim `json:"v1"`
	OldClassic *Sim `json:"oldClassic,omitempty"`
	OldV1      *Sim `json:"oldV1,omitempty"`
	// Differences are the nodes whose upgrades OLM classic and OLM v1
	// decide differently.
	Differences []*Difference `json:"differences,omitempty"`
}

// Edge is a replaces or skips edge.
type Edge struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Kind string `json:"kind"`
	// Channels, in the view of every channel, are the channels that
	// declare the edge.
	Channels []string `json:"channels,omitempty"`
	// ClassicIgnores says why OLM classic never follows the edge;
	// V1Ignores why OLM v1 does not take it.
	ClassicIgnores string `json:"classicIgnores,omitempty"`
	V1Ignores      string `json:"v1Ignores,omitempty"`
	// Status is, on a diff page, "added" or "removed".
	Status string `json:"status,omitempty"`
}

// Range is an entry's skipRange: every node whose version it contains
// upgrades to the entry.
type Range struct {
	To    int    `json:"to"`
	Range string `json:"range"`
	// Covers are the nodes the range contains, as runs of the view's
	// nodes: each pair is the first and the last bundle of a run.
	Covers   [][2]int `json:"covers"`
	Channels []string `json:"channels,omitempty"`
	// Invalid says why the range does not parse: both OLMs ignore it.
	Invalid        string `json:"invalid,omitempty"`
	ClassicIgnores string `json:"classicIgnores,omitempty"`
	Status         string `json:"status,omitempty"`
}

// Sim is one OLM's decisions for a view: from every node, and for a fresh
// install.
type Sim struct {
	// Semantics is "classic" or "v1".
	Semantics graph.Semantics `json:"semantics"`
	// Flags are what `fbc upgrade-path` takes, after --from, to give the
	// same answer ("--channel stable", "--semantics v1").
	Flags string `json:"flags"`
	// Fresh is a fresh install; its Next is where a new subscription
	// lands (the head), nil when it does not resolve.
	Fresh *Step `json:"fresh"`
	// Steps are the decision from each node, aligned with View.Nodes;
	// null for a node nothing is simulated from (no olm.bundle, or, on a
	// diff page, a bundle the catalog did not have yet).
	Steps []*Step `json:"steps"`
}

// Step is one resolution from an installed bundle, and where the path that
// starts there ends.
type Step struct {
	// Next is the bundle OLM moves to, -1 when it stays.
	Next int `json:"next"`
	// Reason says why, as fbc upgrade-path says it.
	Reason string `json:"reason,omitempty"`
	// Error is the step's resolution failure.
	Error string `json:"error,omitempty"`
	// Candidates are the first successors in preference order; More
	// counts those left out.
	Candidates []*Candidate `json:"candidates,omitempty"`
	More       int          `json:"more,omitempty"`
	// Moves counts the upgrades of the path from here (for a fresh
	// install, the bundles it installs and upgrades to); following Next
	// that many times gives the path fbc upgrade-path prints.
	Moves int `json:"moves"`
	// PathError is the failure that ends the path from here, if any: a
	// later step's, or a loop (when this step fails, Error ends it).
	PathError string `json:"pathError,omitempty"`
	// Note is what `fbc upgrade-path --all` says of the bundle in this
	// view's channel (a dead end, a failure, a step no cluster version
	// takes); in the view of every channel, what it says in each of the
	// bundle's channels. Hops counts the upgrades to the channel's head,
	// when the bundle gets there.
	Note string `json:"note,omitempty"`
	Hops *int   `json:"hops,omitempty"`
}

// Candidate is a successor of a step.
type Candidate struct {
	Bundle int `json:"bundle"`
	// Text is what fbc upgrade-path's line for it says after the bundle's
	// name and version: the edges that make it a successor, and why it
	// cannot be chosen, if it cannot.
	Text string `json:"text"`
}

// Difference is a node whose upgrades OLM classic and OLM v1 decide
// differently: where each goes next, or where each path ends.
type Difference struct {
	Bundle  int    `json:"bundle"`
	Classic string `json:"classic"`
	V1      string `json:"v1"`
}

// LifecycleVersion is a minor version of the package in its lifecycle
// blob.
type LifecycleVersion struct {
	Name      string              `json:"name"`
	Phases    []LifecyclePhase    `json:"phases"`
	Platforms []LifecyclePlatform `json:"platforms,omitempty"`
}

// LifecyclePhase is a support phase: its name and dates (YYYY-MM-DD).
type LifecyclePhase struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// LifecyclePlatform lists the platform releases a version runs on.
type LifecyclePlatform struct {
	Name     string   `json:"name"`
	Versions []string `json:"versions"`
}

// Diff is what fbc diff says of the change: its verdict, and what the
// findings of the packages shown (Package.Findings) add up to.
type Diff struct {
	Verdict   string            `json:"verdict"`
	Safe      bool              `json:"safe"`
	Semantics []graph.Semantics `json:"semantics"`
	Errors    int               `json:"errors"`
	Warnings  int               `json:"warnings"`
	// Preexisting counts the problems OLD had already, which the change
	// left as they were.
	Preexisting int `json:"preexisting"`
	// Fragment, OutOfScope and Prune are diff's fragment and pruning
	// settings, when they applied.
	Fragment   bool     `json:"fragment,omitempty"`
	OutOfScope []string `json:"outOfScope,omitempty"`
	Prune      string   `json:"prune,omitempty"`
}
