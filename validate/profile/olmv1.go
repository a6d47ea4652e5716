package profile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	v1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/validate"
)

// supportedKinds are the kinds a registry+v1 bundle may ship besides its
// CSV and CRDs (operator-registry's list, which operator-controller
// enforces).
var supportedKinds = []string{
	"ClusterRole", "ClusterRoleBinding", "ConfigMap", "ConsoleCLIDownload", "ConsoleLink", "ConsolePlugin",
	"ConsoleQuickStart", "ConsoleYAMLSample", "NetworkPolicy", "PodDisruptionBudget", "PodMonitor", "PriorityClass",
	"PrometheusRule", "Role", "RoleBinding", "Secret", "Service", "ServiceAccount", "ServiceMonitor",
	"VerticalPodAutoscaler",
}

// dependencyProperties are the properties operator-controller refuses to
// resolve.
var dependencyProperties = []string{declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired, declcfg.PropertyConstraint}

// olmv1Findings reports what operator-controller v1.11 refuses when it
// resolves, unpacks and installs a registry+v1 bundle (its resolver, its
// bundle validators and its manifest provider), with its feature gates as
// gates sets them (v1.11's defaults: webhooks with a certificate provider,
// no single or own namespace installs).
func olmv1Findings(b *bundle, gates olmv1gate.Gates) []finding {
	var out []finding
	csv := b.csv
	at := func(path ...string) declcfg.Pos { return b.fieldPos(b.csvObj, path...) }
	add := func(rule string, pos declcfg.Pos, format string, args ...any) {
		out = append(out, finding{rule: rule, sev: declcfg.SeverityError, at: pos, msg: fmt.Sprintf(format, args...)})
	}
	warn := func(rule string, pos declcfg.Pos, format string, args ...any) {
		out = append(out, finding{rule: rule, sev: declcfg.SeverityWarning, at: pos, msg: fmt.Sprintf(format, args...)})
	}

	// Resolution.
	for _, p := range b.in.Bundle.Properties {
		if slices.Contains(dependencyProperties, p.Type) {
			add(validate.RuleOLMv1Dependency, b.dependencyPos(), "the bundle declares a dependency (%s %s); operator-controller does not resolve dependencies and refuses the bundle", p.Type, strings.TrimSpace(string(p.Value)))
		}
	}

	// Install modes: operator-controller installs cluster-wide unless its
	// SingleOwnNamespaceInstallSupport gate is on and the ClusterExtension
	// names the namespace to watch.
	supported := map[v1alpha1.InstallModeType]bool{}
	for _, m := range csv.Spec.InstallModes {
		if m.Supported {
			supported[m.Type] = true
		}
	}
	var modes []string
	for _, t := range []v1alpha1.InstallModeType{v1alpha1.InstallModeTypeOwnNamespace, v1alpha1.InstallModeTypeSingleNamespace, v1alpha1.InstallModeTypeMultiNamespace} {
		if supported[t] {
			modes = append(modes, string(t))
		}
	}
	singleOwn := gates.Enabled(olmv1gate.SingleOwnNamespaceInstallSupport)
	switch {
	case supported[v1alpha1.InstallModeTypeAllNamespaces]:
	case !supported[v1alpha1.InstallModeTypeOwnNamespace] && !supported[v1alpha1.InstallModeTypeSingleNamespace]:
		what := "supports no install mode"
		if len(modes) > 0 {
			what = "supports only " + strings.Join(modes, ", ")
		}
		add(validate.RuleOLMv1InstallMode, at("spec", "installModes"), "the CSV %s: operator-controller installs bundles that support AllNamespaces, SingleNamespace or OwnNamespace and refuses it", what)
	case !singleOwn:
		add(validate.RuleOLMv1InstallMode, at("spec", "installModes"), "the CSV supports only %s, not AllNamespaces: operator-controller installs bundles for all namespaces and refuses it (its SingleOwnNamespaceInstallSupport feature gate, alpha and off by default, installs OwnNamespace and SingleNamespace bundles)", strings.Join(modes, ", "))
	default:
		warn(validate.RuleOLMv1InstallMode, at("spec", "installModes"), "the CSV supports only %s, not AllNamespaces: with SingleOwnNamespaceInstallSupport on, operator-controller installs it only for the namespace each ClusterExtension names in spec.config.inline.watchNamespace", strings.Join(modes, ", "))
	}

	if n := len(csv.Spec.APIServiceDefinitions.Owned); n > 0 {
		var names []string
		for _, d := range csv.Spec.APIServiceDefinitions.Owned {
			names = append(names, d.Version+"."+d.Group)
		}
		add(validate.RuleOLMv1APIService, at("spec", "apiservicedefinitions", "owned"), "the CSV owns %d APIService(s) (%s); operator-controller does not support apiServiceDefinitions", n, strings.Join(names, ", "))
	}

	out = append(out, webhookFindings(b, at, gates)...)

	// The registry+v1 rules operator-controller applies when unpacking.
	if b.pkg == "" {
		add(validate.RuleOLMv1Bundle, b.in.Pos, "the bundle names no package")
	}
	deployments := map[string]bool{}
	for i, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		pos := at("spec", "install", "spec", "deployments", strconv.Itoa(i), "name")
		if deployments[d.Name] {
			add(validate.RuleOLMv1Bundle, pos, "the CSV has two deployments named %q", d.Name)
		}
		deployments[d.Name] = true
		if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
			add(validate.RuleOLMv1Bundle, pos, "deployment name %q is not a valid object name: %s", d.Name, strings.Join(errs, ", "))
		}
	}
	crdNames := map[string]bool{}
	for _, c := range b.crds {
		if crdNames[c.obj.name] {
			add(validate.RuleOLMv1Bundle, c.obj.Pos, "the bundle holds CustomResourceDefinition %q twice", c.obj.name)
		}
		crdNames[c.obj.name] = true
	}
	if !b.partial {
		for i, o := range csv.Spec.CustomResourceDefinitions.Owned {
			if !crdNames[o.Name] {
				add(validate.RuleOLMv1Bundle, at("spec", "customresourcedefinitions", "owned", strconv.Itoa(i)), "the CSV owns CRD %q, which the bundle does not hold", o.Name)
			}
		}
		for _, o := range b.objects {
			if o.kind == kindCSV || o.kind == kindCRD || slices.Contains(supportedKinds, o.kind) {
				continue
			}
			add(validate.RuleOLMv1Kind, o.Pos, "%s: operator-controller refuses bundles with objects of kind %s; registry+v1 bundles may hold %s besides the CSV and CRDs", o.label(), o.kind, strings.Join(supportedKinds, ", "))
		}
	}
	return out
}

// forbiddenWebhookGroups and forbiddenAdmissionResources are the webhook
// rules operator-controller refuses (as OLM v0 does): webhooks on every
// group, on OLM's own, or on webhook configurations.
var (
	forbiddenWebhookGroups      = []string{"*", "olm.operatorframework.io"}
	forbiddenAdmissionResources = []string{"*", "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration", "validatingwebhookconfigurations"}
)

func webhookFindings(b *bundle, at func(path ...string) declcfg.Pos, gates olmv1gate.Gates) []finding {
	csv := b.csv
	var out []finding
	add := func(pos declcfg.Pos, format string, args ...any) {
		out = append(out, finding{rule: validate.RuleOLMv1Webhook, sev: declcfg.SeverityError, at: pos, msg: fmt.Sprintf(format, args...)})
	}
	whs := csv.Spec.WebhookDefinitions
	if len(whs) == 0 {
		return nil
	}
	if provider := gates.CertificateProvider(); provider == "" {
		add(at("spec", "webhookdefinitions"), "the CSV defines %d webhook(s); operator-controller refuses bundles with webhooks when neither certificate provider gate (WebhookProviderCertManager, WebhookProviderOpenshiftServiceCA) is on", len(whs))
	} else {
		out = append(out, finding{rule: validate.RuleOLMv1Webhook, sev: declcfg.SeverityWarning, at: at("spec", "webhookdefinitions"),
			msg: fmt.Sprintf("the CSV defines %d webhook(s): operator-controller installs them with a certificate provider (%s, per its feature gates), which the cluster must run", len(whs), provider)})
	}

	deployments := map[string]bool{}
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		deployments[d.Name] = true
	}
	owned := map[string]bool{}
	for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
		owned[o.Name] = true
	}
	var onlyAll = len(csv.Spec.InstallModes) > 0
	for _, m := range csv.Spec.InstallModes {
		if m.Supported != (m.Type == v1alpha1.InstallModeTypeAllNamespaces) {
			onlyAll = false
		}
	}
	names := map[v1alpha1.WebhookAdmissionType]map[string]bool{}
	conversionFor := map[string]string{}
	for i, wh := range whs {
		pos := at("spec", "webhookdefinitions", strconv.Itoa(i))
		if names[wh.Type] == nil {
			names[wh.Type] = map[string]bool{}
		}
		if names[wh.Type][wh.GenerateName] {
			add(pos, "two %s webhooks are named %q", wh.Type, wh.GenerateName)
		}
		names[wh.Type][wh.GenerateName] = true
		if errs := validation.IsDNS1123Subdomain(wh.GenerateName); len(errs) > 0 {
			add(pos, "webhook name %q is not a valid object name: %s", wh.GenerateName, strings.Join(errs, ", "))
		}
		if !deployments[wh.DeploymentName] {
			add(pos, "webhook %q names deployment %q, which the CSV does not have", wh.GenerateName, wh.DeploymentName)
		}
		if wh.Type == v1alpha1.ConversionWebhook {
			if !onlyAll {
				add(pos, "conversion webhook %q needs a bundle that supports the AllNamespaces install mode only", wh.GenerateName)
			}
			for _, crd := range wh.ConversionCRDs {
				if !owned[crd] {
					add(pos, "conversion webhook %q converts CRD %q, which the CSV does not own", wh.GenerateName, crd)
				}
				if other, ok := conversionFor[crd]; ok && other != wh.GenerateName {
					add(pos, "conversion webhooks %q and %q both convert CRD %q", other, wh.GenerateName, crd)
				}
				conversionFor[crd] = wh.GenerateName
			}
			continue
		}
		for _, rule := range wh.Rules {
			for _, g := range rule.APIGroups {
				if slices.Contains(forbiddenWebhookGroups, g) {
					add(pos, "webhook %q has a rule on API group %q, which operator-controller forbids", wh.GenerateName, g)
				}
				if g != "admissionregistration.k8s.io" {
					continue
				}
				for _, r := range rule.Resources {
					if slices.Contains(forbiddenAdmissionResources, strings.ToLower(r)) {
						add(pos, "webhook %q has a rule on %s of admissionregistration.k8s.io, which operator-controller forbids", wh.GenerateName, r)
					}
				}
			}
		}
	}
	return out
}

// dependencyPos is where a bundle's dependencies are declared: its
// metadata/dependencies.yaml when it has one, the bundle otherwise.
func (b *bundle) dependencyPos() declcfg.Pos {
	for _, f := range b.in.Files {
		if !strings.Contains(filepath.ToSlash(f.Name), "metadata/") {
			continue
		}
		if root := b.fileRoot(f.Name); root != nil {
			if _, k := child(root, "dependencies"); k != nil {
				return declcfg.Pos{File: f.Name, Line: k.Line, Col: k.Column}
			}
		}
	}
	return b.in.Pos
}
