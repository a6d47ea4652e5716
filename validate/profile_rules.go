package validate

import (
	"slices"

	"github.com/fbc-project/fbc/declcfg"
)

// Rule ids of the bundle-content checks: bundle directories and images read
// as bundles, and the profiles (--profile) that validate/profile runs.
const (
	// Reading bundle directories and images.
	RuleBundleRead        = "bundle-read"
	RuleBundleIgnoredFile = "bundle-ignored-file"

	// operatorframework: operator-framework/api's default validators.
	RuleCSVName           = "csv-name"
	RuleCSVFields         = "csv-fields"
	RuleCSVExamples       = "csv-examples"
	RuleCSVInstallModes   = "csv-install-modes"
	RuleCSVMinKubeVersion = "csv-min-kube-version"
	RuleCSVAnnotations    = "csv-annotations"
	RuleCRDInvalid        = "crd-invalid"
	RuleBundleCRDs        = "bundle-crds"
	RuleBundleSA          = "bundle-service-account"
	RuleBundleSize        = "bundle-size"
	RuleBundleName        = "bundle-name"

	// operatorhub.
	RuleHubMetadata     = "hub-metadata"
	RuleHubIcon         = "hub-icon"
	RuleHubIconData     = "hub-icon-data"
	RuleHubCapabilities = "hub-capabilities"
	RuleHubCategories   = "hub-categories"

	// good-practices.
	RuleGPResourceRequests = "gp-resource-requests"
	RuleGPCSVName          = "gp-csv-name"
	RuleGPChannelNaming    = "gp-channel-naming"
	RuleGPCRDRBAC          = "gp-crd-rbac"
	RuleGPCRDDescription   = "gp-crd-description"

	// k8s-version (and operatorhub).
	RuleRemovedAPI = "removed-api"

	// olmv1: what operator-controller refuses.
	RuleOLMv1InstallMode = "olmv1-install-mode"
	RuleOLMv1APIService  = "olmv1-api-service"
	RuleOLMv1Webhook     = "olmv1-webhook"
	RuleOLMv1Dependency  = "olmv1-dependency"
	RuleOLMv1Kind        = "olmv1-kind"
	RuleOLMv1Bundle      = "olmv1-bundle"

	// CRD upgrade safety along upgrade edges (operatorframework, olmv1).
	RuleCRDServedVersion  = "crd-served-version"
	RuleCRDStorageVersion = "crd-storage-version"
	RuleCRDScope          = "crd-scope"
	RuleCRDStoredVersion  = "crd-stored-version"
	RuleCRDField          = "crd-field"
)

// profileCatalogue lists the bundle-content rules, documented after the
// catalog rules. Where a profile runs operator-framework/api, the severity
// of each diagnostic is the one the library gives; the rule's severity is
// the usual one.
var profileCatalogue = []Rule{
	{RuleBundleRead, declcfg.SeverityError,
		"A bundle directory or bundle image cannot be read as a bundle (no manifests/ or metadata/, a manifest that is not a Kubernetes object, no ClusterServiceVersion, ...).",
		"Fix the file the message names; opm render and OLM refuse the bundle the same way."},
	{RuleBundleIgnoredFile, declcfg.SeverityWarning,
		"A file of a bundle is ignored by OLM: a directory inside manifests/, a manifest file that holds no object, a metadata file that is not YAML.",
		"Move the file out of the bundle, or put the object where OLM reads it (one object per file, directly in manifests/)."},

	{RuleCSVName, declcfg.SeverityError,
		"The ClusterServiceVersion's metadata.name or spec.replaces is not a valid object name and label value (profile operatorframework).",
		"Use at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, e.g. my-operator.v1.2.3."},
	{RuleCSVFields, declcfg.SeverityError,
		"A field the ClusterServiceVersion requires is missing, apiVersion or kind is missing, or operator-framework/api reports another CSV problem (profile operatorframework).",
		"Fill in the field the message names (the name is the Go field path, e.g. Spec.InstallStrategy.StrategyName)."},
	{RuleCSVExamples, declcfg.SeverityWarning,
		"The alm-examples annotation is missing, is not JSON, names an API the bundle does not own, or an owned API has no example (profile operatorframework; errors when the examples are not JSON or name APIs the bundle does not provide).",
		"Add one example custom resource per owned CRD version to metadata.annotations.alm-examples, as a JSON list."},
	{RuleCSVInstallModes, declcfg.SeverityError,
		"spec.installModes is missing, lists a mode twice, supports none, or conversion webhooks are used without AllNamespaces alone (profile operatorframework).",
		"List the four install modes once each and support at least one; a bundle with conversion webhooks supports AllNamespaces only."},
	{RuleCSVMinKubeVersion, declcfg.SeverityWarning,
		"spec.minKubeVersion is missing (a warning) or not semver (an error) (profiles operatorframework, operatorhub).",
		"Set spec.minKubeVersion to the oldest Kubernetes version the operator supports, e.g. 1.27.0."},
	{RuleCSVAnnotations, declcfg.SeverityError,
		"A well-known CSV annotation is spelt with the wrong case (an error), or the olm.properties annotation is used (a warning) (profile operatorframework).",
		"Spell annotation keys exactly (olm.skipRange); put properties in metadata/properties.yaml."},
	{RuleCRDInvalid, declcfg.SeverityError,
		"A CustomResourceDefinition would be rejected by the Kubernetes API server (names, group, versions, conversion, preserveUnknownFields; profile operatorframework).",
		"Fix the CRD field the message names; kubectl apply --dry-run=server gives the same verdict."},
	{RuleBundleCRDs, declcfg.SeverityError,
		"The CRDs of the bundle and those the CSV owns do not match: an owned CRD is missing, a CRD is not owned, or a CRD version appears twice (profile operatorframework).",
		"List every CRD of manifests/ in spec.customresourcedefinitions.owned, and ship every owned CRD."},
	{RuleBundleSA, declcfg.SeverityError,
		"The bundle ships a ServiceAccount with the name a CSV deployment already uses; OLM creates that account itself (profile operatorframework).",
		"Remove the ServiceAccount manifest, or rename it or the deployment's serviceAccountName."},
	{RuleBundleSize, declcfg.SeverityError,
		"The bundle is larger than OLM can stage: its gzip-compressed, base64-encoded manifests exceed 1 MiB (an error) or 85% of it (a warning) (profile operatorframework).",
		"Shrink the manifests: trim CRD descriptions, move large ConfigMaps out of the bundle."},
	{RuleBundleName, declcfg.SeverityError,
		"A bundle with spec.release is not named <package>-v<version>-<release> (profile operatorframework).",
		"Rename the CSV (metadata.name) after its package, version and release."},

	{RuleHubMetadata, declcfg.SeverityError,
		"OperatorHub metadata is incomplete: provider name, maintainers (name and valid email), links (name and valid URL) or spec.version (profile operatorhub).",
		"Fill in spec.provider.name, spec.maintainers, spec.links and spec.version."},
	{RuleHubIcon, declcfg.SeverityError,
		"The CSV has no icon (a warning), more than one, an icon without data or media type, or a media type other than PNG, JPEG, GIF or SVG (profile operatorhub).",
		"Give spec.icon exactly one entry: base64data of a PNG, JPEG, GIF or SVG image and its mediatype."},
	{RuleHubIconData, declcfg.SeverityWarning,
		"An icon's base64data is not base64, or does not decode to an image of the media type it names, so consoles show a broken image (profile operatorhub; fbc's check: operator-framework/api does not look at the data and OLM installs the bundle, so it is a warning).",
		"Encode the image file itself (base64 -w0 icon.png) and name its type: image/png, image/jpeg, image/gif or image/svg+xml."},
	{RuleHubCapabilities, declcfg.SeverityError,
		"The capabilities annotation is not one of the five capability levels (profile operatorhub).",
		"Use Basic Install, Seamless Upgrades, Full Lifecycle, Deep Insights or Auto Pilot."},
	{RuleHubCategories, declcfg.SeverityError,
		"The categories annotation names a category OperatorHub does not know (profile operatorhub).",
		"Use categories from OperatorHub's list (AI/Machine Learning, Database, Monitoring, ...), comma-separated."},

	{RuleGPResourceRequests, declcfg.SeverityWarning,
		"A container of a CSV deployment requests no CPU or memory, or the CSV has no deployment at all (an error) (profile good-practices).",
		"Set resources.requests.cpu and resources.requests.memory on every container."},
	{RuleGPCSVName, declcfg.SeverityWarning,
		"The CSV name does not follow <operator-name>.v<semver> (profile good-practices).",
		"Name the CSV after the operator and its version, e.g. my-operator.v1.2.3."},
	{RuleGPChannelNaming, declcfg.SeverityWarning,
		"A channel name does not follow the recommended naming (candidate, fast or stable, optionally with a version suffix) (profile good-practices).",
		"Name channels candidate, fast or stable (stable-v1, fast-1.2, ...)."},
	{RuleGPCRDRBAC, declcfg.SeverityWarning,
		"The CSV grants itself permission to create or patch CustomResourceDefinitions (profile good-practices).",
		"Let OLM manage CRDs: ship them in the bundle and depend on other operators' APIs instead of creating CRDs at run time."},
	{RuleGPCRDDescription, declcfg.SeverityWarning,
		"An owned or required CRD of the CSV has no description (profile good-practices).",
		"Describe each CRD in spec.customresourcedefinitions; consoles show it."},

	{RuleRemovedAPI, declcfg.SeverityError,
		"A manifest uses a Kubernetes API version that is removed by the target Kubernetes version (an error) or by a later release (a warning) (profiles k8s-version=X.Y, operatorhub).",
		"Move the object to the API version the message names; the list covers Kubernetes 1.16 to 1.36."},

	{RuleOLMv1InstallMode, declcfg.SeverityError,
		"The bundle does not support the AllNamespaces install mode, which operator-controller requires unless its SingleOwnNamespaceInstallSupport gate is on, or supports none of AllNamespaces, SingleNamespace and OwnNamespace (profile olmv1).",
		"Support AllNamespaces in spec.installModes (operator-controller installs cluster-wide by default)."},
	{RuleOLMv1APIService, declcfg.SeverityError,
		"The CSV owns APIServices (spec.apiservicedefinitions.owned), which operator-controller does not support (profile olmv1).",
		"Serve the API with a CRD instead, or keep the operator on OLM v0."},
	{RuleOLMv1Webhook, declcfg.SeverityError,
		"The CSV defines webhooks in a way operator-controller refuses (duplicate or invalid names, a missing deployment, forbidden rules, conversion webhooks for CRDs it does not own, or no certificate provider gate on); with a provider (v1.11's default) a warning says the cluster must run it (profile olmv1).",
		"Fix the webhook definition the message names; check that the clusters run the certificate provider (cert-manager or OpenShift service CA)."},
	{RuleOLMv1Dependency, declcfg.SeverityError,
		"The bundle declares dependencies (olm.package.required, olm.gvk.required, olm.constraint), which operator-controller does not resolve (profile olmv1).",
		"Install the dependencies separately and drop the dependency properties from bundles meant for OLM v1."},
	{RuleOLMv1Kind, declcfg.SeverityError,
		"The bundle ships an object of a kind registry+v1 bundles may not hold, which operator-controller refuses (profile olmv1).",
		"Ship only ClusterServiceVersion, CRDs, RBAC, Services, ServiceAccounts, ConfigMaps, Secrets, monitoring, console, PodDisruptionBudget, PriorityClass, VerticalPodAutoscaler and NetworkPolicy objects."},
	{RuleOLMv1Bundle, declcfg.SeverityError,
		"The bundle breaks another rule operator-controller applies when it unpacks a bundle: duplicate or invalid deployment names, duplicate CRDs, an owned CRD missing from the bundle, no package name (profile olmv1).",
		"Fix what the message names."},
	{RuleCRDServedVersion, declcfg.SeverityWarning,
		"Along an upgrade edge of a channel (replaces, skips, skipRange), the newer bundle's CRD stops serving a version the older bundle's serves (profiles operatorframework, olmv1; an error under olmv1, whose CRD upgrade check refuses it).",
		"Keep serving the version, or first ship a bundle that marks it served: false, and drop it in a later one."},
	{RuleCRDStorageVersion, declcfg.SeverityWarning,
		"Along an upgrade edge, the older bundle's storage version of a CRD is listed but not served by the newer bundle (profiles operatorframework, olmv1; an error under olmv1).",
		"Keep the old storage version served until objects are migrated to the new one."},
	{RuleCRDScope, declcfg.SeverityError,
		"Along an upgrade edge, a CRD changes scope (Namespaced, Cluster); the API server refuses the update (profiles operatorframework, olmv1).",
		"Keep the CRD's scope; a new scope needs a new CRD (another group or plural)."},
	{RuleCRDStoredVersion, declcfg.SeverityError,
		"A bundle's CRD no longer lists the storage version of a bundle from which upgrades in the channel reach it (along one edge or a longer path), which is in status.storedVersions on clusters that ran that bundle: the API server refuses the update (profiles operatorframework, olmv1).",
		"Keep the version in spec.versions (served: false is fine) as long as any bundle that can upgrade to this one stored objects in it, or until a storage migration has removed it from status.storedVersions on every cluster."},
	{RuleCRDField, declcfg.SeverityError,
		"Along an upgrade edge, a CRD's schema changes in a way operator-controller's upgrade check (sigs.k8s.io/crdify) refuses: a new required field, a removed field, a type change, a narrower enum, a new or changed default, tighter limits, or another change it does not judge (profile olmv1).",
		"Make the change compatible (optional fields, wider enums and limits), or serve it under a new version."},
}

// The profile rules follow the catalog rules in Rules() and docs.
func init() { catalogue = append(catalogue, profileCatalogue...) }

// IsProfileRule reports whether id is a bundle-content rule: reading
// bundles, and the profiles' checks.
func IsProfileRule(id string) bool {
	return slices.ContainsFunc(profileCatalogue, func(r Rule) bool { return r.ID == id })
}
