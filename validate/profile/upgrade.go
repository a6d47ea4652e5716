package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/crdify/pkg/config"
	"sigs.k8s.io/crdify/pkg/runner"
	"sigs.k8s.io/crdify/pkg/validations"
	"sigs.k8s.io/crdify/pkg/validations/property"
	crdvalidator "sigs.k8s.io/crdify/pkg/validators/crd"
	"sigs.k8s.io/crdify/pkg/validators/version/served"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
)

// bundleCRDs is what the upgrade checks keep of a catalog bundle once it
// has been checked: its CRDs' names, versions and scope (not their
// schemas), and its olm.gvk properties for bundles without CRD manifests.
type bundleCRDs struct {
	crds      []*crd
	manifests bool
	provides  []declcfg.GVK
}

// upgrades collects what CheckCatalog compares along the edges.
type upgrades struct {
	mu      sync.Mutex
	bundles map[bundleKey]*bundleCRDs
	// texts keeps each distinct CRD's JSON for crdify (olmv1 only).
	texts map[contentKey][]byte
}

type bundleKey struct{ pkg, name string }

// remember keeps what the upgrade checks need of a catalog bundle.
func (u *upgrades) remember(b *bundle, keepTexts bool) {
	if !b.in.FromCatalog || b.pkg == "" || b.name == "" {
		return
	}
	rec := &bundleCRDs{manifests: len(b.in.Objects) > 0}
	for _, c := range b.crds {
		// Keep the name and position, not the manifest's bytes.
		slim := *c
		slim.obj = &object{BundleObject: validate.BundleObject{Pos: c.obj.Pos}, apiVersion: c.obj.apiVersion, kind: c.obj.kind, name: c.obj.name}
		slim.reduced = nil
		rec.crds = append(rec.crds, &slim)
	}
	for _, p := range b.in.Bundle.Properties {
		var g declcfg.GVK
		if p.Type == declcfg.PropertyGVK && json.Unmarshal(p.Value, &g) == nil {
			rec.provides = append(rec.provides, g)
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.bundles == nil {
		u.bundles, u.texts = map[bundleKey]*bundleCRDs{}, map[contentKey][]byte{}
	}
	u.bundles[bundleKey{b.pkg, b.name}] = rec
	if keepTexts {
		for _, c := range b.crds {
			if _, ok := u.texts[c.key]; !ok {
				// The manifest's bytes are reused for the next bundle
				// once this one is checked (profiles.Serve).
				u.texts[c.key] = bytes.Clone(c.obj.JSON)
			}
		}
	}
}

// edge is one upgrade A→B, as the first channel that has it says.
type edge struct {
	from, to *model.Bundle
	channel  *model.Channel
	kind     model.EdgeKind
}

// catalogEdges lists every upgrade edge of every channel once per pair of
// bundles, in catalog order (the model's edge index: replaces, skips and
// skipRange).
func catalogEdges(cat *model.Catalog) []edge {
	type pair struct{ from, to *model.Bundle }
	seen := map[pair]bool{}
	var out []edge
	for _, p := range cat.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Edges() {
				if e.FromBundle == nil || e.To.Bundle == nil || e.FromBundle == e.To.Bundle {
					continue
				}
				k := pair{e.FromBundle, e.To.Bundle}
				if seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, edge{from: e.FromBundle, to: e.To.Bundle, channel: ch, kind: e.Kind})
			}
		}
	}
	return out
}

// crdUpgradeFindings checks every CRD the older bundle of an edge ships
// against the newer bundle's: the versions it serves, its storage version,
// its scope, and under olmv1 what sigs.k8s.io/crdify reports the way
// operator-controller configures it.
func (c *Checker) crdUpgradeFindings(cat *model.Catalog) []declcfg.Finding {
	var out []declcfg.Finding
	strict := c.set.Has(OLMv1)
	versionSev := declcfg.SeverityWarning
	if strict {
		versionSev = declcfg.SeverityError
	}
	// crdify's comparisons cost far more than the rest: they run after
	// the loop, and their findings follow the edge's others.
	type crdifyJob struct {
		at   int // index in out after which the findings go
		old  *crd
		nu   *crd
		diag declcfg.Finding
	}
	var jobs []crdifyJob
	for _, e := range catalogEdges(cat) {
		a, b := c.up.bundles[bundleKey{e.from.Package.Name, e.from.Name}], c.up.bundles[bundleKey{e.to.Package.Name, e.to.Name}]
		if a == nil || b == nil {
			continue
		}
		where := fmt.Sprintf("upgrade %s → %s (channel %s, %s)", e.from.Name, e.to.Name, e.channel.Name, e.kind)
		add := func(rule string, sev declcfg.Severity, pos declcfg.Pos, format string, args ...any) {
			if pos == (declcfg.Pos{}) {
				pos = e.to.Pos
			}
			out = append(out, declcfg.Finding{Rule: rule, Severity: sev, Pos: pos, Package: e.to.Package.Name,
				Channel: e.channel.Name, Bundle: e.to.Name, Message: where + ": " + fmt.Sprintf(format, args...)})
		}
		if !a.manifests || !b.manifests {
			for _, f := range gvkVersionsDropped(a.provides, b.provides) {
				add(validate.RuleCRDServedVersion, versionSev, e.to.Pos, "%s no longer provides %s/%s %s, which %s provides (from olm.gvk: the catalog keeps no CRD manifests for these bundles, so storage versions, scope and schemas cannot be compared)", e.to.Name, f.Group, f.Version, f.Kind, e.from.Name)
			}
			continue
		}
		for _, old := range a.crds {
			i := slices.IndexFunc(b.crds, func(n *crd) bool { return n.obj.name == old.obj.name })
			if i < 0 {
				continue
			}
			nu := b.crds[i]
			if old.key == nu.key {
				continue
			}
			name, pos := old.obj.name, nu.obj.Pos
			if old.scope != nu.scope && old.scope != "" && nu.scope != "" {
				add(validate.RuleCRDScope, declcfg.SeverityError, pos, "CustomResourceDefinition %s changes scope from %s to %s; the API server refuses the update (spec.scope is immutable)", name, old.scope, nu.scope)
			}
			for _, v := range old.versions {
				nv := nu.version(v.name)
				switch {
				case v.served && nv == nil:
					add(validate.RuleCRDServedVersion, versionSev, pos, "CustomResourceDefinition %s drops version %s, which %s serves; clients and objects of that version break (mark it served: false in one release and drop it in a later one, and keep listing it while a bundle that upgrades to this one, directly or along a path, stores objects in it: they stay in status.storedVersions)", name, v.name, e.from.Name)
				case v.served && !nv.served:
					add(validate.RuleCRDServedVersion, versionSev, pos, "CustomResourceDefinition %s stops serving version %s, which %s serves", name, v.name, e.from.Name)
				}
			}
			if s := old.storageVersion(); s != "" {
				switch nv := nu.version(s); {
				case nv == nil:
					add(validate.RuleCRDStoredVersion, declcfg.SeverityError, pos, "CustomResourceDefinition %s drops version %s, the storage version of %s: objects stored in it are in status.storedVersions, and the API server refuses a CRD that does not list it", name, s, e.from.Name)
				case !nv.served:
					add(validate.RuleCRDStorageVersion, versionSev, pos, "CustomResourceDefinition %s no longer serves version %s, the storage version of %s: objects stored in it cannot be read in that version until they are migrated", name, s, e.from.Name)
				}
			}
			if strict {
				jobs = append(jobs, crdifyJob{at: len(out), old: old, nu: nu, diag: declcfg.Finding{
					Rule: validate.RuleCRDField, Severity: declcfg.SeverityError, Pos: pos, Package: e.to.Package.Name,
					Channel: e.channel.Name, Bundle: e.to.Name, Message: where + ": CustomResourceDefinition " + name + ": "}})
			}
		}
	}
	if len(jobs) == 0 {
		return out
	}
	r, err := newCrdifyRunner()
	if err != nil {
		// The configuration is fixed: this cannot happen at run time.
		panic(fmt.Sprintf("crdify configuration: %v", err))
	}
	// Many edges compare the same two CRD texts (a skipRange head and
	// every older bundle it covers): each pair is compared once.
	type pair struct{ old, nu contentKey }
	first := map[pair]int{}
	var unique []int
	for i, j := range jobs {
		k := pair{j.old.key, j.nu.key}
		if _, ok := first[k]; !ok {
			first[k] = i
			unique = append(unique, i)
		}
	}
	// One comparison at a time: crdify copies every subtree of a schema
	// to flatten it, and a large CRD takes a few hundred megabytes to
	// compare; two at once doubled the peak memory for little time.
	found := make([][]string, len(jobs))
	for _, i := range unique {
		found[i] = c.crdifyFindings(r, jobs[i].old, jobs[i].nu)
	}
	for i, j := range jobs {
		found[i] = found[first[pair{j.old.key, j.nu.key}]]
	}
	var merged []declcfg.Finding
	prev := 0
	for i, j := range jobs {
		merged = append(merged, out[prev:j.at]...)
		prev = j.at
		for _, f := range found[i] {
			d := j.diag
			d.Message += f
			merged = append(merged, d)
		}
	}
	return append(merged, out[prev:]...)
}

// storedVersionFindings follows status.storedVersions along upgrade paths:
// a cluster lists there every version any bundle it ran stored objects
// in, and OLM migrates nothing, so a bundle's CRD must keep the storage
// version of every bundle from which upgrades in its channel reach it, not
// only of the bundle just before it. The edge check reports the bundles
// just before; this reports the ones further back, once per bundle, CRD
// and version, with one path that leads there.
func (c *Checker) storedVersionFindings(cat *model.Catalog) []declcfg.Finding {
	var out []declcfg.Finding
	type finding struct {
		bundle *model.Bundle
		crd    string
		ver    string
	}
	seen := map[finding]bool{}
	for _, p := range cat.Packages {
		// The versions an edge already reports: the storage versions of
		// each bundle's direct predecessors, in any channel.
		direct := map[finding]bool{}
		for _, ch := range p.Channels {
			for _, e := range ch.Edges() {
				if e.FromBundle == nil || e.To.Bundle == nil {
					continue
				}
				if a := c.up.bundles[bundleKey{p.Name, e.FromBundle.Name}]; a != nil {
					for _, cr := range a.crds {
						direct[finding{e.To.Bundle, cr.obj.name, cr.storageVersion()}] = true
					}
				}
			}
		}
		for _, ch := range p.Channels {
			// from[b] lists the bundles with an edge to b.
			from := map[*model.Bundle][]*model.Bundle{}
			var order []*model.Bundle
			for _, e := range ch.Edges() {
				if e.FromBundle == nil || e.To.Bundle == nil || e.FromBundle == e.To.Bundle {
					continue
				}
				if _, ok := from[e.To.Bundle]; !ok {
					order = append(order, e.To.Bundle)
				}
				from[e.To.Bundle] = append(from[e.To.Bundle], e.FromBundle)
			}
			for _, b := range order {
				nb := c.up.bundles[bundleKey{p.Name, b.Name}]
				if nb == nil || !nb.manifests {
					continue
				}
				// Walk back from b; next[a] is the bundle a upgrades to on
				// the way to b, to spell out one path.
				next := map[*model.Bundle]*model.Bundle{b: nil}
				queue := []*model.Bundle{b}
				for len(queue) > 0 {
					cur := queue[0]
					queue = queue[1:]
					for _, a := range from[cur] {
						if _, ok := next[a]; ok {
							continue
						}
						next[a] = cur
						queue = append(queue, a)
						ab := c.up.bundles[bundleKey{p.Name, a.Name}]
						if ab == nil || !ab.manifests {
							continue
						}
						for _, old := range ab.crds {
							s := old.storageVersion()
							k := finding{b, old.obj.name, s}
							if s == "" || direct[k] || seen[k] {
								continue
							}
							i := slices.IndexFunc(nb.crds, func(n *crd) bool { return n.obj.name == old.obj.name })
							if i < 0 || nb.crds[i].version(s) != nil {
								continue
							}
							seen[k] = true
							path := []string{a.Name}
							for x := next[a]; x != nil; x = next[x] {
								path = append(path, x.Name)
							}
							out = append(out, declcfg.Finding{Rule: validate.RuleCRDStoredVersion, Severity: declcfg.SeverityError,
								Pos: nb.crds[i].obj.Pos, Package: p.Name, Channel: ch.Name, Bundle: b.Name,
								Message: fmt.Sprintf("upgrade path %s (channel %s): CustomResourceDefinition %s drops version %s, the storage version of %s: clusters that ran %s keep it in status.storedVersions on every later upgrade (OLM migrates nothing), and the API server refuses a CRD that does not list it",
									strings.Join(path, " → "), ch.Name, old.obj.name, s, a.Name, a.Name)})
						}
					}
				}
			}
		}
	}
	return out
}

// gvkVersionsDropped lists the APIs a provides whose group and kind b
// still provides, but not in that version.
func gvkVersionsDropped(a, b []declcfg.GVK) []declcfg.GVK {
	var out []declcfg.GVK
	for _, g := range a {
		if slices.Contains(b, g) {
			continue
		}
		if slices.ContainsFunc(b, func(h declcfg.GVK) bool { return h.Group == g.Group && h.Kind == g.Kind }) {
			out = append(out, g)
		}
	}
	return out
}

// operatorControllerConfig is crdify's configuration as operator-controller
// sets it for its CRD upgrade safety preflight: every validation enforced,
// unhandled changes refused, description changes allowed, enum additions
// allowed, served-version checks skipped for CRDs with a conversion
// strategy.
func operatorControllerConfig() *config.Config {
	return &config.Config{
		Conversion:           config.ConversionPolicyIgnore,
		UnhandledEnforcement: config.EnforcementPolicyError,
		Validations: []config.ValidationConfig{
			{Name: "description", Enforcement: config.EnforcementPolicyNone},
			{Name: "enum", Enforcement: config.EnforcementPolicyError, Configuration: map[string]any{"additionPolicy": property.AdditionPolicyAllow}},
		},
	}
}

// crdifyRunner runs crdify's three validators as its runner.Runner does
// (whole CRD, same version, served versions), with the same-version
// comparison, which costs nearly all of crdify's time, taken version by
// version: it depends only on the two schemas of the version, so a
// version whose schema text did not change has nothing to report and is
// not compared, and a pair of schemas met before (the same CRD versions
// appear on many edges, in different pairs of CRDs) is compared once.
type crdifyRunner struct {
	crd       *crdvalidator.Validator
	served    *served.Validator
	props     []validations.Comparator[apiextv1.JSONSchemaProps]
	unhandled config.EnforcementPolicy
	same      map[[2]contentKey]map[string][]validations.ComparisonResult
}

// newCrdifyRunner configures crdify as runner.New does, with
// operator-controller's configuration.
func newCrdifyRunner() (*crdifyRunner, error) {
	cfg := operatorControllerConfig()
	registry := runner.DefaultRegistry()
	initial, err := validations.LoadValidationsFromRegistry(registry)
	if err != nil {
		return nil, err
	}
	configured, err := validations.ConfigureValidations(initial, registry, *cfg)
	if err != nil {
		return nil, err
	}
	vals := slices.Collect(maps.Values(configured))
	props := validations.ComparatorsForValidations[apiextv1.JSONSchemaProps](vals...)
	return &crdifyRunner{
		crd:       crdvalidator.New(crdvalidator.WithComparators(validations.ComparatorsForValidations[apiextv1.CustomResourceDefinition](vals...)...)),
		served:    served.New(served.WithComparators(props...), served.WithUnhandledEnforcementPolicy(cfg.UnhandledEnforcement), served.WithConversionPolicy(cfg.Conversion)),
		props:     props,
		unhandled: cfg.UnhandledEnforcement,
		same:      map[[2]contentKey]map[string][]validations.ComparisonResult{},
	}, nil
}

// run is runner.Runner.Run on a and b, the decoded forms of old and nu.
func (r *crdifyRunner) run(old, nu *crd, a, b *apiextv1.CustomResourceDefinition) *runner.Results {
	res := &runner.Results{
		CRDValidation:           r.crd.Validate(a, b),
		ServedVersionValidation: r.served.Validate(a, b),
		SameVersionValidation:   map[string]map[string][]validations.ComparisonResult{},
	}
	// Last, as the comparisons read a and b without copying them.
	for i := range a.Spec.Versions {
		ov := &a.Spec.Versions[i]
		nv := validations.GetCRDVersionByName(b, ov.Name)
		if nv == nil {
			continue
		}
		var key [2]contentKey
		if v := old.version(ov.Name); v != nil {
			key[0] = v.schema
		}
		if v := nu.version(ov.Name); v != nil {
			key[1] = v.schema
		}
		known := key[0] != (contentKey{}) && key[1] != (contentKey{})
		if known && key[0] == key[1] {
			// The same schema: crdify finds no property that differs.
			res.SameVersionValidation[ov.Name] = map[string][]validations.ComparisonResult{}
			continue
		}
		found, ok := r.same[key]
		if !ok || !known {
			found = r.compareVersions(ov, nv)
			if known {
				r.same[key] = found
			}
		}
		res.SameVersionValidation[ov.Name] = found
	}
	return res
}

// compareVersions is crdify's validations.CompareVersions without its
// copies: crdify flattens a schema into a map from each property's path to
// a deep copy of the property with all its descendants, which for a large
// CRD is hundreds of megabytes and most of crdify's time. Here the map
// holds shallow copies that share the (never modified) decoded schema;
// the properties compared are copied deeply by CompareProperties, as
// there. The paths, the properties that differ once their children are
// dropped, and so the results are crdify's. A version without a schema
// has no properties (crdify would fail on it).
func (r *crdifyRunner) compareVersions(a, b *apiextv1.CustomResourceDefinitionVersion) map[string][]validations.ComparisonResult {
	oldFlat, newFlat := flattenVersion(a), flattenVersion(b)
	result := map[string][]validations.ComparisonResult{}
	for prop, o := range oldFlat {
		oc := withoutChildren(o)
		n, ok := newFlat[prop]
		if !ok {
			result[prop] = validations.CompareProperties(oc, &apiextv1.JSONSchemaProps{}, r.unhandled, r.props...)
			continue
		}
		if nc := withoutChildren(n); !equality.Semantic.DeepEqual(oc, nc) {
			result[prop] = validations.CompareProperties(oc, nc, r.unhandled, r.props...)
		}
	}
	return result
}

// flattenVersion is validations.FlattenCRDVersion with shallow copies.
// SchemaHas hands the walker pooled copies of the nodes, reused once it
// returns: the walker copies each (shallowly) to keep it.
func flattenVersion(v *apiextv1.CustomResourceDefinitionVersion) map[string]*apiextv1.JSONSchemaProps {
	flat := map[string]*apiextv1.JSONSchemaProps{}
	if v.Schema == nil {
		return flat
	}
	validations.SchemaHas(v.Schema.OpenAPIV3Schema, field.NewPath("^"), field.NewPath("^"), nil,
		func(s *apiextv1.JSONSchemaProps, _, simpleLocation *field.Path, _ []*apiextv1.JSONSchemaProps) bool {
			kept := *s
			flat[simpleLocation.String()] = &kept
			return false
		})
	return flat
}

// withoutChildren is validations.DropChildrenPropertiesFromJSONSchema
// without the deep copy.
func withoutChildren(s *apiextv1.JSONSchemaProps) *apiextv1.JSONSchemaProps {
	out := *s
	out.Properties = nil
	out.Items = nil
	return &out
}

// crdifyFindings runs crdify on two versions of a CRD and words its errors,
// one sentence per field (wordCRDChanges).
func (c *Checker) crdifyFindings(r *crdifyRunner, old, nu *crd) []string {
	decode := func(x *crd) *apiextv1.CustomResourceDefinition {
		if x.beta {
			return nil // crdify compares apiextensions.k8s.io/v1 CRDs only
		}
		out := &apiextv1.CustomResourceDefinition{}
		if json.Unmarshal(c.up.texts[x.key], out) != nil {
			return nil
		}
		return out
	}
	a, b := decode(old), decode(nu)
	if a == nil || b == nil {
		return nil
	}
	res := r.run(old, nu, a, b)
	var changes []crdChange
	for _, cr := range res.CRDValidation {
		if cr.Name == "scope" && old.scope != "" && nu.scope != "" {
			continue // crd-scope reports it
		}
		for _, e := range cr.Errors {
			changes = append(changes, crdChange{check: cr.Name, msg: e})
		}
	}
	versioned := func(served bool, byVersion map[string]map[string][]validations.ComparisonResult) {
		for _, v := range slices.Sorted(maps.Keys(byVersion)) {
			for _, field := range slices.Sorted(maps.Keys(byVersion[v])) {
				for _, cr := range byVersion[v][field] {
					for _, e := range cr.Errors {
						changes = append(changes, crdChange{version: v, served: served, field: field, check: cr.Name, msg: e})
					}
				}
			}
		}
	}
	versioned(false, res.SameVersionValidation)
	versioned(true, res.ServedVersionValidation)
	return wordCRDChanges(changes)
}

// bracketList matches the "[a b c]" lists of crdify's messages, which it
// builds from sets in no particular order.
var bracketList = regexp.MustCompile(`\[[^\[\]]*\]`)

// sortedLists sorts the items of every bracketed list, so that two runs
// say the same.
func sortedLists(msg string) string {
	return bracketList.ReplaceAllStringFunc(msg, func(l string) string {
		items := strings.Fields(l[1 : len(l)-1])
		slices.Sort(items)
		return "[" + strings.Join(items, " ") + "]"
	})
}

// conciseCrdifyError replaces the schema diff of crdify's "unhandled"
// findings with the names of the schema fields that changed.
func conciseCrdifyError(name, msg string) string {
	if name != "unhandled" {
		return sortedLists(msg)
	}

	// The message holds a go-cmp diff of the property's schema: lines
	// start with a space (same), "-" or "+", then a space, then one tab
	// per level; go-cmp writes the spaces as no-break spaces at random. A changed line
	// belongs to the nearest schema field at level one above it.
	var fields []string
	current := ""
	for _, line := range strings.Split(msg, "\n") {
		if len(line) < 3 {
			continue
		}
		sign, size := utf8.DecodeRuneInString(line)
		body, _ := strings.CutPrefix(line[size:], " ")
		if body == line[size:] {
			body = strings.TrimPrefix(body, "\u00a0")
		}
		depth := len(body) - len(strings.TrimLeft(body, "\t"))
		if depth == 1 {
			if f, _, ok := strings.Cut(strings.TrimSpace(body), ":"); ok && !strings.ContainsAny(f, " \"{}.") {
				current = f
			}
		}
		if (sign == '-' || sign == '+') && current != "" && !slices.Contains(fields, current) {
			fields = append(fields, current)
		}
	}
	if len(fields) == 0 {
		return "a change crdify does not judge"
	}
	return "a change crdify does not judge (" + strings.Join(fields, ", ") + ")"
}
