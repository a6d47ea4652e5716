package olmv1

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/olmv1gate"
)

// Catalog is a ClusterCatalog with the content resolution reads: the
// packages the extensions name, each as catalogd serves it to
// operator-controller.
type Catalog struct {
	ClusterCatalog
	// packages holds each package's blobs, nil when the catalog has none
	// of it; loaded tells which packages were read.
	packages map[string]*packageData
	loaded   bool
	// names are every package the catalog has, sorted (for suggestions).
	names []string
	// source is the content fbc reads; given says the request gave it,
	// config when it gave it loaded.
	source string
	given  bool
	config *declcfg.DeclarativeConfig
}

// packageData is one package of a catalog, as operator-controller reads it
// from catalogd's cache: one blob per schema and name (the last one
// written wins), bundles in name order.
type packageData struct {
	pkg *graph.Package
	// deprecation is the package's olm.deprecations blob, nil when it has
	// none.
	deprecation *declcfg.Deprecation
	// others counts blobs of other schemas that name the package: they
	// make the package "found" even without bundles.
	others int
	// broken is operator-registry's error loading the package, where a
	// blob of it does not decode the way operator-controller decodes it
	// (registryload.go), and brokenPos that blob; "" when it loads.
	broken    string
	brokenPos declcfg.Pos
}

// Resolved is the bundle operator-controller installs.
type Resolved struct {
	Name string
	// Version is as operator-controller records it in
	// status.install.bundle.version; Release is recorded apart only with
	// BundleReleaseSupport.
	Version  string
	Release  *string
	Image    string
	Catalog  string
	Priority int32
	bundle   *graph.Bundle
	catalog  *Catalog
	sel      *graph.V1Selection
}

// Deprecation is the olm.deprecations blob operator-controller returns
// with a resolution, and the conditions it sets from it.
type Deprecation struct {
	// Catalog is the catalog the blob comes from.
	Catalog string
	Entries []DeprecationEntry
	// Package, Channel and Bundle are the messages of the
	// PackageDeprecated, ChannelDeprecated and BundleDeprecated conditions
	// (the channels the extension names, every channel when it names
	// none; the resolved bundle).
	Package, Channel, Bundle []string
}

// DeprecationEntry is one entry of an olm.deprecations blob.
type DeprecationEntry struct {
	Schema  string `json:"schema"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

// CatalogReport is what one ClusterCatalog offered the extension: what
// operator-controller's resolver logs (found, total, matched) and why it
// took part or not.
type CatalogReport struct {
	Name     string
	Priority int32
	// Skipped says why the catalog took no part: its labels do not match
	// the selector, or it is unavailable. Empty for a catalog walked.
	Skipped string
	// NotServing is the Serving condition of a catalog that is not being
	// served: operator-controller's walk fails on it.
	NotServing string
	// Unreadable says where the catalog's package does not load as
	// operator-controller loads it: the walk fails on it.
	Unreadable string
	// PackageFound, Total and Matched are the resolver's statistics:
	// whether the catalog has the package, its bundles, and how many pass
	// the filters.
	PackageFound   bool
	Total, Matched int
	// Best is the catalog's best bundle after the filters, "" when none;
	// BestDeprecated says it is deprecated.
	Best           string
	BestVersion    string
	BestDeprecated bool
	// Outcome says what became of Best: "chosen", or why another
	// catalog's bundle was preferred.
	Outcome string
}

// PassedOver is a bundle ranked above the one chosen (a higher version or
// release) and why operator-controller did not choose it.
type PassedOver struct {
	Bundle  string
	Version string
	Catalog string
	Reason  string
}

// skippedSelector is CatalogReport.Skipped for a catalog the selector
// leaves out.
const skippedSelector = "its labels do not match the selector"

// found is a catalog's best bundle during the walk.
type found struct {
	cat        *Catalog
	bundle     *graph.Bundle
	sel        *graph.V1Selection
	deprecated bool
	data       *packageData
}

// ResolutionError is operator-controller's refusal to resolve: its exact
// message.
type ResolutionError struct{ Msg string }

func (e *ResolutionError) Error() string { return e.Msg }

// resolveOne walks the catalogs the way operator-controller's
// CatalogResolver does: catalogs in name order (the cluster lists them in
// an order of its own, which changes nothing but, where several catalogs
// tie, which one's deprecations are returned), each catalog's bundles
// filtered and sorted, deprecated catalogs' bests set aside when another
// offers a non-deprecated one, then the highest priority, then the checks
// on the chosen bundle.
func resolveOne(e *ClusterExtension, installed *InstalledBundle, catalogs []*Catalog, gates olmv1gate.Gates, res *Result) {
	fail := func(format string, args ...any) {
		res.Err = &ResolutionError{Msg: fmt.Sprintf(format, args...)}
	}
	match, err := e.Selector.compile()
	if err != nil {
		fail("desired catalog selector is invalid: %v", err)
		return
	}
	if e.Version != "" {
		if _, err := graph.ParseVersionRange(e.Version); err != nil {
			fail("%v", err)
			return
		}
	}
	policy := graph.CatalogProvided
	if e.Policy == string(graph.SelfCertified) {
		policy = graph.SelfCertified
	}
	var from *graph.Installed
	if installed != nil {
		from = &graph.Installed{Name: installed.Name, Version: installed.Version, Release: installed.Release}
	}
	var walked []*Catalog
	for _, c := range catalogs {
		rep := CatalogReport{Name: c.Name, Priority: c.Priority}
		switch {
		case !match(c.Labels):
			rep.Skipped = skippedSelector
		case c.Unavailable:
			rep.Skipped = "availabilityMode Unavailable"
		default:
			walked = append(walked, c)
		}
		res.Catalogs = append(res.Catalogs, rep)
	}
	report := func(name string) *CatalogReport {
		for i := range res.Catalogs {
			if res.Catalogs[i].Name == name {
				return &res.Catalogs[i]
			}
		}
		return nil
	}
	var (
		bests      []found
		selections = map[*Catalog]*graph.V1Selection{}
	)
	for _, c := range walked {
		if c.NotServing {
			report(c.Name).NotServing = c.ServingMessage
			fail("error walking catalogs: error getting package %q from catalog %q: catalog %q is not being served", e.PackageName, c.Name, c.Name)
			return
		}
		rep := report(c.Name)
		data := c.packages[e.PackageName]
		if data == nil {
			continue
		}
		if data.broken != "" {
			rep.Unreadable = data.brokenPos.Prefix("a blob of the package does not load")
			fail("error walking catalogs: error getting package %q from catalog %q: error loading package %q: %s", e.PackageName, c.Name, e.PackageName, data.broken)
			return
		}
		rep.PackageFound = true
		if data.pkg == nil {
			continue
		}
		rep.Total = len(data.pkg.Bundles)
		// A channel named "" (which the CRD refuses) names no channel.
		channels := slices.DeleteFunc(slices.Clone(e.Channels), func(c string) bool { return c == "" })
		if len(channels) == 0 && len(e.Channels) > 0 {
			continue
		}
		r, err := graph.NewResolver(data.pkg, graph.Options{Semantics: graph.V1, Channels: channels, VersionRange: e.Version,
			Policy: policy, BundleRelease: gates.Enabled(olmv1gate.BundleReleaseSupport)})
		if err != nil {
			fail("%v", err) // the range parsed above; nothing else fails here
			return
		}
		sel, err := r.SelectV1(from)
		if err != nil {
			fail("error walking catalogs: error finding upgrade edges: %v", err)
			return
		}
		selections[c] = sel
		rep.Matched = len(sel.Kept)
		if len(sel.Kept) == 0 {
			continue
		}
		top := sel.Kept[0]
		rep.Best, rep.BestVersion = top.Name, top.Version
		rep.BestDeprecated = top.Deprecation != nil
		f := found{cat: c, bundle: top, sel: sel, deprecated: rep.BestDeprecated, data: data}
		if len(bests) > 0 {
			priorDeprecated := bests[len(bests)-1].deprecated
			switch {
			case f.deprecated && !priorDeprecated:
				continue
			case !f.deprecated && priorDeprecated:
				bests = bests[:0]
			}
		}
		bests = append(bests, f)
	}
	// Catalogs whose best was set aside for a non-deprecated one.
	for _, c := range walked {
		rep := report(c.Name)
		if rep.Best != "" && !slices.ContainsFunc(bests, func(f found) bool { return f.cat == c }) {
			rep.Outcome = "set aside: deprecated, and another catalog offers a bundle that is not"
		}
	}
	if len(bests) > 1 {
		sort.SliceStable(bests, func(i, j int) bool { return bests[i].cat.Priority > bests[j].cat.Priority })
		if bests[0].cat.Priority != bests[1].cat.Priority {
			for _, f := range bests[1:] {
				report(f.cat.Name).Outcome = fmt.Sprintf("lower priority (%d) than catalog %s (%d)", f.cat.Priority, bests[0].cat.Name, bests[0].cat.Priority)
			}
			bests = bests[:1]
		}
	}
	if len(bests) != 1 {
		var sb strings.Builder
		if installed != nil {
			fmt.Fprintf(&sb, "error upgrading from currently installed version %q: ", installed.Version)
		}
		if len(bests) > 1 {
			fmt.Fprintf(&sb, "found bundles for package %q ", e.PackageName)
		} else {
			fmt.Fprintf(&sb, "no bundles found for package %q ", e.PackageName)
		}
		if e.Version != "" {
			fmt.Fprintf(&sb, "matching version %q ", e.Version)
		}
		if len(e.Channels) > 0 {
			fmt.Fprintf(&sb, "in channels %v ", e.Channels)
		}
		if len(bests) > 1 {
			names := make([]string, len(bests))
			for i, f := range bests {
				names[i] = f.cat.Name
				report(f.cat.Name).Outcome = "ties on priority"
			}
			slices.Sort(names)
			fmt.Fprintf(&sb, "in multiple catalogs with the same priority %v ", names)
		}
		fail("%s", strings.TrimSpace(sb.String()))
		res.PassedOver = passedOver(nil, walked, selections, res)
		res.Hint = packageHint(e.PackageName, walked)
		return
	}
	win := bests[0]
	report(win.cat.Name).Outcome = "chosen"
	if err := win.sel.VersionErr(win.bundle); err != nil {
		fail("error getting resolved bundle version for bundle %q: %v", win.bundle.Name, err)
		return
	}
	for _, prop := range win.bundle.Blob.Properties {
		switch prop.Type {
		case declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired, declcfg.PropertyConstraint:
			fail("validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported", win.bundle.Name, win.bundle.Name, prop.Type)
			return
		}
	}
	version, release, _ := win.sel.Recorded(win.bundle)
	res.Bundle = &Resolved{Name: win.bundle.Name, Version: version, Release: release, Image: win.bundle.Image,
		Catalog: win.cat.Name, Priority: win.cat.Priority, bundle: win.bundle, catalog: win.cat, sel: win.sel}
	res.Deprecation = deprecationOf(e, win.cat.Name, win.data, win.bundle.Name)
	res.PassedOver = passedOver(&win, walked, selections, res)
}

// packageHint names the package the extension may have meant when none of
// the catalogs walked has the one it names: the nearest of theirs.
func packageHint(pkg string, walked []*Catalog) string {
	var names []string
	for _, c := range walked {
		if _, found := c.packages[pkg]; found {
			return ""
		}
		names = append(names, c.names...)
	}
	if s := declcfg.Suggest(pkg, names); s != "" {
		return fmt.Sprintf("no catalog has package %q; did you mean %q?", pkg, s)
	}
	return ""
}

// deprecationOf is the package's olm.deprecations blob in the winning
// catalog, and the conditions operator-controller sets from it.
// operator-controller returns the blob of the last catalog it kept while
// walking; that is the winner's unless several catalogs' bests tied on
// deprecation and the cluster listed the winner before another, so on a
// cluster the conditions may describe another catalog's blob.
func deprecationOf(e *ClusterExtension, catalog string, win *packageData, bundle string) *Deprecation {
	d := win.deprecation
	if d == nil {
		return nil
	}
	out := &Deprecation{Catalog: catalog}
	for _, en := range d.Entries {
		out.Entries = append(out.Entries, DeprecationEntry{Schema: en.Reference.Schema, Name: en.Reference.Name, Message: en.Message})
		switch en.Reference.Schema {
		case declcfg.SchemaPackage:
			out.Package = append(out.Package, en.Message)
		case declcfg.SchemaChannel:
			if len(e.Channels) == 0 || slices.Contains(e.Channels, en.Reference.Name) {
				out.Channel = append(out.Channel, en.Message)
			}
		case declcfg.SchemaBundle:
			if en.Reference.Name == bundle {
				out.Bundle = append(out.Bundle, en.Message)
			}
		}
	}
	return out
}

// maxPassedOver bounds the bundles listed as passed over: the highest
// ones say why; the rest would say the same.
const maxPassedOver = 10

// passedOver lists the bundles of the walked catalogs ranked above the
// chosen one by version and release (every catalog's highest when none
// was chosen), each with why operator-controller did not take it.
func passedOver(win *found, walked []*Catalog, selections map[*Catalog]*graph.V1Selection, res *Result) []PassedOver {
	type cand struct {
		b   *graph.Bundle
		cat *Catalog
		sel *graph.V1Selection
	}
	var cands []cand
	for _, c := range walked {
		sel := selections[c]
		data := c.packages[res.Extension.PackageName]
		if sel == nil || data == nil || data.pkg == nil {
			continue
		}
		for _, b := range data.pkg.Bundles {
			if win != nil && (b == win.bundle || !above(sel, b, win.bundle)) {
				continue
			}
			cands = append(cands, cand{b, c, sel})
		}
	}
	// Highest version first; ties in catalog order.
	slices.SortStableFunc(cands, func(x, y cand) int { return byVersion(x.sel, x.b, y.b) })
	var out []PassedOver
	for _, c := range cands {
		if len(out) == maxPassedOver {
			break
		}
		why := c.sel.Excluded(c.b)
		switch {
		case why != "":
		case win == nil:
			why = "kept by the filters" // reported with the catalog's outcome
		case c.b.Deprecation != nil && !win.deprecated:
			why = "deprecated: deprecated bundles sort after the others"
		case c.cat != win.cat:
			outcome := ""
			for _, r := range res.Catalogs {
				if r.Name == c.cat.Name {
					outcome = r.Outcome
				}
			}
			why = "its catalog " + c.cat.Name + " was not chosen: " + cmp.Or(outcome, "it offers nothing better")
		default:
			why = "ranked below the chosen bundle"
		}
		if win == nil && why == "kept by the filters" {
			continue
		}
		out = append(out, PassedOver{Bundle: c.b.Name, Version: c.b.Version, Catalog: c.cat.Name, Reason: why})
	}
	return out
}

// above reports whether b ranks above w by version and release alone.
func above(sel *graph.V1Selection, b, w *graph.Bundle) bool {
	return sel.VersionErr(b) == nil && byVersion(sel, b, w) < 0
}

// byVersion orders bundles by version and release, highest first,
// ignoring deprecations.
func byVersion(sel *graph.V1Selection, a, b *graph.Bundle) int { return sel.CompareVersions(a, b) }
