package resolve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/resolve/olmv1"
)

// Request is what to resolve: Subscriptions, CatalogSources and installed
// CSVs from manifests, and what the caller adds to them.
type Request struct {
	// Manifests are the Kubernetes objects read by ReadManifests.
	Manifests *Manifests
	// ManifestPaths, when Manifests is nil, are read by Run as
	// ReadManifests reads them: files, directory trees, "-" for Stdin.
	ManifestPaths []string
	// Stdin is read for the manifest path "-".
	Stdin io.Reader
	// Subscriptions are given without manifests.
	Subscriptions []Subscription
	// Catalogs give the content of CatalogSources: of those the manifests
	// define, or of new ones. A key's Namespace may be empty (see
	// CatalogContent).
	Catalogs []CatalogContent
	// Priorities set spec.priority of CatalogSources, as Catalogs name
	// them.
	Priorities []CatalogPriority
	// Installed adds installed CSVs by name; their properties are those of
	// the catalog bundle of that name.
	Installed []InstalledCSV
	// Namespace is the namespace of objects that name none.
	Namespace string
	// GlobalNamespace is where catalogs visible to every namespace live.
	GlobalNamespace string
	// Renderer reads catalog sources: directories, files, images (default:
	// a Renderer with zero Options).
	Renderer *render.Renderer
	// InstalledExtensions set status.install.bundle of ClusterExtensions
	// in the manifests.
	InstalledExtensions []olmv1.InstalledExtension
	// Gates are operator-controller's feature gates, for ClusterExtensions.
	Gates olmv1gate.Gates
	// Warn receives notes about the input (skipped kinds and the like).
	Warn fault.Warn
}

// CatalogContent is the content of a CatalogSource: anything the Renderer
// reads as a catalog. A Key without a Namespace names the CatalogSource of
// that name among the manifests, else the namespace Subscriptions name it
// in, else the global namespace.
type CatalogContent struct {
	Key    CatalogKey
	Source string
}

// CatalogPriority is spec.priority of a CatalogSource.
type CatalogPriority struct {
	Key      CatalogKey
	Priority int
}

// InstalledCSV names an installed CSV; without a Namespace it is in the
// request's Namespace, else in the one namespace the manifests have.
type InstalledCSV struct {
	Namespace string
	Name      string
}

// RequestField names one of a Request's lists, for errors about a value
// in it.
type RequestField uint8

const (
	FieldSubscriptions RequestField = iota
	FieldCatalogs
	FieldPriorities
	FieldInstalled
	FieldInstalledExtensions
)

func (f RequestField) String() string {
	switch f {
	case FieldSubscriptions:
		return "Subscription"
	case FieldCatalogs:
		return "catalog"
	case FieldPriorities:
		return "catalog priority"
	case FieldInstalledExtensions:
		return "installed extension"
	}
	return "installed CSV"
}

// RequestError is a value of a Request that does not fit the manifests or
// the catalogs. Field and Value say which value it is, so that a caller can
// name it the way its user gave it.
type RequestError struct {
	Field RequestField
	// Value is the value as the Request holds it: a catalog key, a CSV
	// or Subscription name.
	Value string
	Msg   string
	// NoContent, when set, is a CatalogSource that has no content: giving
	// its content (Request.Catalogs) mends the request.
	NoContent *CatalogKey
}

func (e *RequestError) Error() string { return e.Field.String() + " " + e.Value + ": " + e.Msg }

// FaultKind is Usage: the request does not describe a cluster.
func (e *RequestError) FaultKind() fault.Kind { return fault.Usage }

// UsageError is a request that cannot describe a cluster (as opposed to
// one that does not resolve).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// FaultKind is fault.Usage.
func (e *UsageError) FaultKind() fault.Kind { return fault.Usage }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// A Kubernetes object name (DNS-1123 subdomain, as namespaces and most
// objects are).
var objectNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`) })

func checkObjectName(what, name string) error {
	if len(name) > 253 || !objectNameRE().MatchString(name) {
		return usagef("%s %q is not a Kubernetes name (lowercase letters, digits, '-' and '.')", what, name)
	}
	return nil
}

// CheckNamespace refuses a namespace that is not a Kubernetes name.
func CheckNamespace(what, ns string) error {
	return checkObjectName(what, ns)
}

// ParseQuickCatalog reads the quick form's [[NAMESPACE/]NAME=]SOURCE: the
// catalog is called "catalog" and lives in namespace unless it says
// otherwise.
func ParseQuickCatalog(s, namespace string) (CatalogContent, error) {
	key := CatalogKey{Namespace: cmp.Or(namespace, "default"), Name: "catalog"}
	src := s
	if k, rest, ok := strings.Cut(s, "="); ok {
		parsed, err := ParseCatalogKey(k)
		if err != nil {
			return CatalogContent{}, err
		}
		key.Name, src = parsed.Name, rest
		if parsed.Namespace != "" {
			key.Namespace = parsed.Namespace
		}
		if namespace != "" && parsed.Namespace == "" {
			key.Namespace = namespace
		}
	}
	if src == "" {
		return CatalogContent{}, usagef("%q: want [[NAMESPACE/]NAME=]SOURCE", s)
	}
	return CatalogContent{Key: key, Source: src}, nil
}

// QuickSubscriptions reads the quick form's Subscriptions, each
// [NAME=]PACKAGE[/CHANNEL][@STARTINGCSV], into Subscriptions of namespace to
// catalog. A Subscription without a NAME= is
// named PACKAGE-CHANNEL (PACKAGE without a channel), and a repeated name
// gets -2, -3, ...
func QuickSubscriptions(values []string, namespace string, catalog CatalogKey) ([]Subscription, error) {
	var subs []Subscription
	used := map[string]bool{}
	for _, v := range values {
		sub, err := ParseSubscribe(v)
		if err != nil {
			return nil, err
		}
		sub.Namespace, sub.Catalog = namespace, catalog
		if sub.Name == "" {
			base := sub.Package
			if sub.Channel != "" {
				base += "-" + sub.Channel
			}
			sub.Name = base
			for n := 2; used[sub.Name]; n++ {
				sub.Name = fmt.Sprintf("%s-%d", base, n)
			}
		} else if used[sub.Name] {
			return nil, usagef("%q: Subscription %s is named twice", v, sub.Name)
		}
		used[sub.Name] = true
		subs = append(subs, sub)
	}
	return subs, nil
}

// ParseCatalogKey reads [NAMESPACE/]NAME.
func ParseCatalogKey(s string) (CatalogKey, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok {
		ns, name = "", s
	} else if err := checkObjectName("namespace", ns); err != nil {
		return CatalogKey{}, err
	}
	if err := checkObjectName("catalog name", name); err != nil {
		return CatalogKey{}, err
	}
	return CatalogKey{Namespace: ns, Name: name}, nil
}

// ParseCatalogContent reads [NAMESPACE/]NAME=SOURCE.
func ParseCatalogContent(s string) (CatalogContent, error) {
	key, src, ok := strings.Cut(s, "=")
	if !ok || src == "" {
		return CatalogContent{}, usagef("%q: want [NAMESPACE/]NAME=SOURCE, e.g. openshift-marketplace/redhat-operators=catalog/", s)
	}
	k, err := ParseCatalogKey(key)
	if err != nil {
		return CatalogContent{}, err
	}
	return CatalogContent{Key: k, Source: src}, nil
}

// ParseCatalogPriority reads [NAMESPACE/]NAME=N.
func ParseCatalogPriority(s string) (CatalogPriority, error) {
	key, n, ok := strings.Cut(s, "=")
	p, err := strconv.Atoi(n)
	if !ok || err != nil {
		return CatalogPriority{}, usagef("%q: want [NAMESPACE/]NAME=PRIORITY with a whole number, e.g. my-catalog=10", s)
	}
	k, err := ParseCatalogKey(key)
	if err != nil {
		return CatalogPriority{}, err
	}
	return CatalogPriority{Key: k, Priority: p}, nil
}

// ParseInstalledCSV reads [NAMESPACE/]CSV.
func ParseInstalledCSV(s string) (InstalledCSV, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok {
		ns, name = "", s
	} else if err := checkObjectName("namespace", ns); err != nil {
		return InstalledCSV{}, err
	}
	if name == "" {
		return InstalledCSV{}, usagef("%q: want [NAMESPACE/]CSV", s)
	}
	return InstalledCSV{Namespace: ns, Name: name}, nil
}

// ParseSubscribe reads the quick form's [NAME=]PACKAGE[/CHANNEL][@STARTINGCSV]
// into a Subscription (without namespace and catalog).
func ParseSubscribe(s string) (Subscription, error) {
	var sub Subscription
	rest := s
	if name, r, ok := strings.Cut(rest, "="); ok {
		if err := checkObjectName("subscription name", name); err != nil {
			return sub, err
		}
		sub.Name, rest = name, r
	}
	rest, sub.StartingCSV, _ = strings.Cut(rest, "@")
	sub.Package, sub.Channel, _ = strings.Cut(rest, "/")
	if sub.Package == "" || strings.HasSuffix(s, "@") || strings.HasSuffix(rest, "/") {
		return sub, usagef("%q: want [NAME=]PACKAGE[/CHANNEL][@STARTINGCSV], e.g. etcd/alpha@etcdoperator.v0.9.4", s)
	}
	return sub, nil
}

// Prepare turns a request into the namespaces to resolve: every namespace
// with a Subscription or an installed CSV, each with the catalogs it sees
// (its own and, unless its OperatorGroup excludes them, the global
// namespace's), loaded once each. Errors are *UsageError, ManifestErrors,
// or a catalog that cannot be read.
func Prepare(ctx context.Context, req Request) ([]*Namespace, error) {
	warn := func(msg string) { req.Warn.Printf("%s", msg) }
	m := req.Manifests
	if m == nil {
		m = &Manifests{}
	}
	p := &preparation{req: req, warn: warn, namespaces: map[string]*Namespace{}}
	if err := p.collect(m); err != nil {
		return nil, err
	}
	if err := p.loadCatalogs(ctx); err != nil {
		return nil, err
	}
	if err := p.addInstalled(m); err != nil {
		return nil, err
	}
	return p.order, nil
}

type preparation struct {
	req        Request
	warn       func(string)
	namespaces map[string]*Namespace
	order      []*Namespace
	sources    []*catalogSource
	excluded   map[string]bool // namespaces whose OperatorGroup excludes the global catalogs
}

// catalogSource is one CatalogSource and where its content comes from.
type catalogSource struct {
	key      CatalogKey
	priority int
	source   string // the request's content for it, or spec.image
	given    bool   // the request gives its content
	manifest *CatalogSourceManifest
	catalog  *Catalog
}

func (p *preparation) namespace(name string) *Namespace {
	ns := p.namespaces[name]
	if ns == nil {
		ns = &Namespace{Name: name, GlobalNamespace: p.req.GlobalNamespace}
		p.namespaces[name] = ns
		p.order = append(p.order, ns)
	}
	return ns
}

// ErrNoNamespace is why a manifest without metadata.namespace cannot be
// placed: the request gives no Namespace for objects that name none.
var ErrNoNamespace = errors.New("no metadata.namespace, and no namespace given for objects that name none")

// defaultNamespace is the namespace of an object that names none.
func (p *preparation) defaultNamespace(what string, pos declcfg.Pos) (string, error) {
	if p.req.Namespace != "" {
		return p.req.Namespace, nil
	}
	return "", &ManifestError{Pos: pos, Msg: what + " has no metadata.namespace", Err: ErrNoNamespace}
}

func (p *preparation) collect(m *Manifests) error {
	var errs ManifestErrors
	// seenSub holds where each Subscription is defined: a manifest's
	// position, or none for the request's own.
	seenSub := map[string]declcfg.Pos{}
	twice := func(key string, prev declcfg.Pos) string {
		msg := fmt.Sprintf("Subscription %s is defined twice", key)
		if prev.File != "" {
			msg += fmt.Sprintf(" (first at %s)", prev)
		}
		return msg + "; the cluster keeps one"
	}
	for _, sm := range m.Subscriptions {
		sub := sm.Subscription
		if sub.Namespace == "" {
			ns, err := p.defaultNamespace("Subscription "+sub.Name, sm.Pos)
			if err != nil {
				errs = append(errs, err.(*ManifestError))
				continue
			}
			sub.Namespace = ns
		}
		key := sub.Namespace + "/" + sub.Name
		if prev, dup := seenSub[key]; dup {
			errs = append(errs, &ManifestError{Pos: sm.Pos, Msg: twice(key, prev)})
			continue
		}
		seenSub[key] = sm.Pos
		sub.Pos = sm.Pos
		ns := p.namespace(sub.Namespace)
		ns.Subscriptions = append(ns.Subscriptions, sub)
	}
	for _, sub := range p.req.Subscriptions {
		key := sub.Namespace + "/" + sub.Name
		if prev, dup := seenSub[key]; dup {
			return &RequestError{Field: FieldSubscriptions, Value: sub.Name, Msg: twice(key, prev)}
		}
		seenSub[key] = declcfg.Pos{}
		ns := p.namespace(sub.Namespace)
		ns.Subscriptions = append(ns.Subscriptions, sub)
	}
	// Namespaces with installed CSVs are resolved too (their CSVs must
	// stay satisfied).
	for i := range m.CSVs {
		csv := &m.CSVs[i]
		if csv.Namespace == "" {
			ns, err := p.defaultNamespace("ClusterServiceVersion "+csv.Name, csv.Pos)
			if err != nil {
				errs = append(errs, err.(*ManifestError))
				continue
			}
			csv.Namespace = ns
		}
		p.namespace(csv.Namespace)
	}
	for _, f := range p.req.Installed {
		if ns := cmp.Or(f.Namespace, p.req.Namespace); ns != "" {
			p.namespace(ns)
		}
	}
	// OperatorGroups: OLM needs exactly one per namespace and reads the
	// global-namespace exclusion from it.
	p.excluded = map[string]bool{}
	groups := map[string][]OperatorGroupManifest{}
	for _, og := range m.OperatorGroups {
		if og.Namespace == "" {
			ns, err := p.defaultNamespace("OperatorGroup "+og.Name, og.Pos)
			if err != nil {
				errs = append(errs, err.(*ManifestError))
				continue
			}
			og.Namespace = ns
		}
		groups[og.Namespace] = append(groups[og.Namespace], og)
	}
	for name, ogs := range groups {
		if len(ogs) == 1 && ogs[0].ExcludeGlobal {
			p.excluded[name] = true
		}
	}
	// CatalogSources from manifests, then the request's contents and
	// priorities.
	for i := range m.CatalogSources {
		cs := &m.CatalogSources[i]
		if cs.Key.Namespace == "" {
			ns, err := p.defaultNamespace("CatalogSource "+cs.Key.Name, cs.Pos)
			if err != nil {
				errs = append(errs, err.(*ManifestError))
				continue
			}
			cs.Key.Namespace = ns
		}
		if prev := p.source(cs.Key); prev != nil {
			errs = append(errs, &ManifestError{Pos: cs.Pos, Msg: fmt.Sprintf("CatalogSource %s is defined twice (first at %s); the cluster keeps one", cs.Key, prev.manifest.Pos)})
			continue
		}
		p.sources = append(p.sources, &catalogSource{key: cs.Key, priority: cs.Priority, source: cs.Image, manifest: cs})
	}
	if len(errs) > 0 {
		return errs.sorted()
	}
	if len(p.order) == 0 {
		return usagef("nothing to resolve: the manifests hold no Subscription, no ClusterServiceVersion and no ClusterExtension")
	}
	for _, cf := range p.req.Catalogs {
		key, err := p.requestKey(cf.Key, FieldCatalogs)
		if err != nil {
			return err
		}
		cs := p.source(key)
		switch {
		case cs == nil:
			p.sources = append(p.sources, &catalogSource{key: key, source: cf.Source, given: true})
		case cs.given:
			return &RequestError{Field: FieldCatalogs, Value: key.String(), Msg: "its content is given twice"}
		default:
			cs.source, cs.given = cf.Source, true
		}
	}
	for _, pf := range p.req.Priorities {
		key, err := p.requestKey(pf.Key, FieldPriorities)
		if err != nil {
			return err
		}
		cs := p.source(key)
		if cs == nil {
			return &RequestError{Field: FieldPriorities, Value: key.String(), Msg: "no CatalogSource " + key.String(), NoContent: &key}
		}
		cs.priority = pf.Priority
	}
	for _, ns := range p.order {
		var absent []string
		for _, sub := range ns.Subscriptions {
			if slices.Contains(absent, sub.Catalog.String()) {
				continue
			}
			switch {
			case p.source(sub.Catalog) == nil:
				absent = append(absent, sub.Catalog.String())
				p.warn(fmt.Sprintf("Subscription %s/%s names CatalogSource %s, which the manifests do not define and whose content is not given", sub.Namespace, sub.Name, sub.Catalog))
			case !p.inScope(ns.Name, sub.Catalog):
				absent = append(absent, sub.Catalog.String())
				why := "OLM resolves a namespace with its own catalogs and those of the global namespace " + p.req.GlobalNamespace
				if p.excluded[ns.Name] && sub.Catalog.Namespace == p.req.GlobalNamespace {
					why = "its OperatorGroup excludes the catalogs of the global namespace " + p.req.GlobalNamespace
				}
				p.warn(fmt.Sprintf("Subscription %s/%s names CatalogSource %s, which namespace %s does not see: %s", sub.Namespace, sub.Name, sub.Catalog, ns.Name, why))
			}
		}
		if ogs, ok := groups[ns.Name]; ok && len(ogs) != 1 {
			p.warn(fmt.Sprintf("namespace %s has %d OperatorGroups; OLM resolves nothing there until it has exactly one", ns.Name, len(ogs)))
		}
	}
	return nil
}

// requestKey completes a catalog name of the request without a namespace:
// the CatalogSource of that name among the manifests, else the namespace
// Subscriptions name it in, else the global namespace.
func (p *preparation) requestKey(k CatalogKey, field RequestField) (CatalogKey, error) {
	if k.Namespace != "" {
		return k, nil
	}
	var found []CatalogKey
	add := func(c CatalogKey) {
		if c.Name == k.Name && !slices.Contains(found, c) {
			found = append(found, c)
		}
	}
	for _, cs := range p.sources {
		add(cs.key)
	}
	if len(found) == 0 {
		for _, ns := range p.order {
			for _, sub := range ns.Subscriptions {
				add(sub.Catalog)
			}
		}
	}
	switch len(found) {
	case 0:
		return CatalogKey{Namespace: p.req.GlobalNamespace, Name: k.Name}, nil
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.String()
	}
	return k, &RequestError{Field: field, Value: k.Name, Msg: fmt.Sprintf("several catalogs have that name (%s); write NAMESPACE/%s", strings.Join(names, ", "), k.Name)}
}

func (p *preparation) source(k CatalogKey) *catalogSource {
	for _, cs := range p.sources {
		if cs.key == k {
			return cs
		}
	}
	return nil
}

// inScope says whether namespace ns sees catalog k.
func (p *preparation) inScope(ns string, k CatalogKey) bool {
	return k.Namespace == ns || k.Namespace == p.req.GlobalNamespace && !p.excluded[ns]
}

// loadCatalogs reads every catalog a namespace to resolve sees through the
// request's Renderer, several at once.
func (p *preparation) loadCatalogs(ctx context.Context) error {
	var needed []*catalogSource
	for _, cs := range p.sources {
		for _, ns := range p.order {
			if p.inScope(ns.Name, cs.key) {
				needed = append(needed, cs)
				break
			}
		}
	}
	for _, cs := range needed {
		if cs.source == "" {
			m := cs.manifest
			how := "it has no spec.image"
			if m.Address != "" {
				how = fmt.Sprintf("it serves a gRPC address (%s), not an image", m.Address)
			} else if m.SourceType != "" && m.SourceType != "grpc" {
				how = fmt.Sprintf("its sourceType is %s", m.SourceType)
			}
			return &CatalogError{Key: cs.key, Manifest: m.Pos, Err: fmt.Errorf("fbc cannot read it (%s)", how)}
		}
	}
	r := p.req.Renderer
	if r == nil {
		var err error
		if r, err = render.New(render.Options{}); err != nil {
			return err
		}
	}
	srcs := make([]string, len(needed))
	for i, cs := range needed {
		srcs[i] = cs.source
	}
	rendered, err := r.RenderEach(ctx, srcs, render.Request{Allowed: render.KindCatalogs})
	if err != nil {
		return err
	}
	errs := make([]error, len(needed))
	for i, cs := range needed {
		if e := rendered[i].Err; e != nil {
			errs[i] = p.catalogError(cs, e)
			continue
		}
		cs.catalog = NewCatalog(cs.key, cs.priority, rendered[i].Config)
		if n := len(cs.catalog.Problems); n > 0 {
			more := ""
			if n > 1 {
				more = fmt.Sprintf(" (and %d more; fbc validate lists them)", n-1)
			}
			p.warn(fmt.Sprintf("catalog %s: opm would refuse to serve it: %s%s; fbc resolves it as it reads", cs.key, cs.catalog.Problems[0], more))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, ns := range p.order {
		for _, cs := range needed {
			if p.inScope(ns.Name, cs.key) {
				ns.Catalogs = append(ns.Catalogs, cs.catalog)
			}
		}
	}
	return nil
}

// CatalogError is a CatalogSource whose content fbc could not read: the
// content failed to load, or the CatalogSource has none fbc can read (no
// image) and the request gives none.
type CatalogError struct {
	Key CatalogKey
	// Source is what fbc read: the content the request gives, or the
	// CatalogSource's spec.image. Empty when there is neither.
	Source string
	// Manifest is where the CatalogSource is defined when Source is its
	// spec.image or empty; zero when Source is the request's.
	Manifest declcfg.Pos
	Err      error
}

func (e *CatalogError) Error() string {
	if e.Source == "" {
		return e.Manifest.Prefix(fmt.Sprintf("CatalogSource %s: %v", e.Key, e.Err))
	}
	return fmt.Sprintf("CatalogSource %s: reading %s: %v", e.Key, e.Source, e.Err)
}

func (e *CatalogError) Unwrap() error { return e.Err }

// FaultKind is Run: a catalog that cannot be read keeps resolve from
// running, whatever is wrong with it.
func (e *CatalogError) FaultKind() fault.Kind { return fault.Run }

func (p *preparation) catalogError(cs *catalogSource, err error) error {
	ce := &CatalogError{Key: cs.key, Source: cs.source, Err: err}
	if !cs.given {
		ce.Manifest = cs.manifest.Pos
	}
	return ce
}

// addInstalled adds the installed CSVs: CSV manifests and the request's.
// A CSV's properties are its properties annotation, else those of the
// catalog bundle of its name (what OLM projects when it installs one),
// else its owned and required APIs with the package of the Subscription
// that names it, as OLM infers them.
func (p *preparation) addInstalled(m *Manifests) error {
	var errs ManifestErrors
	// seen holds where each installed CSV is defined: a manifest's
	// position, or none for the request's own.
	seen := map[string]declcfg.Pos{}
	twice := func(key string, prev declcfg.Pos) string {
		msg := fmt.Sprintf("ClusterServiceVersion %s is given twice", key)
		if prev.File != "" {
			msg += fmt.Sprintf(" (first at %s)", prev)
		}
		return msg
	}
	add := func(nsName string, in Installed) {
		ns := p.namespace(nsName)
		ns.Installed = append(ns.Installed, in)
	}
	for _, csv := range m.CSVs {
		in := Installed{Name: csv.Name, Version: csv.Version, Properties: csv.Properties}
		if !csv.HasProperties {
			if from, ok := p.installedFromCatalogs(csv.Namespace, csv.Name); ok {
				in.Properties = from.Properties
				if in.Version == "" {
					in.Version = from.Version
				}
			} else {
				in.Properties = p.inferredProperties(csv)
			}
		}
		key := csv.Namespace + "/" + csv.Name
		if prev, dup := seen[key]; dup {
			errs = append(errs, &ManifestError{Pos: csv.Pos, Msg: twice(key, prev)})
			continue
		}
		seen[key] = csv.Pos
		add(csv.Namespace, in)
	}
	for _, f := range p.req.Installed {
		nsName := f.Namespace
		if nsName == "" {
			switch {
			case p.req.Namespace != "":
				nsName = p.req.Namespace
			case len(p.order) == 1:
				nsName = p.order[0].Name
			default:
				return &RequestError{Field: FieldInstalled, Value: f.Name, Msg: fmt.Sprintf("name its namespace (NAMESPACE/%s): the manifests have %d namespaces", f.Name, len(p.order))}
			}
		}
		in, ok := p.installedFromCatalogs(nsName, f.Name)
		if !ok {
			return &RequestError{Field: FieldInstalled, Value: f.Name, Msg: fmt.Sprintf("no catalog namespace %s sees has a bundle of that name, so its properties are unknown (give its ClusterServiceVersion manifest instead)", nsName)}
		}
		key := nsName + "/" + f.Name
		if prev, dup := seen[key]; dup {
			return &RequestError{Field: FieldInstalled, Value: f.Name, Msg: twice(key, prev)}
		}
		seen[key] = declcfg.Pos{}
		add(nsName, in)
	}
	if len(errs) > 0 {
		return errs.sorted()
	}
	// A CSV of a package a Subscription subscribes to, which the
	// Subscription does not name, is the one it installed: on a cluster,
	// status.installedCSV would name it.
	for _, ns := range p.order {
		for i := range ns.Subscriptions {
			sub := &ns.Subscriptions[i]
			if sub.InstalledCSV != "" {
				if !slices.ContainsFunc(ns.Installed, func(in Installed) bool { return in.Name == sub.InstalledCSV }) {
					p.warn(fmt.Sprintf("Subscription %s/%s: status.installedCSV %s is not installed (no installed ClusterServiceVersion has that name); OLM resolves it as a new install", ns.Name, sub.Name, sub.InstalledCSV))
				}
				continue
			}
			for _, in := range ns.Installed {
				if installedPackage(in) == sub.Package && !claimed(ns, in.Name) {
					sub.InstalledCSV = in.Name
					break
				}
			}
		}
	}
	return nil
}

// claimed says whether a Subscription of ns names the CSV.
func claimed(ns *Namespace, csv string) bool {
	for _, s := range ns.Subscriptions {
		if s.InstalledCSV == csv {
			return true
		}
	}
	return false
}

func installedPackage(in Installed) string {
	e := newInstalledEntry(&catalog{virtual: true}, in)
	return e.pkg
}

// installedFromCatalogs finds the catalog bundle an installed CSV came
// from among the catalogs the namespace sees.
func (p *preparation) installedFromCatalogs(nsName, csv string) (Installed, bool) {
	ns, ok := p.namespaces[nsName]
	if !ok {
		return Installed{}, false
	}
	return InstalledFrom(csv, ns.Catalogs)
}

// inferredProperties are what OLM reads from a CSV without the properties
// annotation: its owned APIs, its required APIs, and the package of the
// Subscription whose status.installedCSV names it.
func (p *preparation) inferredProperties(csv CSVManifest) []Property {
	var props []Property
	gvks := func(typ string, list []gvk) {
		vals := make([]string, 0, len(list))
		for _, g := range list {
			b, _ := json.Marshal(map[string]string{"group": g.Group, "kind": g.Kind, "version": g.Version})
			vals = append(vals, string(b))
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for _, v := range vals {
			props = append(props, Property{Type: typ, Value: []byte(v)})
		}
	}
	gvks(typeGVK, csv.Owned)
	gvks(typeGVKRequired, csv.Required)
	var pkgs []string
	for _, ns := range p.order {
		if ns.Name != csv.Namespace {
			continue
		}
		for _, sub := range ns.Subscriptions {
			if sub.InstalledCSV == csv.Name && !slices.Contains(pkgs, sub.Package) {
				pkgs = append(pkgs, sub.Package)
			}
		}
	}
	if len(pkgs) == 1 {
		b, _ := json.Marshal(map[string]string{"packageName": pkgs[0], "version": csv.Version})
		props = append(props, Property{Type: typePackage, Value: b})
	}
	return props
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
