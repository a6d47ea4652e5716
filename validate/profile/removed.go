package profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	v1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// removal is a Kubernetes API version of a kind that the API server no
// longer serves from a release on.
type removal struct {
	apiVersion, kind string
	removed          declcfg.MinorVersion
	// use is the API version to move to ("" when the API is gone).
	use string
	// resource is the plural, for API groups whose resource is gone in
	// every version (RBAC rules that grant it then grant nothing).
	resource string
}

// removals lists the API versions removed from Kubernetes 1.16 to 1.36:
// Kubernetes' deprecation guide and, for every type of k8s.io/api, the
// release its generated APILifecycleRemoved() names (which is when the API
// server stops serving it). TestRemovalsMatchKubernetes keeps the two in
// step: updating k8s.io/api makes it list what a new release removes.
// operator-framework/api's own list stops at 1.26.
var removals = []removal{
	// 1.16
	{apiVersion: "apps/v1beta1", kind: "ControllerRevision", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta1", kind: "Deployment", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta1", kind: "StatefulSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta2", kind: "ControllerRevision", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta2", kind: "DaemonSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta2", kind: "Deployment", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta2", kind: "ReplicaSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "apps/v1beta2", kind: "StatefulSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "extensions/v1beta1", kind: "DaemonSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "extensions/v1beta1", kind: "Deployment", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "extensions/v1beta1", kind: "ReplicaSet", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "apps/v1"},
	{apiVersion: "extensions/v1beta1", kind: "NetworkPolicy", removed: declcfg.MinorVersion{Major: 1, Minor: 16}, use: "networking.k8s.io/v1"},
	{apiVersion: "extensions/v1beta1", kind: "PodSecurityPolicy", removed: declcfg.MinorVersion{Major: 1, Minor: 16}},
	// 1.22
	{apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "admission.k8s.io/v1"},
	{apiVersion: "admissionregistration.k8s.io/v1beta1", kind: "MutatingWebhookConfiguration", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "admissionregistration.k8s.io/v1"},
	{apiVersion: "admissionregistration.k8s.io/v1beta1", kind: "ValidatingWebhookConfiguration", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "admissionregistration.k8s.io/v1"},
	{apiVersion: "apiextensions.k8s.io/v1beta1", kind: "CustomResourceDefinition", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "apiextensions.k8s.io/v1"},
	{apiVersion: "apiregistration.k8s.io/v1beta1", kind: "APIService", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "apiregistration.k8s.io/v1"},
	{apiVersion: "authentication.k8s.io/v1beta1", kind: "TokenReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "authentication.k8s.io/v1"},
	{apiVersion: "authorization.k8s.io/v1beta1", kind: "LocalSubjectAccessReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "authorization.k8s.io/v1"},
	{apiVersion: "authorization.k8s.io/v1beta1", kind: "SelfSubjectAccessReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "authorization.k8s.io/v1"},
	{apiVersion: "authorization.k8s.io/v1beta1", kind: "SelfSubjectRulesReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "authorization.k8s.io/v1"},
	{apiVersion: "authorization.k8s.io/v1beta1", kind: "SubjectAccessReview", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "authorization.k8s.io/v1"},
	{apiVersion: "certificates.k8s.io/v1beta1", kind: "CertificateSigningRequest", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "certificates.k8s.io/v1"},
	{apiVersion: "coordination.k8s.io/v1beta1", kind: "Lease", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "coordination.k8s.io/v1"},
	{apiVersion: "extensions/v1beta1", kind: "Ingress", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "networking.k8s.io/v1"},
	{apiVersion: "networking.k8s.io/v1beta1", kind: "Ingress", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "networking.k8s.io/v1"},
	{apiVersion: "networking.k8s.io/v1beta1", kind: "IngressClass", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "networking.k8s.io/v1"},
	{apiVersion: "rbac.authorization.k8s.io/v1beta1", kind: "ClusterRole", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "rbac.authorization.k8s.io/v1"},
	{apiVersion: "rbac.authorization.k8s.io/v1beta1", kind: "ClusterRoleBinding", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "rbac.authorization.k8s.io/v1"},
	{apiVersion: "rbac.authorization.k8s.io/v1beta1", kind: "Role", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "rbac.authorization.k8s.io/v1"},
	{apiVersion: "rbac.authorization.k8s.io/v1beta1", kind: "RoleBinding", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "rbac.authorization.k8s.io/v1"},
	{apiVersion: "scheduling.k8s.io/v1beta1", kind: "PriorityClass", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "scheduling.k8s.io/v1"},
	{apiVersion: "storage.k8s.io/v1beta1", kind: "CSIDriver", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "storage.k8s.io/v1"},
	{apiVersion: "storage.k8s.io/v1beta1", kind: "CSINode", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "storage.k8s.io/v1"},
	{apiVersion: "storage.k8s.io/v1beta1", kind: "StorageClass", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "storage.k8s.io/v1"},
	{apiVersion: "storage.k8s.io/v1beta1", kind: "VolumeAttachment", removed: declcfg.MinorVersion{Major: 1, Minor: 22}, use: "storage.k8s.io/v1"},
	// 1.24
	{apiVersion: "storage.k8s.io/v1alpha1", kind: "CSIStorageCapacity", removed: declcfg.MinorVersion{Major: 1, Minor: 24}, use: "storage.k8s.io/v1"},
	{apiVersion: "storage.k8s.io/v1alpha1", kind: "VolumeAttachment", removed: declcfg.MinorVersion{Major: 1, Minor: 24}, use: "storage.k8s.io/v1"},
	// 1.25
	{apiVersion: "autoscaling/v2beta1", kind: "HorizontalPodAutoscaler", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "autoscaling/v2"},
	{apiVersion: "batch/v1beta1", kind: "CronJob", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "batch/v1"},
	{apiVersion: "discovery.k8s.io/v1beta1", kind: "EndpointSlice", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "discovery.k8s.io/v1"},
	{apiVersion: "events.k8s.io/v1beta1", kind: "Event", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "events.k8s.io/v1"},
	{apiVersion: "node.k8s.io/v1beta1", kind: "RuntimeClass", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "node.k8s.io/v1"},
	{apiVersion: "policy/v1beta1", kind: "Eviction", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "policy/v1"},
	{apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, use: "policy/v1"},
	{apiVersion: "policy/v1beta1", kind: "PodSecurityPolicy", removed: declcfg.MinorVersion{Major: 1, Minor: 25}, resource: "podsecuritypolicies"},
	// 1.26
	{apiVersion: "autoscaling/v2beta2", kind: "HorizontalPodAutoscaler", removed: declcfg.MinorVersion{Major: 1, Minor: 26}, use: "autoscaling/v2"},
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "FlowSchema", removed: declcfg.MinorVersion{Major: 1, Minor: 26}, use: "flowcontrol.apiserver.k8s.io/v1"},
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "PriorityLevelConfiguration", removed: declcfg.MinorVersion{Major: 1, Minor: 26}, use: "flowcontrol.apiserver.k8s.io/v1"},
	// 1.27
	{apiVersion: "storage.k8s.io/v1beta1", kind: "CSIStorageCapacity", removed: declcfg.MinorVersion{Major: 1, Minor: 27}, use: "storage.k8s.io/v1"},
	// 1.29
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2", kind: "FlowSchema", removed: declcfg.MinorVersion{Major: 1, Minor: 29}, use: "flowcontrol.apiserver.k8s.io/v1"},
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2", kind: "PriorityLevelConfiguration", removed: declcfg.MinorVersion{Major: 1, Minor: 29}, use: "flowcontrol.apiserver.k8s.io/v1"},
	// 1.32
	{apiVersion: "admissionregistration.k8s.io/v1alpha1", kind: "ValidatingAdmissionPolicy", removed: declcfg.MinorVersion{Major: 1, Minor: 32}, use: "admissionregistration.k8s.io/v1"},
	{apiVersion: "admissionregistration.k8s.io/v1alpha1", kind: "ValidatingAdmissionPolicyBinding", removed: declcfg.MinorVersion{Major: 1, Minor: 32}, use: "admissionregistration.k8s.io/v1"},
	{apiVersion: "authentication.k8s.io/v1alpha1", kind: "SelfSubjectReview", removed: declcfg.MinorVersion{Major: 1, Minor: 32}, use: "authentication.k8s.io/v1"},
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3", kind: "FlowSchema", removed: declcfg.MinorVersion{Major: 1, Minor: 32}, use: "flowcontrol.apiserver.k8s.io/v1"},
	{apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3", kind: "PriorityLevelConfiguration", removed: declcfg.MinorVersion{Major: 1, Minor: 32}, use: "flowcontrol.apiserver.k8s.io/v1"},
	// 1.33
	{apiVersion: "authentication.k8s.io/v1beta1", kind: "SelfSubjectReview", removed: declcfg.MinorVersion{Major: 1, Minor: 33}, use: "authentication.k8s.io/v1"},
	// 1.34
	{apiVersion: "admissionregistration.k8s.io/v1beta1", kind: "ValidatingAdmissionPolicy", removed: declcfg.MinorVersion{Major: 1, Minor: 34}, use: "admissionregistration.k8s.io/v1"},
	{apiVersion: "admissionregistration.k8s.io/v1beta1", kind: "ValidatingAdmissionPolicyBinding", removed: declcfg.MinorVersion{Major: 1, Minor: 34}, use: "admissionregistration.k8s.io/v1"},
	// 1.35
	{apiVersion: "apidiscovery.k8s.io/v2beta1", kind: "APIGroupDiscovery", removed: declcfg.MinorVersion{Major: 1, Minor: 35}, use: "apidiscovery.k8s.io/v2"},
	{apiVersion: "storage.k8s.io/v1alpha1", kind: "VolumeAttributesClass", removed: declcfg.MinorVersion{Major: 1, Minor: 35}, use: "storage.k8s.io/v1"},
}

func findRemoval(apiVersion, kind string) *removal {
	for i := range removals {
		if removals[i].apiVersion == apiVersion && removals[i].kind == kind {
			return &removals[i]
		}
	}
	return nil
}

// removedAPIs reports manifests, and API references in the CSV, that use
// API versions Kubernetes removed. An API removed by the target version
// is an error, one removed later a warning, as operator-framework/api
// grades them: the target is k8s-version, raised to the CSV's
// minKubeVersion, which is the oldest cluster the bundle claims to run on.
func (c *Checker) removedAPIs(b *bundle) []finding {
	target, hasTarget := c.set.Kube, c.set.Has(K8sVersion)
	if b.csv != nil && b.csv.Spec.MinKubeVersion != "" {
		if v, err := semver.ParseTolerant(b.csv.Spec.MinKubeVersion); err == nil {
			mk := declcfg.MinorVersion{Major: v.Major, Minor: v.Minor}
			if !hasTarget || target.Less(mk) {
				target, hasTarget = mk, true
			}
		}
	}
	grade := func(r *removal) (declcfg.Severity, string) {
		if hasTarget && !target.Less(r.removed) {
			return declcfg.SeverityError, "removed"
		}
		return declcfg.SeverityWarning, "removes"
	}
	explain := func(r *removal) string {
		guide := fmt.Sprintf("https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v%d-%d", r.removed.Major, r.removed.Minor)
		if r.use == "" {
			return fmt.Sprintf("with no replacement (%s)", guide)
		}
		return fmt.Sprintf("use %s (%s)", r.use, guide)
	}
	var out []finding
	for _, o := range b.objects {
		r := findRemoval(o.apiVersion, o.kind)
		if r == nil {
			continue
		}
		sev, verb := grade(r)
		out = append(out, finding{rule: validate.RuleRemovedAPI, sev: sev, at: o.Pos,
			msg: fmt.Sprintf("%s uses %s, which Kubernetes %s %s; %s", o.label(), o.apiVersion, r.removed, verb, explain(r))})
	}
	if b.csv == nil {
		return out
	}
	// The CSV's CRD descriptions name the kinds their CRs create; a
	// version written as group/version can name a removed API.
	described := map[string]bool{}
	crds := b.csv.Spec.CustomResourceDefinitions
	for _, list := range []struct {
		field string
		descs []v1alpha1.CRDDescription
	}{{"owned", crds.Owned}, {"required", crds.Required}} {
		for i, d := range list.descs {
			for j, res := range d.Resources {
				described[strings.ToLower(res.Kind)+"s"] = true
				r := findRemoval(res.Version, res.Kind)
				if r == nil {
					continue
				}
				sev, verb := grade(r)
				path := []string{"spec", "customresourcedefinitions", list.field, strconv.Itoa(i), "resources", strconv.Itoa(j)}
				out = append(out, finding{rule: validate.RuleRemovedAPI, sev: sev, at: b.fieldPos(b.csvObj, path...),
					msg: fmt.Sprintf("spec.customresourcedefinitions.%s[%d].resources[%d] names %s %s, which Kubernetes %s %s; %s", list.field, i, j, res.Kind, res.Version, r.removed, verb, explain(r))})
			}
		}
	}
	// Permissions to a resource that is gone in every version grant
	// nothing: the operator probably still relies on it. (Resources the
	// CRD descriptions name are the operator's own, as in
	// operator-framework/api.)
	strategy := b.csv.Spec.InstallStrategy.StrategySpec
	for _, perms := range []struct {
		field string
		list  []v1alpha1.StrategyDeploymentPermissions
	}{{"clusterPermissions", strategy.ClusterPermissions}, {"permissions", strategy.Permissions}} {
		for i, p := range perms.list {
			for j, rule := range p.Rules {
				for _, r := range removals {
					if r.resource == "" || described[r.resource] || !grants(rule, apiGroup(r.apiVersion), r.resource) {
						continue
					}
					path := []string{"spec", "install", "spec", perms.field, strconv.Itoa(i), "rules", strconv.Itoa(j)}
					out = append(out, finding{rule: validate.RuleRemovedAPI, sev: declcfg.SeverityWarning, at: b.fieldPos(b.csvObj, path...),
						msg: fmt.Sprintf("spec.install.spec.%s[%d].rules[%d] grants access to %s (%s), which Kubernetes %s removed %s", perms.field, i, j, r.resource, apiGroup(r.apiVersion), r.removed, explain(&r))})
				}
			}
		}
	}
	return out
}

// grants reports whether a policy rule names a resource of a group
// explicitly, as operator-framework/api matches them.
func grants(rule rbacv1.PolicyRule, group, resource string) bool {
	return slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, resource)
}
