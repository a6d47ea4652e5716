package validate

import "github.com/fbc-project/fbc/declcfg"

// Rule ids of the pipelines' rules: what Konflux (its FBC build pipeline
// and Conforma's release policy), the community and certified operator
// pipelines (operator-pipelines), the OpenShift lifecycle schema and
// opm's coming checks refuse, applied before a pull request is opened.
// docs/validate.md says where each comes from.
const (
	// Any pipeline, with a target OpenShift release.
	RuleSkipRangeUpper = "skip-range-upper"

	// The shape of a pull request (fbc validate --base), as the community
	// and certified pipelines' parse-repo-changes task checks it first.
	RulePRExtraFiles     = "pr-extra-files"
	RulePROperators      = "pr-operators"
	RulePRModifiedBundle = "pr-modified-bundle"
	RulePRDeletedBundle  = "pr-deleted-bundle"
	RulePRAddedBundles   = "pr-added-bundles"
	RulePRBundleCatalog  = "pr-bundle-and-catalog"

	// The lifecycle schema (io.openshift.operators.lifecycles.v1alpha1).
	RuleLifecycleVersion = "lifecycle-version"
	RuleLifecycleDate    = "lifecycle-date"
	RuleLifecycleEmpty   = "lifecycle-empty"
	RuleLifecyclePhases  = "lifecycle-phases"
	RuleLifecyclePackage = "lifecycle-package"

	// Konflux (Options.Konflux).
	RuleKonfluxPackageDirs     = "konflux-package-dirs"
	RuleKonfluxEmptyPackageDir = "konflux-empty-package-dir"
	RuleKonfluxNoPackage       = "konflux-no-package"
	RuleKonfluxMetadataFormat  = "konflux-metadata-format"
	RuleKonfluxDigestPin       = "konflux-digest-pin"
	RuleKonfluxTrustedRegistry = "konflux-trusted-registry"
	RuleKonfluxImageTag        = "konflux-image-tag"
	RuleKonfluxEmptyImage      = "konflux-empty-image"
	RuleKonfluxRelatedDigest   = "konflux-related-digest"
	RuleKonfluxLifecycleFile   = "konflux-lifecycle-file"
)

// pipelineCatalogue lists the pipelines' rules, documented after the
// catalog rules.
var pipelineCatalogue = []Rule{
	{RuleSkipRangeUpper, declcfg.SeverityWarning,
		"With a target OpenShift release, an entry's skipRange reaches above its own bundle's version: the bundle offers itself as an upgrade from versions newer than it. A warning: the rule is operator-registry pull request #2090, which is not merged, and no released opm or pipeline applies it yet.",
		"End the range at the bundle's version, e.g. '>=1.0.0 <1.2.3' for bundle 1.2.3; a range that reaches higher lets OLM 'upgrade' newer installs down to this bundle."},

	{RulePRExtraFiles, declcfg.SeverityError,
		"With --base, the change touches files outside every operator folder (operators/<name>/, which holds a bundle or ci.yaml) and every package folder of a catalog (catalogs/<catalog>/<name>/ with its catalog file).",
		"Leave the repository's own files (README, .github, config.yaml) to the repository's maintainers: take them out of the pull request."},
	{RulePROperators, declcfg.SeverityError,
		"With --base, the change touches bundles and the folders of more than one operator.",
		"Open one pull request per operator; a change of several operators' ci.yaml or templates alone, with no bundle, may go together."},
	{RulePRModifiedBundle, declcfg.SeverityError,
		"With --base, the change edits a bundle the base has already: a bundle is released once and never changes.",
		"Release the change as a new bundle version in its own folder, and leave the released folder as it is."},
	{RulePRDeletedBundle, declcfg.SeverityError,
		"With --base, the change deletes a bundle of an operator that is not on FBC (ci.yaml's fbc.enabled), or one a catalog of the working tree still lists.",
		"Remove the bundle from every catalog (its templates, then fbc catalogs) in one pull request and delete its folder in another; operators not on FBC cannot delete bundles."},
	{RulePRAddedBundles, declcfg.SeverityError,
		"With --base, the change adds more than one bundle, or adds and deletes bundles together.",
		"Open one pull request per new bundle, and delete bundles in a pull request of their own."},
	{RulePRBundleCatalog, declcfg.SeverityError,
		"With --base, the change adds or edits a bundle and changes catalogs at the same time.",
		"Add the bundle in one pull request; the release bot (or a second pull request) updates the templates' catalogs."},

	{RuleLifecycleVersion, declcfg.SeverityError,
		"An io.openshift.operators.lifecycles.v1alpha1 blob names a version, or a platform version, that is not MAJOR.MINOR (plcc2fbc and fbc-update-planner refuse it).",
		"Write versions as MAJOR.MINOR without leading zeros, such as \"1.5\" or \"5.0\", quoted in YAML."},
	{RuleLifecycleDate, declcfg.SeverityError,
		"A lifecycle phase's startDate or endDate is not a YYYY-MM-DD calendar date; an empty string is not one either (fbc-update-planner's Date, release-engineering/fbc-update-planner pkg/fbc/types.go, refuses it as it refuses any other text).",
		"Write dates as YYYY-MM-DD with two-digit months and days, such as \"2026-01-15\"; leave out a date the phase does not have (or write null) instead of an empty string."},
	{RuleLifecycleEmpty, declcfg.SeverityError,
		"A lifecycle blob has no versions, or a version has no phases.",
		"List at least one version, each with at least one phase that has both a startDate and an endDate; plcc2fbc drops phases without both dates."},
	{RuleLifecyclePhases, declcfg.SeverityError,
		"A lifecycle phase starts after it ends, or a phase does not start the day after the previous one ends (a gap or an overlap).",
		"Order each version's phases by date and make each start the day after the previous one ends, as the lifecycle data (PLCC) has them."},
	{RuleLifecyclePackage, declcfg.SeverityError,
		"A lifecycle blob names a package the catalog does not have.",
		"The package must match the operator's package in the catalog: fix the name, or add the blob to the catalog of that package."},

	{RuleCISchema, declcfg.SeverityError,
		"An operator's ci.yaml does not follow operator-pipelines' schema (ci-schema.json): a value of the wrong type, an unknown key in fbc, a template type or updateGraph not in its list, an empty list.",
		"Fix the key the message names; fbc takes enabled, version_promotion_strategy and catalog_mapping (template_name, type olm.template.basic or olm.semver, catalog_names); updateGraph is replaces-mode or semver-mode."},
	{RuleCICatalogMapping, declcfg.SeverityError,
		"ci.yaml's fbc.catalog_mapping maps one catalog to more than one template.",
		"Render each catalog from one template: remove the catalog from all but one mapping."},
	{RuleRCSchema, declcfg.SeverityError,
		"A bundle's release-config.yaml does not follow operator-pipelines' schema (release-config-schema.json).",
		"catalog_templates lists at least one template, each with template_name and a non-empty list of channels, optionally defaultChannel, replaces, skips and skipRange; no other top-level key than merge."},
	{RuleRCFBC, declcfg.SeverityError,
		"A bundle has release-config.yaml while the operator's ci.yaml does not set fbc.enabled: true.",
		"Enable FBC in ci.yaml (fbc.enabled: true with a catalog_mapping), or remove release-config.yaml."},
	{RuleRCTemplate, declcfg.SeverityError,
		"release-config.yaml names a catalog template that ci.yaml's fbc.catalog_mapping does not list.",
		"Name a template of the catalog_mapping (as written there, file extension included), or add the template to it."},
	{RuleRCSemverChannels, declcfg.SeverityError,
		"release-config.yaml puts a bundle of an olm.semver template in channels other than Fast, Candidate and Stable.",
		"An olm.semver template has only the channels Fast, Candidate and Stable (spelt so); use a basic template for other channel names."},
	{RuleRCDefaultChannel, declcfg.SeverityError,
		"release-config.yaml's defaultChannel is not one of the item's channels; the release step fails on it after the pull request is merged.",
		"Name one of the item's channels as defaultChannel, or add it to channels."},
	{RuleYAMLLint, declcfg.SeverityError,
		"A YAML file of a bundle folder fails the pipelines' YAML linter (yamllint's error-level rules: trailing spaces, blank lines, a new line at the end, indentation, spaces around colons, commas, hyphens, braces and brackets, duplicate keys, undeclared aliases, syntax). Bundle folders with release-config.yaml in an operator folder, and bundle directories given with --target-ocp, are linted.",
		"Fix the line the message names; the message is yamllint's, with its rule in parentheses. '# yamllint disable-line rule:ID' comments are honoured as yamllint honours them."},
	{RuleOperatorGraphLoop, declcfg.SeverityError,
		"An operator not on FBC has a loop in the update graph of its bundle folders (spec.replaces, spec.skips, olm.skipRange; a skipRange that holds the bundle's own version is a loop of one), or a replaces the pipeline cannot read.",
		"Make each bundle upgrade only older ones: end an olm.skipRange below the bundle's own version, and name CSVs as <operator>.v<version> in replaces and skips."},
	{RuleOperatorDangling, declcfg.SeverityError,
		"An operator not on FBC has a bundle that is not its channel's newest and that no other bundle upgrades from.",
		"Make a newer bundle of the channel replace or skip it, or cover its version with a newer bundle's olm.skipRange."},
	{RuleAllowedRegistry, declcfg.SeverityError,
		"With a target release, a bundle image of an operator repository's catalog is not under a registry its config.yaml allows (allowed_bundle_registries).",
		"Publish the bundle to one of the allowed registries and render the catalog from there."},
	{RuleCatalogFile, declcfg.SeverityError,
		"With a target release, a package folder of an operator repository's catalog has no catalog.yaml, catalog.yml or catalog.json, or more than one, or a file sits outside a package folder.",
		"Keep one file per package, catalogs/<catalog>/<package>/catalog.yaml, as fbc catalogs and the pipelines' make catalogs write it."},
	{RuleCatalogYAML, declcfg.SeverityError,
		"With a target release, an operator repository's catalog file is a stream of JSON objects, which the pipelines' YAML reader refuses.",
		"Write the catalog as YAML (-o yaml), or as one JSON object per --- separated document."},

	{RuleKonfluxPackageDirs, declcfg.SeverityError,
		"With --profile konflux, the catalog directory has no package subdirectory: Konflux's validate-fbc wants one folder per package.",
		"Move the catalog files into a folder named after their package: configs/<package>/catalog.yaml."},
	{RuleKonfluxEmptyPackageDir, declcfg.SeverityError,
		"With --profile konflux, a package folder of the catalog directory is empty.",
		"Remove the folder, or put the package's catalog in it; a build step or .dockerignore may have emptied it."},
	{RuleKonfluxNoPackage, declcfg.SeverityError,
		"With --profile konflux, the fragment has no olm.package blob (only custom or lifecycle blobs, for example).",
		"Add the package's olm.package, olm.channel and olm.bundle blobs; Konflux refuses a fragment without packages."},
	{RuleKonfluxMetadataFormat, declcfg.SeverityError,
		"With --profile konflux and a target release, a bundle does not carry the metadata that release needs: olm.csv.metadata from 4.17 on (and no olm.bundle.object), olm.bundle.object before 4.17 (and no olm.csv.metadata).",
		"From 4.17 on, render with --migrate-level bundle-object-to-csv-metadata; before 4.17, render without it so that each bundle keeps its olm.bundle.object manifests."},
	{RuleKonfluxDigestPin, declcfg.SeverityError,
		"With --profile konflux, an olm.bundle image is not pinned by digest (@sha256: and 64 hex digits).",
		"Reference the bundle image by digest, e.g. registry.redhat.io/acme/op-bundle@sha256:<digest>."},
	{RuleKonfluxTrustedRegistry, declcfg.SeverityError,
		"With --profile konflux, an olm.bundle image is not under registry.redhat.io/ or registry.stage.redhat.io/.",
		"Point bundle images at the registry the release publishes to (registry.redhat.io), not where Konflux builds them."},
	{RuleKonfluxImageTag, declcfg.SeverityError,
		"With --profile konflux, a bundle image or related image has neither a tag nor a digest, so Konflux cannot convert it to a digest.",
		"Pin the image by digest, or at least tag it."},
	{RuleKonfluxEmptyImage, declcfg.SeverityError,
		"With --profile konflux, a bundle's image is an empty string (Konflux stops at any empty image reference).",
		"Set the bundle image; an empty value usually comes from an unset variable when the catalog was generated."},
	{RuleKonfluxRelatedDigest, declcfg.SeverityError,
		"With --profile konflux, a related image is not pinned by digest (Conforma's olm.unpinned_related_images).",
		"Reference every related image by digest in the CSV's spec.relatedImages and deployments, then render the bundle again."},
	{RuleKonfluxLifecycleFile, declcfg.SeverityError,
		"With --profile konflux and a target of OpenShift 5.0 or later, a package folder already holds lifecycle.json, which Konflux's lifecycle injection will not overwrite.",
		"Delete the file: the pipeline injects the package's lifecycle.json itself from OpenShift 5.0 on."},
}

func init() { catalogue = append(catalogue, pipelineCatalogue...) }

// operatorPipelines is where the community and certified pipelines' code
// was read (redhat-openshift-ecosystem/operator-pipelines).
const operatorPipelines = "redhat-openshift-ecosystem/operator-pipelines@422dfd6e "

// both are the pipelines of operator-pipelines: community-operators-prod's
// (static test suites community and common) and certified-operators' and
// redhat-marketplace's (isv and common).
var both = []Pipeline{PipelineCommunity, PipelineCertified}

// provenance says, for the rules that are not every catalog's, which
// pipelines run them and where they come from (docs/validate.md lists it).
var provenance = map[string]Provenance{
	RuleSkipRangeUpper: {Source: "operator-registry pull request #2090, not merged: no released opm and no pipeline applies it yet", Proposal: true},
	RuleMetadataFormat: {Pipelines: []Pipeline{PipelineCommunity, PipelineCertified, PipelineKonflux},
		Source: operatorPipelines + "operatorcert/static_tests/common/operator_catalogs.py check_olm_bundle_object_in_fbc; konflux-ci/konflux-operator-tasks validate-fbc",
		Test:   "check_olm_bundle_object_in_fbc"},

	RuleCISchema:          {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/operator.py check_schema_operator_ci_config", Test: "check_schema_operator_ci_config"},
	RuleCICatalogMapping:  {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/operator.py check_catalog_usage_ci_config", Test: "check_catalog_usage_ci_config"},
	RuleRCSchema:          {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/bundle.py check_validate_schema_bundle_release_config", Test: "check_validate_schema_bundle_release_config"},
	RuleRCFBC:             {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/bundle.py check_bundle_release_config", Test: "check_bundle_release_config"},
	RuleRCTemplate:        {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/bundle.py check_bundle_release_config", Test: "check_bundle_release_config"},
	RuleRCSemverChannels:  {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/bundle.py _check_semver_allowed_channels", Test: "check_bundle_release_config"},
	RuleRCDefaultChannel:  {Pipelines: both, Source: operatorPipelines + "operatorcert/entrypoints/add_bundle_to_fbc.py release_bundle_to_fbc (the release step)"},
	RuleYAMLLint:          {Pipelines: both, Source: operatorPipelines + "ansible/roles/operator-pipeline/templates/openshift/pipelines/operator-hosted-pipeline.yml, task yaml-lint (the pull request's bundle)"},
	RuleOperatorGraphLoop: {Pipelines: []Pipeline{PipelineCommunity}, Source: operatorPipelines + "operatorcert/static_tests/community/operator.py check_upgrade_graph_loop", Test: "check_upgrade_graph_loop"},
	RuleOperatorDangling:  {Pipelines: []Pipeline{PipelineCommunity}, Source: operatorPipelines + "operatorcert/static_tests/community/bundle.py check_dangling_bundles", Test: "check_dangling_bundles"},
	RuleAllowedRegistry:   {Pipelines: both, Source: operatorPipelines + "operatorcert/static_tests/common/operator_catalogs.py check_bundle_images_in_fbc", Test: "check_bundle_images_in_fbc"},
	RuleCatalogFile:       {Pipelines: both, Source: operatorPipelines + "operatorcert/operator_repo/core.py OperatorCatalog, operatorcert/entrypoints/detect_changed_operators.py"},
	RuleCatalogYAML:       {Pipelines: both, Source: operatorPipelines + "operatorcert/operator_repo/utils.py load_multidoc_yaml"},

	RulePRExtraFiles:     {Pipelines: both, Source: parsedFile + "check_extra_files"},
	RulePROperators:      {Pipelines: both, Source: parsedFile + "check_affected_operators"},
	RulePRModifiedBundle: {Pipelines: both, Source: parsedFile + "check_modified_bundles"},
	RulePRDeletedBundle:  {Pipelines: both, Source: parsedFile + "check_deleted_bundles"},
	RulePRAddedBundles:   {Pipelines: both, Source: parsedFile + "check_added_bundles"},
	RulePRBundleCatalog:  {Pipelines: both, Source: parsedFile + "check_affected_catalog_operators"},

	RuleKonfluxPackageDirs:     {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxEmptyPackageDir: {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxNoPackage:       {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxMetadataFormat:  {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxDigestPin:       {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxTrustedRegistry: {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks validate-fbc/0.2"},
	RuleKonfluxImageTag:        {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks run-opm-command-oci-ta/0.1"},
	RuleKonfluxEmptyImage:      {Pipelines: konflux, Source: "konflux-ci/konflux-operator-tasks run-opm-command-oci-ta/0.1"},
	RuleKonfluxRelatedDigest:   {Pipelines: konflux, Source: "conforma/policy olm.rego unpinned_related_images"},
	RuleKonfluxLifecycleFile:   {Pipelines: konflux, Source: "konflux-ci/operator-foundry pkg/lifecycle/inject.go"},

	RuleLifecycleVersion: {Source: lifecycleSource},
	RuleLifecycleDate:    {Source: lifecycleSource},
	RuleLifecycleEmpty:   {Source: lifecycleSource},
	RuleLifecyclePhases:  {Source: lifecycleSource},
	RuleLifecyclePackage: {Source: lifecycleSource},
}

var konflux = []Pipeline{PipelineKonflux}

// parsedFile holds the rules the parse-repo-changes task applies to a pull
// request's files before any test runs.
const parsedFile = operatorPipelines + "operatorcert/parsed_file.py ParserRules."

const lifecycleSource = "release-engineering/fbc-update-planner pkg/fbc (plcc2fbc's FBC-VAL checks), docs/FBC_SCHEMA.md"
