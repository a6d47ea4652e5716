package graph

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/fbc-project/fbc/declcfg"
)

// Fragments and pruning. A build pipeline that publishes catalogs in pieces
// (Konflux builds one FBC fragment per operator and merges it into a
// released index) compares each fragment with the released index: the
// packages the fragment does not hold are not its business, and within its
// packages a released entry must stay in its channel, except in pre-GA
// channels, which may be pruned.

// DiffOptions tune DiffWith.
type DiffOptions struct {
	// Semantics to judge the change by (at least one).
	Semantics []Semantics
	// Fragment says NEW holds only some of OLD's packages: packages absent
	// from NEW are out of scope, not removed.
	Fragment bool
	// Prune, when set, makes dropping a released entry (an entry of OLD)
	// from a channel an error (entry-pruned), except in channels whose
	// name it matches; those may be pruned, so what pruning them breaks
	// (removed channels and bundles, stranded installs, a lower head) is
	// a warning.
	Prune *regexp.Regexp
}

// DefaultPrunableChannels matches the channels Konflux's pruning check lets
// a fragment prune: the pre-GA ones.
const DefaultPrunableChannels = "dev-preview|pre-ga|candidate"

// DiffWith compares two catalogs. Safety is judged per channel under each
// semantics: every bundle a subscriber of the old channel could run must
// still reach the channel's head (or be it) unless it could not before
// either, no head may move to a lower version, and no bundle may disappear
// without a new edge out of it. opts adds the fragment and pruning rules.
func DiffWith(oldCat, newCat *Catalog, opts DiffOptions) (*DiffReport, error) {
	if len(opts.Semantics) == 0 {
		return nil, optionErrorf("no semantics to judge the change by")
	}
	d := &DiffReport{Semantics: opts.Semantics, Fragment: opts.Fragment}
	if opts.Prune != nil {
		d.Prune = opts.Prune.String()
	}
	names := append(oldCat.PackageNames(), newCat.PackageNames()...)
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		op, np := oldCat.Package(name), newCat.Package(name)
		if np == nil && opts.Fragment {
			d.OutOfScope = append(d.OutOfScope, name)
			continue
		}
		d.diffCatalogPackage(name, op, np)
		if op != nil && np != nil && opts.Prune != nil {
			d.pruneCheck(op, np, opts.Prune)
		}
	}
	d.mergeFindings()
	return d, nil
}

// pruneCheck reports the released entries a package's non-prunable channels
// dropped, and makes warnings of the findings about what pruning the
// prunable channels broke. It runs after diffPackage, on the package's
// findings.
func (d *DiffReport) pruneCheck(op, np *Package, prunable *regexp.Regexp) {
	for _, oc := range op.Channels {
		nc := np.Channel(oc.Name)
		if nc == nil || prunable.MatchString(oc.Name) {
			continue // a removed channel is channel-removed already
		}
		for _, e := range oc.Entries {
			if nc.Entry(e.Name) != nil {
				continue
			}
			d.finding(declcfg.Finding{Severity: declcfg.SeverityError, Rule: "entry-pruned", Package: op.Name, Channel: oc.Name, Bundle: e.Name, Pos: nc.Pos,
				Message: fmt.Sprintf("%s was released in channel %s and is gone from it: released entries stay in their channels (only channels matching %q may be pruned)", e.Name, oc.Name, prunable.String())})
		}
	}
	// A bundle's own findings (removed-without-edge) concern the channels
	// that held it: prunable only if all of them are.
	onlyPrunable := func(bundle string) bool {
		held := false
		for _, oc := range op.Channels {
			if oc.Entry(bundle) != nil {
				held = true
				if !prunable.MatchString(oc.Name) {
					return false
				}
			}
		}
		return held
	}
	for i := range d.Findings {
		f := &d.Findings[i]
		if f.Package != op.Name || f.Severity != declcfg.SeverityError || f.Rule == "entry-pruned" {
			continue
		}
		switch {
		case f.Channel != "" && prunable.MatchString(f.Channel),
			f.Channel == "" && f.Bundle != "" && onlyPrunable(f.Bundle):
			f.Severity = declcfg.SeverityWarning
			f.Message += fmt.Sprintf(" (a warning: channel names matching %q may be pruned)", prunable.String())
		}
	}
}
