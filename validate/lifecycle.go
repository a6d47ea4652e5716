package validate

import (
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/fbc-project/fbc/declcfg"
)

// SchemaLifecycle is the schema of the OpenShift lifecycle blob: a
// package's minor versions, their support phases and the platform releases
// each runs on (schema/lifecycle.cue has its shape). The rules here are
// those of the tools that write and read it (plcc2fbc and fbc-update-planner,
// release-engineering/fbc-update-planner pkg/fbc), in their words.
const SchemaLifecycle = declcfg.SchemaLifecycle

// majorMinor is a MAJOR.MINOR version without leading zeros.
var majorMinor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`) })

// lifecycleDate is the layout of a phase's dates.
const lifecycleDate = "2006-01-02"

// lifecycleRef is a lifecycle blob's package, kept for the catalog-wide
// check that the catalog has that package.
type lifecycleRef struct {
	pkg string
	pos declcfg.Pos
}

type lifecyclePhase struct {
	name       string
	start, end *time.Time
	startNode  *declcfg.Node
}

// lifecycleBlob checks one lifecycle blob: names and dates as the tools
// parse them, at least one version and one phase per version (phases
// without both dates are dropped first, as plcc2fbc does), each phase's
// dates in order, and each phase starting the day after the previous one
// ends.
func (c *fileCheck) lifecycleBlob(d *docContext, root *declcfg.Node) {
	if pkg := field(root, "package"); strValue(pkg) != "" {
		c.lifecycles = append(c.lifecycles, lifecycleRef{pkg: pkg.Value, pos: d.pos(pkg)})
	}
	versionsNode := field(root, "versions")
	versions := items(versionsNode)
	if versionsNode != nil && versionsNode.Kind == declcfg.SequenceNode && len(versions) == 0 {
		d.report(RuleLifecycleEmpty, versionsNode, "FBC-VAL-01: package has no versions: list at least one")
	}
	for i, v := range versions {
		vname := strValue(field(v, "name"))
		if n := field(v, "name"); vname != "" && !majorMinor().MatchString(vname) {
			d.reportf(RuleLifecycleVersion, n, "versions[%d].name: invalid version %q; expected <major>.<minor>", i, vname)
		}
		for j, pc := range items(field(v, "platformCompatibility")) {
			for k, pv := range items(field(pc, "versions")) {
				if s := strValue(pv); s != "" && !majorMinor().MatchString(s) {
					d.reportf(RuleLifecycleVersion, pv, "versions[%d].platformCompatibility[%d].versions[%d]: invalid platform version %q; expected <major>.<minor>", i, j, k, s)
				}
			}
		}
		phasesNode := field(v, "phases")
		if phasesNode == nil || phasesNode.Kind != declcfg.SequenceNode {
			continue // the shape walk reports it
		}
		var complete []lifecyclePhase
		dropped := 0
		for _, ph := range items(phasesNode) {
			endNode := field(ph, "endDate")
			p := lifecyclePhase{name: strValue(field(ph, "name")), startNode: field(ph, "startDate")}
			if declcfg.IsNull(p.startNode) || declcfg.IsNull(endNode) {
				dropped++
			}
			p.start = phaseDate(d, p.startNode, vname, p.name, "start")
			p.end = phaseDate(d, endNode, vname, p.name, "end")
			if p.start == nil || p.end == nil {
				continue
			}
			if p.start.After(*p.end) {
				d.reportf(RuleLifecyclePhases, p.startNode, "FBC-VAL-04: version %q phase %q: start date %s is after end date %s",
					vname, p.name, p.start.Format(lifecycleDate), p.end.Format(lifecycleDate))
			}
			complete = append(complete, p)
		}
		switch {
		case len(items(phasesNode)) == 0:
			d.reportf(RuleLifecycleEmpty, phasesNode, "FBC-VAL-02: version %q: has no phases: list at least one", vname)
		case dropped == len(items(phasesNode)):
			d.reportf(RuleLifecycleEmpty, phasesNode, "FBC-VAL-02: version %q: has no phases once those without both a start and an end date are dropped (plcc2fbc drops them)", vname)
		}
		for k := 0; k+1 < len(complete); k++ {
			cur, next := complete[k], complete[k+1]
			if !cur.end.AddDate(0, 0, 1).Equal(*next.start) {
				d.reportf(RuleLifecyclePhases, next.startNode, "FBC-VAL-05: version %q: gap or overlap between phase %q (ends %s) and phase %q (starts %s): each phase starts the day after the previous one ends",
					vname, cur.name, cur.end.Format(lifecycleDate), next.name, next.start.Format(lifecycleDate))
			}
		}
	}
}

// phaseDate reads a phase's date; nil when it is absent or not a string
// (the shape walk reports those) or not a YYYY-MM-DD date, which it
// reports. An empty string is not absent: fbc-update-planner decodes every
// date it is given, and "" fails as any other text does (only null and a
// missing field leave a phase without the date).
func phaseDate(d *docContext, n *declcfg.Node, version, phase, which string) *time.Time {
	if !isString(n) {
		return nil
	}
	s := n.Value
	t, err := time.Parse(lifecycleDate, s)
	if err != nil {
		d.reportf(RuleLifecycleDate, n, "version %q phase %q: invalid %s date %q; expected YYYY-MM-DD", version, phase, which, s)
		return nil
	}
	return &t
}

// lifecyclePackages reports lifecycle blobs whose package the catalog does
// not have.
func (c *checker) lifecyclePackages() {
	var names []string
	for _, p := range c.catalog.Packages {
		if p.Blob != nil {
			names = append(names, p.Name)
		}
	}
	for _, l := range c.lifecycles {
		if p := c.catalog.Package(l.pkg); p != nil && p.Blob != nil {
			continue
		}
		msg := fmt.Sprintf("lifecycle blob for package %q, which the catalog does not have: the package must match the operator's package in the catalog", l.pkg)
		if sug := declcfg.Suggest(l.pkg, names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		}
		c.add(RuleLifecyclePackage, l.pos, blobRef{pkg: l.pkg}, msg)
	}
}
