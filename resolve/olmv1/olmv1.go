package olmv1

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/render"
)

// Request is what to resolve: ClusterExtensions and ClusterCatalogs (from
// manifests), and what the caller adds.
type Request struct {
	Catalogs   []ClusterCatalog
	Extensions []ClusterExtension
	// Contents give ClusterCatalogs' content, by name.
	Contents []CatalogContent
	// Installed set status.install.bundle of extensions, by name.
	Installed []InstalledExtension
	// Gates are operator-controller's feature gates.
	Gates olmv1gate.Gates
	// Renderer reads catalog content (default: a Renderer with zero
	// Options).
	Renderer *render.Renderer
	// Warn receives notes about the input.
	Warn fault.Warn
}

// CatalogContent is the content of a ClusterCatalog: anything the Renderer
// reads as a catalog, or a catalog already loaded.
type CatalogContent struct {
	Name   string
	Source string
	// Config, when set, is the content, already loaded (Source then only
	// names it in messages). Resolve does not change it.
	Config *declcfg.DeclarativeConfig
}

// InstalledExtension is the bundle an extension runs.
type InstalledExtension struct {
	Extension string
	Bundle    InstalledBundle
}

// ParseInstalledExtension reads NAME=BUNDLE@VERSION.
func ParseInstalledExtension(s string) (InstalledExtension, error) {
	name, rest, ok := strings.Cut(s, "=")
	bundle, version, ok2 := strings.Cut(rest, "@")
	if !ok || !ok2 || name == "" || bundle == "" || version == "" {
		return InstalledExtension{}, &RequestError{Msg: fmt.Sprintf("%q: want NAME=BUNDLE@VERSION, e.g. argocd=argocd-operator.v0.13.0@0.13.0", s)}
	}
	return InstalledExtension{Extension: name, Bundle: InstalledBundle{Name: bundle, Version: version}}, nil
}

// RequestError is a request that does not fit the manifests: a content
// for a ClusterCatalog they do not define, an installed bundle for an
// extension they do not have, a name given twice. Field (FieldCatalog or
// FieldInstalled) and Value say which value of the request it is.
type RequestError struct {
	Field, Value string
	Msg          string
}

// The Fields of a RequestError.
const (
	FieldCatalog   = "catalog"
	FieldInstalled = "installed extension"
)

func (e *RequestError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + " " + e.Value + ": " + e.Msg
}

// FaultKind is Usage.
func (e *RequestError) FaultKind() fault.Kind { return fault.Usage }

// ManifestError is a ClusterCatalog or ClusterExtension fbc cannot use.
type ManifestError struct {
	Pos declcfg.Pos
	Msg string
}

func (e *ManifestError) Error() string { return e.Pos.Prefix(e.Msg) }

// FaultKind is Run: the manifests keep resolution from running.
func (e *ManifestError) FaultKind() fault.Kind { return fault.Run }

// CatalogError is a ClusterCatalog whose content fbc could not read.
type CatalogError struct {
	Name string
	// Source is what fbc read: the request's content, or the catalog's
	// spec.source.image.ref; empty when there is neither.
	Source string
	// Manifest is where the ClusterCatalog is defined.
	Manifest declcfg.Pos
	// Given is set when Source is the request's.
	Given bool
	Err   error
}

func (e *CatalogError) Error() string {
	if e.Source == "" {
		return e.Manifest.Prefix(fmt.Sprintf("ClusterCatalog %s: %v", e.Name, e.Err))
	}
	return fmt.Sprintf("ClusterCatalog %s: reading %s: %v", e.Name, e.Source, e.Err)
}

func (e *CatalogError) Unwrap() error { return e.Err }

// FaultKind is Run.
func (e *CatalogError) FaultKind() fault.Kind { return fault.Run }

// Result is what happens to one ClusterExtension.
type Result struct {
	Extension *ClusterExtension
	// Admission is what the API server says on create.
	Admission *Admission
	// Installed is the bundle the extension runs, nil for a fresh install.
	Installed *InstalledBundle
	// Bundle is what operator-controller resolves; nil when Err is set.
	Bundle *Resolved
	// Err is operator-controller's resolution error (a *ResolutionError).
	Err error
	// Hint, with Err, is fbc's word on it: the package the extension may
	// have meant when no catalog has the one it names.
	Hint string
	// Catalogs say what each ClusterCatalog offered, in name order.
	Catalogs []CatalogReport
	// PassedOver are bundles ranked above the chosen one, and why they
	// lost; with Err, the highest bundles and why each was dropped.
	PassedOver []PassedOver
	// Deprecation is the package's deprecations in the chosen catalog.
	Deprecation *Deprecation
	// Install is operator-controller's check of the resolved bundle with
	// the extension's configuration; nil when nothing resolves.
	Install *InstallCheck
}

// Failed reports whether the extension does not install: the API server
// refuses it, or it does not resolve, or the bundle does not install.
func (r *Result) Failed() bool {
	return !r.Admission.Allowed() || r.Err != nil || (r.Install != nil && r.Install.Err != nil)
}

// Resolve predicts, for each ClusterExtension, admission, resolution and
// the install check. Errors are for requests that cannot run: a
// *RequestError, a *ManifestError, catalogs that cannot be read.
func Resolve(ctx context.Context, req Request) ([]*Result, error) {
	catalogs, err := catalogsOf(req)
	if err != nil {
		return nil, err
	}
	installed, err := installedOf(req)
	if err != nil {
		return nil, err
	}
	if err := load(ctx, req, catalogs); err != nil {
		return nil, err
	}
	var results []*Result
	for i := range req.Extensions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := &req.Extensions[i]
		res := &Result{Extension: e, Admission: e.Admit(req.Gates.Experimental()), Installed: e.Installed}
		if in, ok := installed[e.Name]; ok {
			res.Installed = &in
		}
		resolveOne(e, res.Installed, catalogs, req.Gates, res)
		if res.Bundle != nil {
			facts, err := res.Bundle.bundle.CSVFacts()
			if err != nil {
				res.Install = &InstallCheck{Notes: []string{fmt.Sprintf("the bundle's install modes cannot be read: %v", err)}}
			} else {
				cfg := e.Config
				if !req.Gates.Experimental() {
					cfg = nil // the standard CRD has no spec.config: pruned
				}
				res.Install = checkInstall(e, cfg, facts, req.Gates)
			}
		}
		results = append(results, res)
	}
	return results, nil
}

// catalogsOf pairs the ClusterCatalogs with their content, in name order.
func catalogsOf(req Request) ([]*Catalog, error) {
	var catalogs []*Catalog
	seen := map[string]declcfg.Pos{}
	for _, c := range req.Catalogs {
		if prev, dup := seen[c.Name]; dup {
			return nil, &ManifestError{Pos: c.Pos, Msg: fmt.Sprintf("ClusterCatalog %s is defined twice (first at %s); the cluster keeps one", c.Name, prev)}
		}
		seen[c.Name] = c.Pos
		catalogs = append(catalogs, &Catalog{ClusterCatalog: c})
	}
	slices.SortFunc(catalogs, func(a, b *Catalog) int { return strings.Compare(a.Name, b.Name) })
	given := map[string]bool{}
	for _, cc := range req.Contents {
		i := slices.IndexFunc(catalogs, func(c *Catalog) bool { return c.Name == cc.Name })
		if i < 0 {
			names := make([]string, len(catalogs))
			for j, c := range catalogs {
				names[j] = c.Name
			}
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, &RequestError{Field: FieldCatalog, Value: cc.Name, Msg: fmt.Sprintf("the manifests define no ClusterCatalog %s (they define %s)%s", cc.Name, have, suggest(cc.Name, names))}
		}
		if given[cc.Name] {
			return nil, &RequestError{Field: FieldCatalog, Value: cc.Name, Msg: "its content is given twice"}
		}
		given[cc.Name] = true
		catalogs[i].source, catalogs[i].given, catalogs[i].config = cc.Source, true, cc.Config
	}
	return catalogs, nil
}

func suggest(name string, names []string) string {
	if s := declcfg.Suggest(name, names); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// installedOf reads the request's installed bundles by extension name.
func installedOf(req Request) (map[string]InstalledBundle, error) {
	out := map[string]InstalledBundle{}
	seen := map[string]declcfg.Pos{}
	var names []string
	for _, e := range req.Extensions {
		if prev, dup := seen[e.Name]; dup {
			return nil, &ManifestError{Pos: e.Pos, Msg: fmt.Sprintf("ClusterExtension %s is defined twice (first at %s); the cluster keeps one", e.Name, prev)}
		}
		seen[e.Name] = e.Pos
		names = append(names, e.Name)
	}
	for _, in := range req.Installed {
		if _, ok := seen[in.Extension]; !ok {
			return nil, &RequestError{Field: FieldInstalled, Value: in.Extension, Msg: fmt.Sprintf("the manifests define no ClusterExtension %s%s", in.Extension, suggest(in.Extension, names))}
		}
		if _, dup := out[in.Extension]; dup {
			return nil, &RequestError{Field: FieldInstalled, Value: in.Extension, Msg: "given twice"}
		}
		out[in.Extension] = in.Bundle
	}
	return out, nil
}

// needed reports whether resolution reads the catalog's content: some
// extension's selector (when it compiles) picks it, it is available and
// served.
func needed(c *Catalog, exts []ClusterExtension) bool {
	if c.Unavailable || c.NotServing {
		return false
	}
	for i := range exts {
		m, err := exts[i].Selector.compile()
		if err == nil && m(c.Labels) {
			return true
		}
	}
	return false
}

// load reads the content of every catalog resolution walks, keeping only
// the packages the extensions name.
func load(ctx context.Context, req Request, catalogs []*Catalog) error {
	pkgs := map[string]bool{}
	for _, e := range req.Extensions {
		pkgs[e.PackageName] = true
	}
	var todo []*Catalog
	for _, c := range catalogs {
		if !needed(c, req.Extensions) {
			continue
		}
		if c.config != nil {
			c.packages = packagesOf(filterPackages(c.config, pkgs))
			c.names = packageNamesOf(c.config)
			c.loaded = true
			continue
		}
		if !c.given {
			c.source = c.Image
		}
		if c.source == "" {
			return &CatalogError{Name: c.Name, Manifest: c.Pos, Err: errors.New("fbc cannot read it (it has no spec.source.image.ref)")}
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil
	}
	r := req.Renderer
	if r == nil {
		var err error
		if r, err = render.New(render.Options{}); err != nil {
			return err
		}
	}
	srcs := make([]string, len(todo))
	readings := make([]*packageReading, len(todo))
	for i, c := range todo {
		srcs[i] = c.source
		readings[i] = newPackageReading(pkgs)
	}
	// Only the packages asked for are decoded, as operator-controller
	// reads them (registryload.go): another package's broken blob does
	// not stop resolution, and one of a package asked for fails it the
	// way it fails on a cluster.
	rendered, err := r.RenderEach(ctx, srcs, render.Request{Allowed: render.KindCatalogs, CatalogsAsLoaded: true,
		Keep: func(src int, doc declcfg.Document) bool { return readings[src].keep(doc) }})
	if err != nil {
		return err
	}
	var errs []error
	for i, c := range todo {
		if e := rendered[i].Err; e != nil {
			ce := &CatalogError{Name: c.Name, Source: c.source, Given: c.given, Err: e}
			if !c.given {
				ce.Manifest = c.Pos
			}
			errs = append(errs, ce)
			continue
		}
		c.packages = packagesOf(rendered[i].Config)
		c.names = readings[i].packageNames()
		for pkg := range pkgs {
			if msg, pos := readings[i].broken(pkg); msg != "" {
				d := c.packages[pkg]
				if d == nil {
					d = &packageData{}
					c.packages[pkg] = d
				}
				d.broken, d.brokenPos = msg, pos
			}
		}
		c.loaded = true
	}
	return errors.Join(errs...)
}

// keepPackages drops every blob of a part that belongs to no package in
// pkgs: operator-controller reads one package of a catalog.
func keepPackages(cfg *declcfg.DeclarativeConfig, pkgs map[string]bool) {
	cfg.Packages = slices.DeleteFunc(cfg.Packages, func(p declcfg.Package) bool { return !pkgs[p.Name] })
	cfg.Channels = slices.DeleteFunc(cfg.Channels, func(c declcfg.Channel) bool { return !pkgs[c.Package] })
	cfg.Bundles = slices.DeleteFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return !pkgs[b.Package] })
	cfg.Deprecations = slices.DeleteFunc(cfg.Deprecations, func(d declcfg.Deprecation) bool { return !pkgs[d.Package] })
	cfg.Others = slices.DeleteFunc(cfg.Others, func(m declcfg.Meta) bool { return !pkgs[m.Package] })
}

// packageNamesOf is every package cfg's blobs belong to, sorted.
func packageNamesOf(cfg *declcfg.DeclarativeConfig) []string {
	var names []string
	for _, p := range cfg.Packages {
		names = append(names, p.Name)
	}
	for _, c := range cfg.Channels {
		names = append(names, c.Package)
	}
	for _, b := range cfg.Bundles {
		names = append(names, b.Package)
	}
	for _, d := range cfg.Deprecations {
		names = append(names, d.Package)
	}
	for _, m := range cfg.Others {
		names = append(names, m.Package)
	}
	slices.Sort(names)
	return slices.DeleteFunc(slices.Compact(names), func(n string) bool { return n == "" })
}

// filterPackages is keepPackages on a copy.
func filterPackages(cfg *declcfg.DeclarativeConfig, pkgs map[string]bool) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{
		Packages:     slices.Clone(cfg.Packages),
		Channels:     slices.Clone(cfg.Channels),
		Bundles:      slices.Clone(cfg.Bundles),
		Deprecations: slices.Clone(cfg.Deprecations),
		Others:       slices.Clone(cfg.Others),
	}
	keepPackages(out, pkgs)
	return out
}

// packagesOf builds each package the way catalogd's cache holds it for
// operator-controller: one blob per schema and name, the last one written
// winning; bundles in name order.
func packagesOf(cfg *declcfg.DeclarativeConfig) map[string]*packageData {
	out := map[string]*packageData{}
	data := func(name string) *packageData {
		d := out[name]
		if d == nil {
			d = &packageData{}
			out[name] = d
		}
		return d
	}
	lastWins := func(n int, key func(i int) string) []int {
		last := map[string]int{}
		for i := 0; i < n; i++ {
			last[key(i)] = i
		}
		var keep []int
		for i := 0; i < n; i++ {
			if last[key(i)] == i {
				keep = append(keep, i)
			}
		}
		return keep
	}
	var kept declcfg.DeclarativeConfig
	for _, i := range lastWins(len(cfg.Packages), func(i int) string { return cfg.Packages[i].Name }) {
		kept.Packages = append(kept.Packages, cfg.Packages[i])
		data(cfg.Packages[i].Name)
	}
	for _, i := range lastWins(len(cfg.Channels), func(i int) string { return cfg.Channels[i].Package + "/" + cfg.Channels[i].Name }) {
		kept.Channels = append(kept.Channels, cfg.Channels[i])
		data(cfg.Channels[i].Package)
	}
	for _, i := range lastWins(len(cfg.Bundles), func(i int) string { return cfg.Bundles[i].Package + "/" + cfg.Bundles[i].Name }) {
		kept.Bundles = append(kept.Bundles, cfg.Bundles[i])
		data(cfg.Bundles[i].Package)
	}
	slices.SortStableFunc(kept.Bundles, func(a, b declcfg.Bundle) int { return strings.Compare(a.Name, b.Name) })
	for _, i := range lastWins(len(cfg.Deprecations), func(i int) string { return cfg.Deprecations[i].Package }) {
		d := cfg.Deprecations[i]
		data(d.Package).deprecation = &d
		kept.Deprecations = append(kept.Deprecations, d)
	}
	for _, m := range cfg.Others {
		data(m.Package).others++
	}
	// Duplicates are gone (the last wins, as operator-controller reads
	// them); what else the graph works around is the resolver's to say.
	m := graph.New(&kept, nil)
	for name, d := range out {
		if p := m.Package(name); p != nil && (len(p.Bundles) > 0 || len(p.Channels) > 0 || p.Blob != nil || d.deprecation != nil) {
			d.pkg = p
		}
	}
	return out
}
