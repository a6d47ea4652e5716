package profile

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/profiles"
)

// TestRemovalsMatchKubernetes keeps the removal list in step with
// k8s.io/api: every kind whose generated APILifecycleRemoved() names a
// release up to RemovalsKnownUntil is listed with that release, and every
// listed kind that k8s.io/api knows has the release it names. Updating
// k8s.io/api to a newer Kubernetes makes this test list what is missing.
func TestRemovalsMatchKubernetes(t *testing.T) {
	type lifecycle interface{ APILifecycleRemoved() (int, int) }
	// Subresource bodies are not objects a bundle can ship.
	subresources := map[string]bool{"Scale": true, "DeploymentRollback": true}
	known := 0
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || subresources[gvk.Kind] {
			continue
		}
		lc, ok := reflect.New(typ).Interface().(lifecycle)
		if !ok {
			continue
		}
		major, minor := lc.APILifecycleRemoved()
		removed := declcfg.MinorVersion{Major: uint64(major), Minor: uint64(minor)}
		if major == 0 || profiles.RemovalsKnownUntil.Less(removed) {
			continue
		}
		known++
		r := findRemoval(gvk.GroupVersion().String(), gvk.Kind)
		if r == nil {
			t.Errorf("%s %s: removed in Kubernetes %s, not in the removal list", gvk.GroupVersion(), gvk.Kind, removed)
			continue
		}
		if r.removed != removed {
			t.Errorf("%s %s: the list says %s, k8s.io/api says %s", gvk.GroupVersion(), gvk.Kind, r.removed, removed)
		}
	}
	if known < 40 {
		t.Errorf("only %d removed kinds found in k8s.io/api: the scheme is not what the test expects", known)
	}
	for _, r := range removals {
		if r.use != "" && findRemoval(r.use, r.kind) != nil {
			t.Errorf("%s %s: the replacement %s is removed too", r.apiVersion, r.kind, r.use)
		}
		if profiles.RemovalsKnownUntil.Less(r.removed) {
			t.Errorf("%s %s: removed in %s, after RemovalsKnownUntil", r.apiVersion, r.kind, r.removed)
		}
	}
}
