package profile

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/operator-framework/api/pkg/validation/errors"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profiles"
)

// Checker runs a set of profiles; it implements validate.ProfileChecker.
// One Checker serves one validation run.
type Checker struct {
	set Set
	// sourcesOnly skips the bundles of catalogs: the default profile of
	// bundle directories and images does not apply to catalogs.
	sourcesOnly bool

	// crds caches parsed CRDs, and crdResults the CRD validator's
	// verdicts, by CRD text: the bundles of a package ship the same CRDs
	// again and again.
	crds       crdCache
	mu         sync.Mutex
	crdResults map[contentKey][]errors.ManifestResult
	// sizes caches the compressed size of bundle parts (bundleSize).
	sizes sizeCache

	// up keeps what the upgrade checks compare once the catalog is known.
	up upgrades

	// Warn receives the one note about the checks that could not run on
	// catalog bundles that carry only olm.csv.metadata.
	Warn fault.Warn
	// metadataOnly counts those bundles.
	metadataOnly atomic.Int64
}

// New makes a checker for the profiles of s.
func New(s Set) *Checker {
	return &Checker{set: s, crdResults: map[contentKey][]errors.ManifestResult{}}
}

// NewChecker makes the checker of one fbc-profile exchange
// (profiles.NewChecker). sourcesOnly is what fbc validate asks for when no
// profile is named: the profiles check bundle directories and images only
// (operatorframework, as operator-sdk bundle validate runs by default),
// and catalogs keep their usual checks.
func NewChecker(s Set, sourcesOnly bool, warn fault.Warn) profiles.Checker {
	c := New(s)
	c.sourcesOnly = sourcesOnly
	c.Warn = warn
	return c
}

// finding is one problem before it becomes a diagnostic.
type finding struct {
	rule string
	sev  declcfg.Severity
	at   declcfg.Pos
	msg  string
}

// CheckBundle runs the profiles on one bundle.
func (c *Checker) CheckBundle(in *validate.BundleContents) []declcfg.Finding {
	if c.sourcesOnly && in.FromCatalog {
		return nil
	}
	b := parseBundle(in, &c.crds)
	fs := slices.Clone(b.problems)
	if b.csv == nil {
		if len(in.Objects) > 0 || !in.FromCatalog {
			fs = append(fs, finding{rule: validate.RuleCSVFields, sev: declcfg.SeverityError, at: b.in.Pos,
				msg: "the bundle has no ClusterServiceVersion; the profiles check a bundle through its CSV"})
		}
		// A catalog bundle with neither manifests nor olm.csv.metadata
		// (only an image) holds nothing to check here.
		return c.diagnostics(b, fs)
	}
	if b.partial && in.FromCatalog {
		c.metadataOnly.Add(1)
	}
	if c.set.Has(OperatorFramework) || c.set.Has(OperatorHub) || c.set.Has(GoodPractices) {
		fs = append(fs, c.library(b)...)
	}
	if c.set.Has(OperatorHub) && !b.partial {
		fs = append(fs, iconFindings(b)...)
	}
	if c.set.Has(K8sVersion) || c.set.Has(OperatorHub) {
		fs = append(fs, c.removedAPIs(b)...)
	}
	if c.set.Has(OLMv1) {
		fs = append(fs, olmv1Findings(b, c.set.Gates)...)
	}
	if c.checksUpgrades() {
		c.up.remember(b, c.set.Has(OLMv1))
	}
	return c.diagnostics(b, fs)
}

// CheckCatalog runs the checks that need the whole catalog.
func (c *Checker) CheckCatalog(cat *model.Catalog) []declcfg.Finding {
	var out []declcfg.Finding
	if c.sourcesOnly {
		return nil
	}
	if n := c.metadataOnly.Swap(0); n > 0 {
		c.Warn.Printf("%d catalog %s only olm.csv.metadata, no olm.bundle.object manifests: on %s the profiles could not check %s",
			n, plural(n, "bundle carries", "bundles carry"), plural(n, "it", "them"), strings.Join(c.metadataGaps(), "; "))
	}
	if cat == nil {
		return nil
	}
	if c.checksUpgrades() {
		out = append(out, c.crdUpgradeFindings(cat)...)
		out = append(out, c.storedVersionFindings(cat)...)
	}
	for _, p := range cat.Packages {
		for _, ch := range p.Channels {
			if c.set.Has(GoodPractices) && !conventionalChannel(ch.Name) {
				out = append(out, declcfg.Finding{Rule: validate.RuleGPChannelNaming, Severity: declcfg.SeverityWarning, Pos: ch.Pos,
					Package: p.Name, Channel: ch.Name,
					Message: fmt.Sprintf("channel %q does not follow the recommended naming: candidate, fast or stable, optionally followed by a version (https://olm.operatorframework.io/docs/best-practices/channel-naming)", ch.Name)})
			}
		}
	}
	return out
}

// metadataGaps names what the profiles of the run check in manifests, and
// so cannot check in a bundle that has only olm.csv.metadata.
func (c *Checker) metadataGaps() []string {
	var out []string
	if c.set.Has(OperatorFramework) {
		out = append(out, "CRD validity and the CRDs against the CSV (crd-invalid, bundle-crds)",
			"ServiceAccounts (bundle-service-account)", "the bundle size (bundle-size)",
			"the CSV's required fields, install strategy and related images (csv-fields)")
	}
	if c.set.Has(OperatorHub) {
		out = append(out, "the icon (hub-icon, hub-icon-data)")
	}
	if c.set.Has(OperatorHub) || c.set.Has(K8sVersion) {
		out = append(out, "removed APIs in manifests (removed-api)")
	}
	if c.set.Has(GoodPractices) {
		out = append(out, "resource requests and permissions to create CRDs (gp-resource-requests, gp-crd-rbac)")
	}
	if c.set.Has(OLMv1) {
		out = append(out, "webhooks, deployments, object kinds and owned CRDs (olmv1-webhook, olmv1-kind, olmv1-bundle)")
	}
	if c.checksUpgrades() {
		out = append(out, "CRD storage versions, scope and schemas along upgrade edges, only versions dropped from olm.gvk (crd-stored-version, crd-storage-version, crd-scope, crd-field)")
	}
	return out
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checksUpgrades reports whether the profiles compare CRDs along upgrade
// edges: OLM v0 (operatorframework) and operator-controller (olmv1) both
// refuse upgrades that break them.
func (c *Checker) checksUpgrades() bool {
	return !c.sourcesOnly && (c.set.Has(OperatorFramework) || c.set.Has(OLMv1))
}

// conventionalChannel applies operator-framework/api's good-practices rule
// to one channel name.
func conventionalChannel(name string) bool {
	for _, p := range []string{"candidate", "stable", "fast"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == ""
}

// diagnostics turns findings into diagnostics, each problem once.
func (c *Checker) diagnostics(b *bundle, fs []finding) []declcfg.Finding {
	type key struct {
		pos declcfg.Pos
		msg string
	}
	seen := map[key]bool{}
	out := make([]declcfg.Finding, 0, len(fs))
	for _, f := range fs {
		k := key{f.at, f.msg}
		if seen[k] {
			continue
		}
		seen[k] = true
		if f.at == (declcfg.Pos{}) {
			f.at = b.in.Pos
		}
		out = append(out, declcfg.Finding{Rule: f.rule, Severity: f.sev, Pos: f.at, Package: b.pkg, Bundle: b.name, Message: f.msg})
	}
	return out
}
