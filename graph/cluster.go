package graph

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
)

// ClusterVersion is the cluster an upgrade path is checked against: an
// OpenShift release and the Kubernetes release it ships, or a Kubernetes
// release alone (a cluster that is not OpenShift, where
// olm.maxOpenShiftVersion means nothing).
type ClusterVersion struct {
	// OpenShift is nil for a Kubernetes cluster that is not OpenShift.
	OpenShift *declcfg.MinorVersion
	Kube      declcfg.MinorVersion
}

// ParseClusterVersion reads an OpenShift release, 4.N or 5.N (or v4.N), or
// a Kubernetes release, 1.N: the major version tells them apart. OpenShift
// 4.N ships Kubernetes 1.(N+13) from 4.3 on (4.18 ships 1.31); 4.1 and 4.2
// shipped 1.13 and 1.14. OpenShift 5 follows 4.22 (Kubernetes 1.35) on the
// same cadence: 5.N ships 1.(N+36). Other OpenShift majors are refused:
// which Kubernetes they ship is not known here.
func ParseClusterVersion(s string) (*ClusterVersion, error) {
	v, err := declcfg.ParseMinorVersion(strings.TrimSpace(s))
	if err != nil {
		return nil, optionErrorf("cluster version %q is not MAJOR.MINOR: give an OpenShift release (4.18) or a Kubernetes one (1.31)", s)
	}
	major, minor := v.Major, v.Minor
	switch major {
	case 1:
		return &ClusterVersion{Kube: v}, nil
	case 4:
		if minor == 0 {
			return nil, optionErrorf("cluster version %q: OpenShift 4 starts at 4.1", s)
		}
		if minor > lastOpenShift4 {
			return nil, optionErrorf("cluster version %q: OpenShift 4 ends at 4.%d, and 5.0 follows it", s, lastOpenShift4)
		}
		return &ClusterVersion{OpenShift: &v, Kube: kubeOf(v)}, nil
	case 5:
		return &ClusterVersion{OpenShift: &v, Kube: kubeOf(v)}, nil
	}
	return nil, optionErrorf("cluster version %q: fbc knows the Kubernetes releases of OpenShift 4 and 5 only; give an OpenShift 4.N or 5.N release or the cluster's Kubernetes release (1.N)", s)
}

// lastOpenShift4 is the last OpenShift 4 minor; openShift5Kube the
// Kubernetes minor OpenShift 5.0 ships, the one after 4.22's 1.35.
const (
	lastOpenShift4 = 22
	openShift5Kube = 36
)

// kubeOf is the Kubernetes release an OpenShift 4 or 5 release ships.
func kubeOf(ocp declcfg.MinorVersion) declcfg.MinorVersion {
	if ocp.Major == 5 {
		return declcfg.MinorVersion{Major: 1, Minor: ocp.Minor + openShift5Kube}
	}
	if ocp.Minor <= 2 {
		return declcfg.MinorVersion{Major: 1, Minor: ocp.Minor + 12}
	}
	return declcfg.MinorVersion{Major: 1, Minor: ocp.Minor + 13}
}

// openShiftFor is the first OpenShift release that ships kube or a later
// Kubernetes; false when none does (a Kubernetes major other than 1).
func openShiftFor(kube declcfg.MinorVersion) (declcfg.MinorVersion, bool) {
	if kube.Major != 1 {
		return declcfg.MinorVersion{}, kube.Major < 1
	}
	switch {
	case kube.Minor <= 13:
		return declcfg.MinorVersion{Major: 4, Minor: 1}, true
	case kube.Minor == 14:
		return declcfg.MinorVersion{Major: 4, Minor: 2}, true
	case kube.Minor == 15: // no OpenShift release shipped 1.15
		return declcfg.MinorVersion{Major: 4, Minor: 3}, true
	case kube.Minor >= openShift5Kube:
		return declcfg.MinorVersion{Major: 5, Minor: kube.Minor - openShift5Kube}, true
	}
	return declcfg.MinorVersion{Major: 4, Minor: kube.Minor - 13}, true
}

func (c *ClusterVersion) String() string {
	if c.OpenShift == nil {
		return "Kubernetes " + c.Kube.String()
	}
	return fmt.Sprintf("OpenShift %s (Kubernetes %s)", c.OpenShift, c.Kube)
}

// clusterBounds is what one bundle asks of a cluster.
type clusterBounds struct {
	// max is olm.maxOpenShiftVersion, nil when absent or unreadable.
	max *declcfg.MinorVersion
	// minKube is the minKubeVersion's Kubernetes minor, nil when absent.
	minKube *declcfg.MinorVersion
	// minKubeText is minKubeVersion as written.
	minKubeText string
	// floor is the first OpenShift release whose Kubernetes meets
	// minKube, nil when any does.
	floor *declcfg.MinorVersion
	// never says why no cluster runs the bundle (a minKubeVersion OLM
	// cannot parse, or one no OpenShift 4 release meets); "" otherwise.
	never string
}

// clusterChecker reads the bundles' cluster bounds once and reports the
// properties it cannot read, once per bundle.
type clusterChecker struct {
	bounds map[*Bundle]*clusterBounds
	warn   fault.Warn
}

func newClusterChecker(warn fault.Warn) *clusterChecker {
	return &clusterChecker{bounds: map[*Bundle]*clusterBounds{}, warn: warn}
}

func (cc *clusterChecker) of(b *Bundle) *clusterBounds {
	if cb := cc.bounds[b]; cb != nil {
		return cb
	}
	cb := &clusterBounds{}
	cc.bounds[b] = cb
	if m := b.MaxOpenShiftVersion(); m != nil {
		switch {
		case m.Err != nil:
			cc.warn.Printf("%s: bundle %s: olm.maxOpenShiftVersion %s %v: OLM blocks cluster upgrades while the bundle is installed, and the cluster checks take it as absent", m.Pos, b.Name, m.Raw, m.Err)
		case m.Loose != "":
			cc.warn.Printf("%s: bundle %s: olm.maxOpenShiftVersion %s %s; write MAJOR.MINOR, e.g. \"4.18\"", m.Pos, b.Name, m.Raw, m.Loose)
			fallthrough
		default:
			v := m.Version
			cb.max = &v
		}
	}
	text, err := b.MinKubeVersion()
	if err != nil {
		cc.warn.Printf("%s: bundle %s: minKubeVersion not read: %v", b.Pos, b.Name, err)
	}
	if text == "" {
		return cb
	}
	cb.minKubeText = text
	sv, err := model.ParseMinKubeVersion(text)
	if err != nil {
		cb.never = fmt.Sprintf("%s: OLM classic fails the CSV's requirements on every cluster", err)
		return cb
	}
	k := declcfg.MinorVersion{Major: sv.Major, Minor: sv.Minor}
	cb.minKube = &k
	f, ok := openShiftFor(k)
	if !ok {
		cb.never = fmt.Sprintf("minKubeVersion %s is above every Kubernetes release OpenShift ships", text)
		return cb
	}
	if f.Compare(declcfg.MinorVersion{Major: 4, Minor: 1}) > 0 {
		cb.floor = &f
	}
	return cb
}

// refuses says why a cluster at c cannot run b, "" when it can.
func (cc *clusterChecker) refuses(c *ClusterVersion, b *Bundle) string {
	cb := cc.of(b)
	var why []string
	if cb.never != "" {
		why = append(why, cb.never)
	} else if cb.minKube != nil && cb.minKube.Compare(c.Kube) > 0 {
		why = append(why, fmt.Sprintf("minKubeVersion %s is above the cluster's Kubernetes %s: OLM classic leaves the CSV Pending (RequirementsNotMet)", cb.minKubeText, c.Kube))
	}
	if c.OpenShift != nil && cb.max != nil && cb.max.Compare(*c.OpenShift) < 0 {
		why = append(why, fmt.Sprintf("maxOpenShiftVersion %s is below the cluster's %s: the bundle does not support it, and OLM marks the cluster not upgradeable", cb.max, c.OpenShift))
	}
	return strings.Join(why, "; ")
}

// ClusterBlock is a step a cluster cannot take: the bundle To cannot run
// there, or cannot be reached from From.
type ClusterBlock struct {
	// From is nil when To itself is where the path starts.
	From   *Bundle
	To     *Bundle
	Reason string
}

// blockAt is the first step of a path (path[0] installed, each next
// bundle an upgrade) that a cluster at c cannot take. The installed
// bundle itself is not judged: the cluster runs it already.
func (cc *clusterChecker) blockAt(c *ClusterVersion, path []*Bundle) *ClusterBlock {
	for i := 1; i < len(path); i++ {
		if why := cc.refuses(c, path[i]); why != "" {
			return &ClusterBlock{From: path[i-1], To: path[i], Reason: why}
		}
	}
	return nil
}

// blockAny is the first step of a path that no OpenShift cluster can take,
// even one upgraded along the way: a cluster cannot upgrade past the
// maxOpenShiftVersion of the bundle it runs, and cannot install a bundle
// below its minKubeVersion. The cheapest schedule installs each bundle on
// the oldest release its minKubeVersion (and every earlier one's) allows,
// so the path is blocked where that release is above the
// maxOpenShiftVersion of the bundle installed before, or of the bundle
// itself.
func (cc *clusterChecker) blockAny(path []*Bundle) *ClusterBlock {
	var floor *declcfg.MinorVersion
	var floorBy *Bundle
	for i, b := range path {
		cb := cc.of(b)
		var from *Bundle
		if i > 0 {
			from = path[i-1]
		}
		if cb.never != "" {
			return &ClusterBlock{From: from, To: b, Reason: cb.never}
		}
		if cb.floor != nil && (floor == nil || cb.floor.Compare(*floor) > 0) {
			floor, floorBy = cb.floor, b
		}
		if floor == nil {
			continue
		}
		needs := fmt.Sprintf("OpenShift %s or later (minKubeVersion %s of %s)", floor, cc.of(floorBy).minKubeText, floorBy.Name)
		if floorBy == b {
			needs = fmt.Sprintf("OpenShift %s or later (minKubeVersion %s)", floor, cb.minKubeText)
		}
		if from != nil {
			if m := cc.of(from).max; m != nil && floor.Compare(*m) > 0 {
				return &ClusterBlock{From: from, To: b, Reason: fmt.Sprintf("%s needs %s, and %s keeps the cluster at OpenShift %s or earlier (maxOpenShiftVersion)", b.Name, needs, from.Name, m)}
			}
		}
		if cb.max != nil && floor.Compare(*cb.max) > 0 {
			return &ClusterBlock{From: from, To: b, Reason: fmt.Sprintf("%s supports OpenShift up to %s (maxOpenShiftVersion) but needs %s", b.Name, cb.max, needs)}
		}
	}
	return nil
}

// hasMax reports whether any of the bundles declares
// olm.maxOpenShiftVersion: without one, every path can be taken on some
// cluster, and minKubeVersion need not be read.
func hasMax(bundles []*Bundle) bool {
	for _, b := range bundles {
		if b.MaxOpenShiftVersion() != nil {
			return true
		}
	}
	return false
}
