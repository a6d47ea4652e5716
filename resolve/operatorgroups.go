package resolve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// InstallFailure is a CSV that resolution installs and OLM's CSV
// controller then fails for its OperatorGroup (the CSV's phase becomes
// Failed with Reason).
type InstallFailure struct {
	CSV string
	// Subscription is the Subscription the CSV is for; empty for a
	// dependency.
	Subscription string
	// Reason is OLM's: TooManyOperatorGroups, UnsupportedOperatorGroup,
	// InvalidInstallModes, InterOperatorGroupOwnerConflict or
	// CannotModifyStaticOperatorGroupProvidedAPIs.
	Reason string
	// Message is OLM's message in the CSV's status.
	Message string
	// Detail says which OperatorGroups and APIs are involved.
	Detail string
	// Pos is the Subscription's manifest, else the OperatorGroup's.
	Pos declcfg.Pos
}

// The reasons OLM gives a CSV it fails for its OperatorGroup.
const (
	ReasonTooManyOperatorGroups  = "TooManyOperatorGroups"
	ReasonUnsupportedGroup       = "UnsupportedOperatorGroup"
	ReasonInvalidInstallModes    = "InvalidInstallModes"
	ReasonOwnerConflict          = "InterOperatorGroupOwnerConflict"
	ReasonCannotModifyStaticAPIs = "CannotModifyStaticOperatorGroupProvidedAPIs"
)

// group is an OperatorGroup as OLM's intersection rules see it: its
// targets (its own namespace included unless it targets every namespace)
// and the APIs it provides.
type group struct {
	og *OperatorGroupManifest
	// status is what OLM puts in status.namespaces ("" alone: every
	// namespace); targets adds the group's own namespace, which the
	// intersection rules always count.
	status, targets []string
	all             bool
	// known: the targets could be worked out.
	known bool
	apis  map[string]bool
}

// intersects reports whether two groups' target namespace sets meet.
func (g *group) intersects(o *group) bool {
	if !g.known || !o.known {
		return false
	}
	if g.all || o.all {
		return len(g.targets) > 0 && len(o.targets) > 0
	}
	for _, t := range g.targets {
		if slices.Contains(o.targets, t) {
			return true
		}
	}
	return false
}

// checkOperatorGroups applies OLM's install-time OperatorGroup rules to
// every CSV the namespaces' results install (their first outcome):
// exactly one OperatorGroup in the namespace, install modes that support
// its target namespaces, and no other OperatorGroup whose targets meet
// its own providing one of the CSV's APIs (a static group's APIs cannot
// change at all). OperatorGroups of every namespace in the manifests take
// part; a non-static group provides the APIs of its olm.providedAPIs
// annotation and of the CSVs in its namespace after resolution.
func checkOperatorGroups(results []*Result, namespaces []*Namespace, m *Manifests, req Request) {
	groupsIn := map[string][]*group{}
	var all []*group
	labelled := len(m.Namespaces) > 0
	for i := range m.OperatorGroups {
		og := &m.OperatorGroups[i]
		ns := og.Namespace
		if ns == "" {
			ns = req.Namespace
		}
		if ns == "" {
			continue // reported by Prepare
		}
		g := &group{og: og, apis: map[string]bool{}}
		switch {
		case len(og.TargetNamespaces) > 0:
			g.status, g.known = slices.Clone(og.TargetNamespaces), true
		case og.Selector == nil || len(og.Selector.MatchLabels)+len(og.Selector.MatchExpressions) == 0:
			g.status, g.all, g.known = []string{""}, true, true
		case labelled:
			for _, n := range m.Namespaces {
				if og.Selector.Matches(n.Labels) {
					g.status = append(g.status, n.Name)
				}
			}
			g.known = true
		case len(og.StatusNamespaces) > 0:
			g.status, g.known = slices.Clone(og.StatusNamespaces), true
		}
		g.targets = slices.Clone(g.status)
		if !g.all && len(g.targets) > 0 && !slices.Contains(g.targets, ns) {
			g.targets = append(g.targets, ns)
		}
		for _, a := range og.ProvidedAPIs {
			if k := apiKey(a); k != "" {
				g.apis[k] = true
			}
		}
		groupsIn[ns] = append(groupsIn[ns], g)
		all = append(all, g)
	}
	// The APIs each non-static group provides once the namespaces are
	// resolved: its CSVs that stay and those resolution installs.
	for i, res := range results {
		ns := namespaces[i]
		gs := groupsIn[ns.Name]
		if len(gs) != 1 || gs[0].og.StaticProvidedAPIs {
			continue
		}
		for _, in := range ns.Installed {
			for _, a := range installedAPIs(in) {
				gs[0].apis[a] = true
			}
		}
		if res.Err == nil {
			for _, in := range res.Install {
				for _, a := range installAPIs(ns, in) {
					gs[0].apis[a] = true
				}
			}
		}
	}
	for i, res := range results {
		ns := namespaces[i]
		if res.Err != nil || len(res.Install) == 0 {
			continue
		}
		gs := groupsIn[ns.Name]
		if len(gs) == 0 {
			if len(all) == 0 {
				continue // the manifests hold no OperatorGroups at all
			}
			req.Warn.Printf("namespace %s: the manifests hold no OperatorGroup there; OLM installs nothing in a namespace without one, and its OperatorGroup rules are not checked", ns.Name)
			continue
		}
		for _, in := range res.Install {
			pos := subscriptionPos(ns, in)
			if !pos.IsValid() {
				pos = gs[0].og.Pos
			}
			fail := func(reason, msg, detail string) {
				res.InstallFailures = append(res.InstallFailures, InstallFailure{CSV: in.Name, Subscription: in.Subscription, Reason: reason, Message: msg, Detail: detail, Pos: pos})
			}
			if len(gs) > 1 {
				names := make([]string, len(gs))
				for j, g := range gs {
					names[j] = g.og.Name
				}
				fail(ReasonTooManyOperatorGroups, "csv created in namespace with multiple operatorgroups, can't pick one automatically",
					fmt.Sprintf("namespace %s has OperatorGroups %s", ns.Name, strings.Join(names, ", ")))
				continue
			}
			g := gs[0]
			facts, err := installFacts(ns, in)
			switch {
			case err != nil:
				req.Warn.Printf("namespace %s: %s: its install modes cannot be read (%v); OLM's OperatorGroup rules are not checked for it", ns.Name, in.Name, err)
				continue
			case facts.Source == "":
				// A hand-written catalog: neither olm.csv.metadata nor
				// the CSV, so no install modes to check.
			default:
				if msg := duplicateModes(facts); msg != "" {
					fail(ReasonInvalidInstallModes, msg, "")
					continue
				}
				if !g.known {
					req.Warn.Printf("namespace %s: OperatorGroup %s selects namespaces by label and the manifests hold no Namespace objects: %s's install modes are not checked against its targets", ns.Name, g.og.Name, in.Name)
				} else if msg := supports(facts, ns.Name, g.status); msg != "" {
					fail(ReasonUnsupportedGroup, msg, fmt.Sprintf("OperatorGroup %s/%s %s; the CSV supports %s", ns.Name, g.og.Name, describeTargets(g), supportedList(facts)))
					continue
				}
			}
			apis := installAPIs(ns, in)
			own := currentAPIs(g, ns)
			var clash []string
			var with []string
			for _, o := range all {
				if o == g || !g.intersects(o) {
					continue
				}
				var shared []string
				for _, a := range apis {
					if o.apis[a] {
						shared = append(shared, a)
					}
				}
				if len(shared) > 0 {
					clash = append(clash, shared...)
					with = append(with, o.og.Namespace+"/"+o.og.Name)
				}
			}
			subset := true
			for _, a := range apis {
				if !own[a] {
					subset = false
				}
			}
			slices.Sort(clash)
			clash = slices.Compact(clash)
			switch {
			case len(clash) > 0 && (!subset || !g.og.StaticProvidedAPIs):
				fail(ReasonOwnerConflict, "intersecting operatorgroups provide the same apis",
					fmt.Sprintf("OperatorGroup %s (%s) provides %s", strings.Join(with, ", "), intersectWhat(g), strings.Join(clash, ", ")))
			case g.og.StaticProvidedAPIs && (len(clash) > 0 || !subset):
				var missing []string
				for _, a := range apis {
					if !own[a] {
						missing = append(missing, a)
					}
				}
				detail := fmt.Sprintf("OperatorGroup %s/%s is static and its olm.providedAPIs lacks %s", ns.Name, g.og.Name, strings.Join(missing, ", "))
				if len(missing) == 0 {
					detail = fmt.Sprintf("OperatorGroup %s/%s is static, and %s also provide %s", ns.Name, g.og.Name, strings.Join(with, ", "), strings.Join(clash, ", "))
				}
				fail(ReasonCannotModifyStaticAPIs, "static provided api operatorgroup cannot be modified by these apis", detail)
			}
		}
	}
}

func intersectWhat(g *group) string {
	if g.all {
		return "its targets meet this group's, which targets all namespaces"
	}
	return "its targets meet " + strings.Join(g.targets, ", ")
}

func describeTargets(g *group) string {
	t := g.status
	switch {
	case g.all:
		return "targets all namespaces"
	case len(t) == 0:
		return "selects no namespace"
	}
	return "targets " + strings.Join(t, ", ")
}

func supportedList(f model.CSVFacts) string {
	var s []string
	for _, m := range f.InstallModes {
		if m.Supported {
			s = append(s, m.Type)
		}
	}
	if len(s) == 0 {
		return "no install mode"
	}
	return strings.Join(s, ", ")
}

// duplicateModes is OLM's refusal of an installModes list that names a
// mode twice, "" when there is none.
func duplicateModes(f model.CSVFacts) string {
	seen := map[string]bool{}
	for _, m := range f.InstallModes {
		if seen[m.Type] {
			parts := make([]string, len(f.InstallModes))
			for i, x := range f.InstallModes {
				parts[i] = fmt.Sprintf("{%s %t}", x.Type, x.Supported)
			}
			return fmt.Sprintf("InstallMode list contains duplicates, cannot make set: [%s]", strings.Join(parts, " "))
		}
		seen[m.Type] = true
	}
	return ""
}

// supports is OLM's check that a CSV's install modes support its
// OperatorGroup's target namespaces, with OLM's messages; "" when they do.
func supports(f model.CSVFacts, operatorNS string, targets []string) string {
	set := map[string]bool{}
	for _, m := range f.InstallModes {
		set[m.Type] = m.Supported
	}
	switch n := len(targets); {
	case n == 0:
		return "operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces"
	case n == 1:
		switch targets[0] {
		case operatorNS:
			if !set["OwnNamespace"] {
				return "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace"
			}
		case "":
			if !set["AllNamespaces"] {
				return "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces"
			}
		default:
			if !set["SingleNamespace"] {
				return "SingleNamespace InstallModeType not supported, cannot configure to watch one namespace"
			}
		}
	case !set["MultiNamespace"]:
		return fmt.Sprintf("MultiNamespace InstallModeType not supported, cannot configure to watch %d namespaces", n)
	default:
		for _, t := range targets {
			if t == operatorNS && !set["OwnNamespace"] {
				return "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace"
			}
			if t == "" {
				return "operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1"
			}
		}
	}
	return ""
}

// currentAPIs are the APIs the group provides before the CSV installs: a
// static group's annotation; otherwise the annotation and the CSVs
// already installed in its namespace.
func currentAPIs(g *group, ns *Namespace) map[string]bool {
	out := map[string]bool{}
	for _, a := range g.og.ProvidedAPIs {
		if k := apiKey(a); k != "" {
			out[k] = true
		}
	}
	if g.og.StaticProvidedAPIs {
		return out
	}
	for _, in := range ns.Installed {
		for _, a := range installedAPIs(in) {
			out[a] = true
		}
	}
	return out
}

// apiKey normalises an olm.providedAPIs element, KIND.VERSION.GROUP.
func apiKey(s string) string {
	parts := strings.SplitN(strings.TrimSpace(s), ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return strings.Join(parts, ".")
}

// gvkAPIs turns olm.gvk properties into KIND.VERSION.GROUP keys.
func gvkAPIs(props []Property) []string {
	var out []string
	for _, p := range props {
		if p.Type != typeGVK {
			continue
		}
		var g gvk
		if json.Unmarshal(p.Value, &g) != nil {
			continue
		}
		k := g.Kind + "." + g.Version
		if g.Group != "" {
			k += "." + g.Group
		}
		out = append(out, k)
	}
	return out
}

func installedAPIs(in Installed) []string { return gvkAPIs(in.Properties) }

// installAPIs are the APIs a resolved bundle provides.
func installAPIs(ns *Namespace, in Install) []string {
	for _, c := range ns.Catalogs {
		if c.Key != in.Catalog {
			continue
		}
		for _, e := range c.Entries {
			if e.Name == in.Name {
				return gvkAPIs(e.Properties)
			}
		}
	}
	return nil
}

// installFacts reads a resolved bundle's install modes.
func installFacts(ns *Namespace, in Install) (model.CSVFacts, error) {
	for _, c := range ns.Catalogs {
		if c.Key == in.Catalog {
			if b := c.bundles[in.Name]; b != nil {
				return b.CSVFacts()
			}
		}
	}
	return model.CSVFacts{}, nil
}

// subscriptionPos is where the Subscription an install is for is written.
func subscriptionPos(ns *Namespace, in Install) declcfg.Pos {
	for _, s := range ns.Subscriptions {
		if s.Name == in.Subscription {
			return s.Pos
		}
	}
	return declcfg.Pos{}
}
