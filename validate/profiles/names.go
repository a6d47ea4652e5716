package profiles

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/olmv1gate"
)

// Name is a profile name, as --profile takes it.
type Name string

const (
	// OperatorFramework runs operator-framework/api's default bundle
	// validators (CSV, CRD, bundle), as operator-sdk bundle validate does.
	OperatorFramework Name = "operatorframework"
	// OperatorHub adds OperatorHub's metadata rules (OperatorHubV2,
	// capabilities and categories validators, and fbc's icon and
	// removed-API checks).
	OperatorHub Name = "operatorhub"
	// GoodPractices runs operator-framework/api's good-practices validator.
	GoodPractices Name = "good-practices"
	// OLMv1 checks what operator-controller refuses.
	OLMv1 Name = "olmv1"
	// K8sVersion checks for Kubernetes APIs removed by a version
	// (k8s-version=X.Y).
	K8sVersion Name = "k8s-version"
	// Konflux is not a bundle-content profile: it adds the catalog rules
	// only the Konflux pipeline applies (validate.Options.Konflux), which
	// fbc checks itself, without fbc-profile.
	Konflux Name = "konflux"
)

// Names lists the profile names in documentation order.
var Names = []Name{OperatorFramework, OperatorHub, GoodPractices, OLMv1, K8sVersion, Konflux}

// ParseKubeVersion reads a Kubernetes release, MAJOR.MINOR (declcfg's
// MinorVersion), or MAJOR.MINOR.PATCH, whose patch does not matter, with
// an optional leading v.
func ParseKubeVersion(s string) (declcfg.MinorVersion, error) {
	t := strings.TrimSpace(s)
	if parts := strings.Split(t, "."); len(parts) == 3 {
		if _, err := strconv.ParseUint(parts[2], 10, 64); err == nil {
			t = parts[0] + "." + parts[1]
		}
	}
	v, err := declcfg.ParseMinorVersion(t)
	if err != nil {
		return declcfg.MinorVersion{}, fmt.Errorf("%q is not a Kubernetes version: write MAJOR.MINOR, e.g. 1.33", s)
	}
	return v, nil
}

// Set is the profiles of one run.
type Set struct {
	names []Name
	// Kube is the target of k8s-version (zero when it is not named).
	Kube declcfg.MinorVersion
	// Gates are operator-controller's feature gates the olmv1 profile
	// follows (v1.11's defaults when zero).
	Gates olmv1gate.Gates
}

// Parse reads --profile values: names separated by commas, each given once;
// k8s-version takes a value (k8s-version=1.33).
func Parse(values []string) (Set, error) {
	var s Set
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, arg, hasArg := strings.Cut(item, "=")
			n := Name(name)
			if !slices.Contains(Names, n) {
				return Set{}, fmt.Errorf("unknown profile %q; profiles are %s", name, namesList())
			}
			if s.Has(n) {
				return Set{}, fmt.Errorf("profile %s given twice", name)
			}
			switch {
			case n == K8sVersion && !hasArg:
				return Set{}, fmt.Errorf("profile k8s-version needs the target version: k8s-version=1.33")
			case n == K8sVersion:
				kv, err := ParseKubeVersion(arg)
				if err != nil {
					return Set{}, fmt.Errorf("profile k8s-version: %v", err)
				}
				s.Kube = kv
			case hasArg:
				return Set{}, fmt.Errorf("profile %s takes no value (%q)", name, item)
			}
			s.names = append(s.names, n)
		}
	}
	return s, nil
}

// Of makes a set from names (k8s-version's target is set apart).
func Of(names ...Name) Set { return Set{names: slices.Clone(names)} }

func namesList() string {
	var out []string
	for _, n := range Names {
		if n == K8sVersion {
			out = append(out, "k8s-version=X.Y")
			continue
		}
		out = append(out, string(n))
	}
	return strings.Join(out, ", ")
}

// Has reports whether the set names n.
func (s Set) Has(n Name) bool { return slices.Contains(s.names, n) }

// Empty reports whether no profile is named.
func (s Set) Empty() bool { return len(s.names) == 0 }

// BundleContent reports whether the set names a profile that checks
// bundle contents, which fbc-profile runs (every profile but konflux).
func (s Set) BundleContent() bool {
	for _, n := range s.names {
		if n != Konflux {
			return true
		}
	}
	return false
}

// String lists the set as --profile takes it.
func (s Set) String() string {
	var out []string
	for _, n := range Names {
		if !s.Has(n) {
			continue
		}
		if n == K8sVersion {
			out = append(out, "k8s-version="+s.Kube.String())
			continue
		}
		out = append(out, string(n))
	}
	return strings.Join(out, ",")
}

// RemovalsKnownUntil is the last Kubernetes release whose API removals the
// k8s-version profile knows (validate/profile's table of removed APIs is
// held to it by a test): a later target gets a warning that newer removals
// are not checked.
var RemovalsKnownUntil = declcfg.MinorVersion{Major: 1, Minor: 36}
