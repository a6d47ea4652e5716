package validate

import (
	"slices"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// Rule ids of the checks in this package. They are stable: users filter on
// them, SARIF reports carry them, and docs/validate.md lists them. The ids of
// problems found while loading are declcfg's (declcfg.RuleSyntax, ...).
const (
	// Shape: checked against the embedded CUE schemas.
	RuleUnknownField    = shape.RuleUnknownField
	RuleMissingField    = shape.RuleMissingField
	RuleEmptyValue      = shape.RuleEmptyValue
	RuleInvalidValue    = shape.RuleInvalidValue
	RuleUnknownProperty = "unknown-property"
	RuleUnknownSchema   = "unknown-schema"
	RulePolicy          = "policy"

	// Packages. The rules that need the whole catalog are the model's.
	RuleDuplicatePackage = model.RuleDuplicatePackage
	RulePackageName      = "package-name"
	RuleDefaultChannel   = model.RuleDefaultChannel
	RuleUnknownPackage   = model.RuleUnknownPackage
	RuleEmptyPackage     = model.RuleEmptyPackage

	// Channels and their upgrade graphs: all the model's.
	RuleDuplicateChannel = model.RuleDuplicateChannel
	RuleDuplicateEntry   = model.RuleDuplicateEntry
	RuleEmptyChannel     = model.RuleEmptyChannel
	RuleChannelHead      = model.RuleChannelHead
	RuleReplacesCycle    = model.RuleReplacesCycle
	RuleStrandedBundle   = model.RuleStrandedBundle
	RuleMissingBundle    = model.RuleMissingBundle
	RuleSkipRange        = model.RuleSkipRange
	RuleEdgeTarget       = model.RuleEdgeTarget
	RuleDowngradeEdge    = model.RuleDowngradeEdge

	// Bundles and their properties.
	RuleDuplicateBundle  = model.RuleDuplicateBundle
	RuleOrphanBundle     = model.RuleOrphanBundle
	RulePackageProperty  = "package-property"
	RuleBundleVersion    = "bundle-version"
	RuleBundleRelease    = "bundle-release"
	RuleDuplicateVersion = model.RuleDuplicateVersion
	RuleImageReference   = "image-reference"
	RuleBundleImage      = "bundle-image"
	RuleBundleObject     = "bundle-object"
	RuleMetadataFormat   = "metadata-format"
	RuleCSVMismatch      = "csv-mismatch"
	RuleVersionRange     = "version-range"
	RuleConstraint       = "constraint"
	RuleMaxOpenShift     = "max-openshift-version"

	// Deprecations: the model's.
	RuleDuplicateDeprecation = model.RuleDuplicateDeprecation
	RuleDeprecationReference = model.RuleDeprecationReference
	RuleDeprecatedDefault    = model.RuleDeprecatedDefault

	// The run itself.
	RuleRunWarning = "run-warning"
)

// catalogue lists every rule in the order docs present them: loading, shape,
// then packages, channels, bundles and deprecations.
var catalogue = []Rule{
	// Loading (declcfg).
	{declcfg.RuleIO, declcfg.SeverityError,
		"A catalog file or directory could not be read.",
		"Fix the file's permissions or remove it; the result is incomplete until every file can be read."},
	{declcfg.RuleBinaryFile, declcfg.SeverityError,
		"A file in the catalog tree is not text.",
		"Catalogs hold only JSON and YAML: move the file out of the tree or list it in .indexignore."},
	{declcfg.RuleSyntax, declcfg.SeverityError,
		"A file is not valid JSON or YAML, or a document goes past what fbc reads: collections nested deeper than 1000 levels, a value longer than 16 MiB, a document longer than 64 MiB (no real catalog comes near them; a file may hold any number of documents).",
		"Fix the syntax at the reported line. Only the document holding the error is skipped (in YAML up to the next --- line, in a JSON stream up to the next line starting with {): the other documents are checked, and what the skipped document would have provided, such as a package's channel or an entry's bundle, is not reported missing."},
	{declcfg.RuleNotUTF8, declcfg.SeverityError,
		"A text file holds a byte that is not UTF-8 (a letter saved as Latin-1, for example); a warning in a JSON file, an error in a YAML one.",
		"Save the file as UTF-8. opm reads such a byte in JSON as U+FFFD, so the character is lost from the catalog it serves, and rejects a YAML file that holds one (yaml: invalid UTF-8)."},
	{declcfg.RuleEmptyDocument, declcfg.SeverityError,
		"A YAML document or file holds nothing: only comments, only blank lines, or a lone --- (two at the start or end of a file).",
		"opm decodes every chunk of lines between --- lines as an object and rejects an empty one (object '' is missing root schema field); one --- at the start or end of a file, or two between documents, is fine. Delete the empty document or list the file in .indexignore."},
	{declcfg.RuleNotObject, declcfg.SeverityError,
		"A document is not an object (for example a list or a string).",
		"Every catalog document is an object with a \"schema\" field; split lists into one document per blob."},
	{declcfg.RuleSymlink, declcfg.SeverityError,
		"A symbolic link in the catalog tree cannot be followed, points to a directory, or leads outside the catalog directory.",
		"Replace the link with the file or directory it names; a link out of the catalog must become a copy (fbc build refuses it even when .indexignore hides it)."},
	{declcfg.RuleMissingSchema, declcfg.SeverityError,
		"A document has no \"schema\" field.",
		"Add schema: olm.package, olm.channel, olm.bundle, olm.deprecations or your own schema name."},
	{declcfg.RuleFieldType, declcfg.SeverityError,
		"A field has the wrong JSON type (for example a number where a string belongs).",
		"Write the value with the type the message names; quote version-like values such as 1.10 in YAML."},
	{declcfg.RuleDuplicateKey, declcfg.SeverityError,
		"An object has the same key twice, or two keys that differ only in case (opm reads them as one).",
		"Remove one of the keys; JSON decoders keep only one of them, silently."},
	{declcfg.RuleKeyCase, declcfg.SeverityWarning,
		"A key matches a known field only when case is ignored.",
		"Spell the key exactly as the schema does; opm accepts the wrong case, other tools do not."},

	// Shape (embedded CUE schemas).
	{RuleUnknownField, declcfg.SeverityWarning,
		"A field is not part of its schema (often a typo such as replace for replaces).",
		"Rename the field as suggested, or remove it: opm ignores unknown fields silently. --strict makes this an error."},
	{RuleMissingField, declcfg.SeverityError,
		"A required field is absent.",
		"Add the field the message names."},
	{RuleEmptyValue, declcfg.SeverityError,
		"A field that must not be empty is an empty string.",
		"Give the field a value or remove the entry it belongs to."},
	{RuleInvalidValue, declcfg.SeverityError,
		"A value is not one the schema allows, or a bundle has more than one olm.csv.metadata property (opm refuses it).",
		"Use one of the values the message lists; keep one olm.csv.metadata property."},
	{RuleUnknownProperty, declcfg.SeverityWarning,
		"A property type is not one OLM knows, and it looks like a mistake: it uses the reserved olm. prefix, is close to a known type, or is not namespaced.",
		"Use the suggested type, or namespace your own types (example.com/my-property). --strict makes this an error."},
	{RuleUnknownSchema, declcfg.SeverityWarning,
		"A blob's schema is not one fbc knows, and it looks like a mistake: it uses the reserved olm. prefix or is close to a known schema.",
		"Fix the schema name; a template (olm.template.basic, olm.semver) belongs outside the catalog tree. --strict makes this an error."},
	{RulePolicy, declcfg.SeverityError,
		"A blob does not satisfy a definition from a --schema directory.",
		"Change the blob to satisfy your policy, or change the policy."},

	// Packages.
	{RuleDuplicatePackage, declcfg.SeverityError,
		"Two olm.package blobs declare the same package.",
		"Keep one of them. When composing catalogs, two sources define the same package: rename one or drop one source's copy."},
	{RulePackageName, declcfg.SeverityError,
		"A package name is not a DNS-1123 label.",
		"Use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit."},
	{RuleDefaultChannel, declcfg.SeverityError,
		"A package's defaultChannel is unset or names a channel the package does not have.",
		"Set defaultChannel to one of the package's channels."},
	{RuleUnknownPackage, declcfg.SeverityError,
		"Channels, bundles or deprecations refer to a package that has no olm.package blob.",
		"Add the olm.package blob, or fix the package field if it is misspelt."},
	{RuleEmptyPackage, declcfg.SeverityError,
		"A package has no channels.",
		"Add an olm.channel blob for the package (and set defaultChannel to it), or remove the package."},

	// Channels.
	{RuleDuplicateChannel, declcfg.SeverityError,
		"Two olm.channel blobs of a package have the same name.",
		"Merge their entries into one blob."},
	{RuleDuplicateEntry, declcfg.SeverityError,
		"A channel lists the same bundle twice.",
		"Remove one entry; if their edges differ, keep the union in one entry."},
	{RuleEmptyChannel, declcfg.SeverityError,
		"A channel has no entries.",
		"Add entries or remove the channel."},
	{RuleChannelHead, declcfg.SeverityError,
		"A channel does not have exactly one head (an entry that no other entry replaces or skips).",
		"Link the heads with replaces or skips so that exactly one entry is the newest; a channel linked only by skipRange has several heads."},
	{RuleReplacesCycle, declcfg.SeverityError,
		"Replaces edges form a cycle: following replaces from the channel head comes back to an entry already visited, the entries of a channel without a head replace each other in a circle, or an entry replaces itself.",
		"Break the cycle: each entry replaces an older one."},
	{RuleStrandedBundle, declcfg.SeverityError,
		"An entry is neither on the replaces chain from the channel head nor skipped by any entry.",
		"Make a newer entry replace or skip it, or remove it from the channel."},
	{RuleMissingBundle, declcfg.SeverityError,
		"A channel entry names a bundle that has no olm.bundle blob in the package.",
		"Add the bundle (fbc render it) or remove the entry."},
	{RuleSkipRange, declcfg.SeverityError,
		"A skipRange is not a valid semver range (github.com/blang/semver/v4 ParseRange, as OLM parses it).",
		"Write ranges such as '>=1.0.0 <1.2.0'; OLM ignores a skipRange it cannot parse."},
	{RuleEdgeTarget, declcfg.SeverityWarning,
		"A replaces or skips target exists nowhere in the package but is close to a bundle name that does.",
		"Fix the name if it is a typo. Targets that were pruned from the catalog are fine and not reported."},
	{RuleDowngradeEdge, declcfg.SeverityWarning,
		"An upgrade edge leads to a lower version: an entry replaces or skips a bundle of a higher version, or its skipRange holds one. OLM classic follows it; OLM v1 never upgrades to a lower version, so clusters on the higher one stay there.",
		"Give the entry a version above the one it upgrades from (a prerelease such as 1.0.1-1 sorts below 1.0.1), or narrow its skipRange."},

	// Bundles.
	{RuleDuplicateBundle, declcfg.SeverityError,
		"Two olm.bundle blobs of a package have the same name.",
		"Keep one of them."},
	{RuleOrphanBundle, declcfg.SeverityError,
		"A bundle is not an entry of any channel.",
		"Add the bundle to a channel or remove it."},
	{RulePackageProperty, declcfg.SeverityError,
		"A bundle does not have exactly one olm.package property, or it names another package.",
		"Give the bundle one olm.package property whose packageName is the bundle's package."},
	{RuleBundleVersion, declcfg.SeverityError,
		"A bundle's olm.package version is not strict semver.",
		"Write MAJOR.MINOR.PATCH, optionally with -prerelease and +build; no leading 'v', no leading zeros."},
	{RuleBundleRelease, declcfg.SeverityError,
		"A bundle's release is invalid, used with build metadata, or its name is not <package>-v<version>-<release>.",
		"Use at most 20 characters of dot-separated alphanumerics and '-', no build metadata in the version, and name the bundle <package>-v<version>-<release>."},
	{RuleDuplicateVersion, declcfg.SeverityError,
		"Two bundles of a package have the same version (and release).",
		"Give each bundle its own version, or add a release to tell rebuilds apart."},
	{RuleImageReference, declcfg.SeverityError,
		"A bundle image or related image is not a valid image reference.",
		"Write [registry/]repository[:tag][@digest] with a lowercase repository, for example quay.io/acme/op@sha256:<64 hex digits>."},
	{RuleBundleImage, declcfg.SeverityError,
		"A bundle has neither an image nor olm.bundle.object properties.",
		"Set the bundle's image (or render it from a bundle directory, which inlines its manifests)."},
	{RuleBundleObject, declcfg.SeverityError,
		"An olm.bundle.object property is not base64 of a Kubernetes object with apiVersion, kind and metadata.name.",
		"Re-render the bundle; each object's data is the base64 of one manifest."},
	{RuleMetadataFormat, declcfg.SeverityError,
		"With a target OpenShift release of 4.17 or later, a bundle carries olm.bundle.object properties, which the certified and community pipelines refuse there (they publish olm.csv.metadata).",
		"Run fbc render CATALOG --migrate-level bundle-object-to-csv-metadata -o yaml and keep its output: it replaces a bundle's objects with olm.csv.metadata. The migration skips bundles without an image or a ClusterServiceVersion, and bundles that already have olm.csv.metadata: delete their objects by hand."},
	{RuleCSVMismatch, declcfg.SeverityWarning,
		"A bundle's name or version differs from its ClusterServiceVersion's metadata.name or spec.version (from an inline olm.bundle.object), or, without one, from the version its own name ends with (olm.csv.metadata carries neither).",
		"Re-render the bundle, or rename it after its CSV; tools that look bundles up by CSV name will not find it."},
	{RuleVersionRange, declcfg.SeverityError,
		"An olm.package.required versionRange is not a semver range OLM can parse.",
		"Write ranges such as '>=1.0.0 <2.0.0'; put spaces around '||'."},
	{RuleConstraint, declcfg.SeverityError,
		"An olm.constraint is malformed: it must set exactly one of cel, all, any, not, gvk or package, recursively, and a cel rule must compile.",
		"Keep one constraint kind per constraint object and nest the others under all/any/not. A cel rule must compile in OLM's CEL environment (the variable properties, the function semver_compare) to a bool."},
	{RuleMaxOpenShift, declcfg.SeverityWarning,
		"An olm.maxOpenShiftVersion is not MAJOR.MINOR: OLM cannot read it (empty, a patch, prerelease or build part, not a version, a second such property), reads it loosely (v4.18, 4.18.0, 4), or it is a number a decoder reads otherwise (4.10 as 4.1).",
		"Write the last OpenShift release the bundle supports as a quoted MAJOR.MINOR string, e.g. \"4.18\", once per bundle. OLM marks the cluster not upgradeable past it while the bundle is installed, and for good when it cannot read the value."},

	// Deprecations.
	{RuleDuplicateDeprecation, declcfg.SeverityError,
		"A package has more than one olm.deprecations blob, or one deprecation entry twice.",
		"Merge the blobs into one per package and keep each reference once."},
	{RuleDeprecationReference, declcfg.SeverityError,
		"A deprecation entry refers to a channel or bundle that does not exist, or names a package reference.",
		"Reference an existing channel or bundle of the package; package references carry no name."},
	{RuleDeprecatedDefault, declcfg.SeverityWarning,
		"The default channel, or the bundle at its head, is deprecated while the package is not.",
		"New installs land on deprecated content: point defaultChannel at a supported channel."},
	// The run itself.
	{RuleRunWarning, declcfg.SeverityWarning,
		"Something the run could not check, or had to assume, while it read the paths: bundle contents left unchecked because fbc-profile is not installed, a bundle image found only in a form that lacks its manifests, a template warning, a registry's note.",
		"Read the message: it says what was left out and how to have it checked. These warnings count in the summary and appear in every output format, like the catalog's own."},
}

// Rules returns every rule fbc validate reports, in documentation order.
func Rules() []Rule { return slices.Clone(catalogue) }
