package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/textout"
)

// UpgradeQuery is one `upgrade-path` question: a package, the subscription
// or ClusterExtension options, and the installed bundle.
type UpgradeQuery struct {
	Package string
	Options
	// From names the installed bundle; empty for a fresh install.
	From string
	// FromVersion is the installed bundle's version; required when From is
	// not a bundle of the package (a "virtual" installed bundle).
	FromVersion string
	// Cluster, when set, is the cluster the path is checked against: each
	// step to a bundle it cannot run is marked (Step.Refused).
	Cluster *ClusterVersion
	// Warn receives the olm.maxOpenShiftVersion values the cluster checks
	// cannot read.
	Warn fault.Warn
}

// resolverFor finds the package and prepares its resolver; query mistakes
// are *OptionError.
func resolverFor(cat *Catalog, q UpgradeQuery) (*Resolver, error) {
	if q.Package == "" {
		return nil, optionErrorf("no package given")
	}
	p := cat.Package(q.Package)
	if p == nil {
		return nil, unknownPackage(cat, q.Package)
	}
	opts := q.Options
	if opts.Semantics == Classic && len(opts.Channels) == 1 && opts.Channels[0] == "" {
		opts.Channels = nil
	}
	// A channel the package does not have is a mistyped name, not a
	// subscription that fails to resolve.
	for _, c := range opts.Channels {
		if c != "" && p.Channel(c) == nil {
			return nil, unknownChannel(p, c)
		}
	}
	return NewResolver(p, opts)
}

// Lookup returns the named package, or an *OptionError that lists the
// packages the catalog has and the closest name.
func (c *Catalog) Lookup(name string) (*Package, error) {
	if p := c.Package(name); p != nil {
		return p, nil
	}
	return nil, unknownPackage(c, name)
}

// LookupChannel returns the package's channel of that name, or an
// *OptionError that lists the channels it has and the closest name.
func LookupChannel(p *Package, name string) (*Channel, error) {
	if ch := p.Channel(name); ch != nil {
		return ch, nil
	}
	return nil, unknownChannel(p, name)
}

// unknownPackage and unknownChannel are the *OptionError of a name the
// catalog does not have: what it has, and the closest name.
func unknownPackage(cat *Catalog, name string) error {
	return optionErrorf("package %q is not in the catalog (it has %s)%s", name, listSome(cat.PackageNames(), 10), didYouMean(name, cat.PackageNames()))
}

func unknownChannel(p *Package, name string) error {
	return optionErrorf("package %q has no channel %q (it has %s)%s", p.Name, name, listSome(p.ChannelNames(), 10), didYouMean(name, p.ChannelNames()))
}

// didYouMean is "; did you mean "x"?" for the candidate closest to a
// mistyped name, or "".
func didYouMean(name string, candidates []string) string {
	if s := declcfg.Suggest(name, candidates); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// UpgradePath simulates the upgrades of one installed bundle (or a fresh
// install). Resolution failures are in Path.Err; the error return is for
// queries that cannot be simulated (*OptionError).
func UpgradePath(cat *Catalog, q UpgradeQuery) (*Path, error) {
	r, err := resolverFor(cat, q)
	if err != nil {
		return nil, err
	}
	from, err := r.installed(q.From, q.FromVersion)
	if err != nil {
		return nil, err
	}
	p := r.Path(from)
	if q.Cluster != nil {
		p.Cluster = q.Cluster
		cc := newClusterChecker(q.Warn)
		for _, st := range p.Steps {
			if st.Next != nil {
				st.Refused = cc.refuses(q.Cluster, st.Next)
			}
		}
	}
	return p, nil
}

// installed turns --from/--from-version into the installed bundle.
func (r *Resolver) installed(name, version string) (*Installed, error) {
	if name == "" {
		if version != "" {
			return nil, optionErrorf("an installed version needs the installed bundle's name")
		}
		return nil, nil
	}
	if b := r.pkg.Bundle(name); b != nil {
		if version != "" && version != b.Version {
			return nil, optionErrorf("bundle %s has version %s in the catalog, not %s", name, b.Version, version)
		}
		return &Installed{Name: name, Version: b.Version}, nil
	}
	if version == "" {
		return nil, optionErrorf("bundle %q is not in package %q; give its version to simulate an installed bundle the catalog does not have", name, r.pkg.Name)
	}
	in := Installed{Name: name, Version: version}
	if err := r.CheckInstalled(in); err != nil {
		return nil, err
	}
	return &in, nil
}

func listSome(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

// pathJSON is the documented `upgrade-path -o json` object.
type pathJSON struct {
	Package    string     `json:"package"`
	Semantics  Semantics  `json:"semantics"`
	From       *Installed `json:"from"`
	Next       *string    `json:"next"`
	Successors []string   `json:"successors"`
	Path       []string   `json:"path"`
	Error      string     `json:"error,omitempty"`
	// Cluster and Refused are there with --cluster-version only.
	Cluster *clusterJSON  `json:"cluster,omitempty"`
	Refused []refusedJSON `json:"refused,omitempty"`
}

type clusterJSON struct {
	OpenShift  *string `json:"openShift"`
	Kubernetes string  `json:"kubernetes"`
}

func (c *ClusterVersion) toJSON() *clusterJSON {
	if c == nil {
		return nil
	}
	out := &clusterJSON{Kubernetes: c.Kube.String()}
	if c.OpenShift != nil {
		s := c.OpenShift.String()
		out.OpenShift = &s
	}
	return out
}

// refusedJSON is a step the cluster cannot take; From is null for a fresh
// install (or, in a survey, for a bundle no cluster runs).
type refusedJSON struct {
	Step   int     `json:"step,omitempty"`
	From   *string `json:"from"`
	To     string  `json:"to"`
	Reason string  `json:"reason"`
}

// WriteJSON writes the path as one JSON object.
func (p *Path) WriteJSON(w io.Writer) error {
	out := pathJSON{Package: p.Package, Semantics: p.Semantics, From: p.From, Successors: p.Successors(), Path: p.Bundles()}
	if n := p.Next(); n != "" {
		out.Next = &n
	}
	if p.Err != nil {
		out.Error = p.Err.Error()
	}
	out.Cluster = p.Cluster.toJSON()
	for i, st := range p.Steps {
		if st.Refused == "" {
			continue
		}
		var from *string
		if st.From != nil {
			from = &st.From.Name
		}
		out.Refused = append(out.Refused, refusedJSON{Step: i + 1, From: from, To: st.Next.Name, Reason: st.Refused})
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Describe renders the options as a subscription or ClusterExtension
// would read them.
func (o Options) Describe() string {
	if o.Semantics == Classic {
		if len(o.Channels) == 0 || o.Channels[0] == "" {
			return "OLM classic, no channel (default channel first, then the others by name)"
		}
		return fmt.Sprintf("OLM classic, channel %s", o.Channels[0])
	}
	chans := "all channels"
	if len(o.Channels) > 0 {
		chans = "channels " + strings.Join(o.Channels, ", ")
	}
	rng := "no version range"
	if o.VersionRange != "" {
		rng = fmt.Sprintf("version range %q", o.VersionRange)
	}
	pol := o.Policy
	if pol == "" {
		pol = CatalogProvided
	}
	return fmt.Sprintf("OLM v1, %s, %s, policy %s", chans, rng, pol)
}

// WriteText explains the path step by step: the candidates with the edges
// that make them successors, and why the winner won.
func (p *Path) WriteText(w io.Writer, opts Options) error {
	tw := textout.New(w)
	tw.Printf("package %s: %s\n", p.Package, opts.Describe())
	if p.From == nil {
		tw.Printf("installed: nothing (fresh install)\n")
	} else {
		tw.Printf("installed: %s (%s)\n", p.From.Name, p.From.Version)
	}
	for i, st := range p.Steps {
		tw.Printf("\n")
		from := "fresh install"
		if st.From != nil {
			from = st.From.Name
		}
		switch {
		case st.Err != nil:
			tw.Printf("step %d: %s fails to resolve\n", i+1, from)
		case st.Next != nil:
			tw.Printf("step %d: %s -> %s (%s)\n", i+1, from, st.Next.Name, st.Next.Version)
		default:
			tw.Printf("step %d: %s stays\n", i+1, from)
		}
		if len(st.Candidates) > 0 {
			order := "highest version first, deprecated last"
			if p.Semantics == Classic {
				order = "closest to the channel head first"
			}
			tw.Printf("  successors (%s):\n", order)
			for _, c := range st.Candidates {
				mark := " "
				if st.Next != nil && c.Name == st.Next.Name {
					mark = "*"
				}
				tw.Printf("  %s %s\n", mark, describeCandidate(c, st.From))
			}
		}
		if st.Err != nil {
			tw.Printf("  error: %v\n", st.Err)
		} else {
			tw.Printf("  %s\n", st.Reason)
		}
		if st.Refused != "" {
			tw.Printf("  ! a cluster at %s cannot take this step: %s\n", p.Cluster, st.Refused)
		}
	}
	tw.Printf("\n")
	if p.Err != nil && (len(p.Steps) == 0 || p.Steps[len(p.Steps)-1].Err == nil) {
		tw.Printf("error: %v\n", p.Err)
	}
	tw.Printf("%s\n", p.Line())
	if p.Cluster != nil {
		if n := p.RefusedSteps(); n > 0 {
			tw.Printf("cluster %s: cannot take %d %s (of %d)\n", p.Cluster, n, plural(n, "step", "steps"), len(p.Bundles()))
		} else {
			tw.Printf("cluster %s: can take every step\n", p.Cluster)
		}
	}
	return tw.Err()
}

// Line sums the path up in one line, as the text output ends: the bundles
// from the installed one on and what they amount to ("path: a.v1 -> a.v2
// (1 upgrade)", "path: a.v3 (a fresh install)", "path: no upgrade", or
// "path: a.v1 -> a.v2, then resolution fails").
func (p *Path) Line() string {
	names := []string{}
	if p.From != nil {
		names = append(names, p.From.Name)
	}
	names = append(names, p.Bundles()...)
	switch moves := len(p.Bundles()); {
	case p.Err != nil:
		return fmt.Sprintf("path: %s, then resolution fails", joinOrNone(names))
	case moves == 0:
		return "path: no upgrade"
	case p.From == nil:
		// The first bundle is installed, not upgraded to.
		what := "a fresh install"
		if ups := moves - 1; ups > 0 {
			what += fmt.Sprintf(", then %d %s", ups, plural(ups, "upgrade", "upgrades"))
		}
		return fmt.Sprintf("path: %s (%s)", strings.Join(names, " -> "), what)
	default:
		return fmt.Sprintf("path: %s (%d %s)", strings.Join(names, " -> "), moves, plural(moves, "upgrade", "upgrades"))
	}
}

// RefusedSteps counts the steps the path's cluster cannot take.
func (p *Path) RefusedSteps() int {
	n := 0
	for _, st := range p.Steps {
		if st.Refused != "" {
			n++
		}
	}
	return n
}

func joinOrNone(names []string) string {
	if len(names) == 0 {
		return "nothing installed"
	}
	return strings.Join(names, " -> ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Explain says what the text output says of a candidate of a step from
// the installed bundle after its name and version: the edges that make it
// a successor, and whether it is deprecated or excluded.
func (c Candidate) Explain(from *Installed) string {
	var sb strings.Builder
	sb.WriteString(describeEdges(c.Edges, from))
	if c.Bundle != nil && c.Bundle.Deprecation != nil {
		sb.WriteString("; deprecated")
	}
	if c.Excluded != "" {
		sb.WriteString("; excluded: ")
		sb.WriteString(c.Excluded)
	}
	return sb.String()
}

func describeCandidate(c Candidate, from *Installed) string {
	name := c.Name
	if c.Bundle != nil {
		name += " (" + c.Bundle.Version + ")"
	}
	return name + ": " + c.Explain(from)
}

// describeEdges renders edges as "replaces X in alpha, beta; skipRange
// ">=1.0.0 <2.0.0" contains 1.2.0 in alpha", merging channels of equal
// edges.
func describeEdges(edges []Edge, from *Installed) string {
	type key struct {
		kind EdgeKind
		rng  string
	}
	var order []key
	chans := map[key][]string{}
	for _, e := range edges {
		k := key{e.Kind, e.SkipRange}
		if _, ok := chans[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(chans[k], e.Channel) {
			chans[k] = append(chans[k], e.Channel)
		}
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		var s string
		switch k.kind {
		case EdgeReplaces:
			s = "replaces " + from.Name
		case EdgeSkips:
			s = "skips " + from.Name
		case EdgeSkipRange:
			s = fmt.Sprintf("skipRange %q contains %s", k.rng, from.Version)
		}
		parts = append(parts, s+" in "+strings.Join(chans[k], ", "))
	}
	return strings.Join(parts, "; ")
}
