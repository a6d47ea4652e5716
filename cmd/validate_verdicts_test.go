package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate"
)

// verdict is operator-framework/api's finding on one corpus bundle
// directory (../shared/vectors/bundle-verdicts.json; its _about key says
// how it was made).
type verdict struct {
	LoadError *string `json:"load_error"`
	Results   []struct {
		Validator string `json:"validator"`
		Type      string `json:"type"`
		Detail    string `json:"detail"`
	} `json:"results"`
}

// libraryReleases are the Kubernetes releases operator-framework/api's
// removed-API check knows; fbc's list covers more (docs/validate.md).
var libraryReleases = []string{"1.22", "1.25", "1.26"}

// TestBundleVerdictsAgree runs fbc validate with the profiles the verdicts
// were made with over every corpus bundle directory, and checks that fbc
// agrees with operator-framework/api per bundle: the same bundles have
// errors, the same have warnings, and every removed API the library names
// fbc names too, with its release and the object. What fbc checks beyond
// the library (the catalog rules on the rendered blob, icon data, removals
// after 1.26) is left out of the comparison, and so are the bundles fbc
// refuses to read because opm and OLM cannot (rule bundle-read): both are
// documented disagreements (docs/validate.md, "Agreement with
// operator-sdk").
func TestBundleVerdictsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("validates every corpus bundle: make test runs it, make test-race (-short) does not")
	}
	shared := sharedtest.Dir(t)
	data := sharedtest.ReadVector(t, "bundle-verdicts.json")
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]verdict{}
	var keys []string
	for k, v := range raw {
		if k == "_about" {
			continue
		}
		var vd verdict
		if err := json.Unmarshal(v, &vd); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		verdicts[k] = vd
		keys = append(keys, k)
	}
	slices.Sort(keys)
	corpus := filepath.Join(shared, "corpus")
	// The directory fbc is given for each bundle: the bundle root, which
	// for a few bundles is a bundle/ folder inside the listed directory
	// (operator-framework/api's loader searches the tree for the CSV).
	dirs := map[string]string{}
	args := []string{"validate", "-o", "json", "--profile", "operatorframework,operatorhub,good-practices,k8s-version=1.33"}
	for _, k := range keys {
		dir := filepath.Join(corpus, k)
		if _, err := os.Stat(filepath.Join(dir, "manifests")); err != nil {
			if _, err := os.Stat(filepath.Join(dir, "bundle", "manifests")); err == nil {
				dir = filepath.Join(dir, "bundle")
			}
		}
		dirs[k] = dir
		args = append(args, dir)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	if code == ExitTrouble {
		t.Fatalf("exit 2: %s", stderr.String())
	}
	var out struct {
		Diagnostics []declcfg.Finding `json:"diagnostics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	byBundle := map[string][]declcfg.Finding{}
	for _, d := range out.Diagnostics {
		best := ""
		for k, dir := range dirs {
			if (strings.HasPrefix(d.File, dir+string(filepath.Separator)) || d.File == dir) && len(dir) > len(dirs[best]) {
				best = k
			}
		}
		if best == "" {
			t.Errorf("diagnostic of no bundle: %+v", d)
			continue
		}
		byBundle[best] = append(byBundle[best], d)
	}

	compared, unreadable := 0, 0
	for _, k := range keys {
		vd, ours := verdicts[k], byBundle[k]
		if slices.ContainsFunc(ours, func(d declcfg.Finding) bool { return d.Rule == validate.RuleBundleRead }) {
			if vd.LoadError != nil {
				continue
			}
			unreadable++
			continue
		}
		if vd.LoadError != nil {
			if !slices.ContainsFunc(ours, isError) {
				t.Errorf("%s: operator-framework/api cannot load it (%s); fbc reports no error", k, *vd.LoadError)
			}
			continue
		}
		compared++
		var libErr, libWarn bool
		for _, r := range vd.Results {
			libErr = libErr || r.Type == "error" || r.Type == "panic"
			libWarn = libWarn || r.Type == "warning"
		}
		var comparable []declcfg.Finding
		for _, d := range ours {
			if libraryChecks(d) {
				comparable = append(comparable, d)
			}
		}
		// A check of ours the library does not make is a warning unless
		// OLM itself refuses the bundle (issue 26, item 9).
		if !libErr {
			for _, d := range ours {
				if isError(d) && !libraryChecks(d) && !olmRefuses(d.Rule) {
					t.Errorf("%s: operator-framework/api passes the bundle, but fbc's own check %s makes an error of it, and OLM installs it: make it a warning\n%s", k, d.Rule, dumpDiags([]declcfg.Finding{d}))
				}
			}
		}
		ourErr := slices.ContainsFunc(comparable, isError)
		ourWarn := slices.ContainsFunc(comparable, func(d declcfg.Finding) bool { return d.Severity == declcfg.SeverityWarning })
		if ourErr != libErr || ourWarn != libWarn {
			t.Errorf("%s: operator-framework/api: errors %v, warnings %v; fbc: errors %v, warnings %v\n%s", k, libErr, libWarn, ourErr, ourWarn, dumpDiags(comparable))
		}
		for _, r := range vd.Results {
			if r.Validator != "AlphaDeprecatedAPIsValidator" {
				continue
			}
			for _, want := range removedAPIsOf(t, r.Detail) {
				if !slices.ContainsFunc(ours, want.matches) {
					t.Errorf("%s: operator-framework/api says %s (removed in %s) uses a removed API; fbc does not say so\n%s", k, want.object, want.release, dumpDiags(ours))
				}
			}
		}
	}
	if compared < 350 {
		t.Errorf("only %d bundles compared", compared)
	}
	t.Logf("%d bundles agree; %d are bundles opm cannot read, which fbc reports (bundle-read)", compared, unreadable)
}

func isError(d declcfg.Finding) bool { return d.Severity == declcfg.SeverityError }

// olmRefuses reports whether the errors of one of fbc's own bundle checks
// (checks operator-framework/api does not make) mean that OLM itself
// refuses the bundle: opm cannot read or render it (bundle-read, a
// document that is no catalog blob, a version or property OLM cannot
// parse), the API server refuses an object (a manifest that is no
// Kubernetes object, an API the target release removed, a CRD update that
// changes scope or drops a stored version), or operator-controller refuses
// it (olmv1's rules, its CRD upgrade check). Every other check of ours is
// a warning (TestOwnChecksAreWarnings).
func olmRefuses(rule string) bool {
	switch rule {
	case validate.RuleBundleRead, declcfg.RuleIO, declcfg.RuleMissingSchema,
		validate.RuleBundleObject, validate.RuleBundleVersion, validate.RulePackageProperty,
		validate.RuleVersionRange, validate.RuleConstraint,
		validate.RuleRemovedAPI,
		validate.RuleCRDScope, validate.RuleCRDStoredVersion,
		validate.RuleCRDServedVersion, validate.RuleCRDStorageVersion, validate.RuleCRDField,
		validate.RuleOLMv1InstallMode, validate.RuleOLMv1APIService, validate.RuleOLMv1Webhook,
		validate.RuleOLMv1Dependency, validate.RuleOLMv1Kind, validate.RuleOLMv1Bundle:
		return true
	}
	return false
}

// TestOwnChecksAreWarnings holds the bundle-content rules (the profile
// rules, which follow the catalog rules in validate.Rules) to the rule
// that a check of ours that operator-framework/api does not make is a
// warning unless OLM itself refuses the bundle: operator-sdk and the
// pipelines pass what the library passes, and an error of ours would fail
// CI on a bundle the real pipeline accepts (issue 26, item 9;
// docs/validate.md lists each own check with why it is what it is).
func TestOwnChecksAreWarnings(t *testing.T) {
	rules := validate.Rules()
	first := slices.IndexFunc(rules, func(r validate.Rule) bool { return r.ID == validate.RuleBundleRead })
	if first < 0 {
		t.Fatal("no bundle-content rules")
	}
	for _, r := range rules[first:] {
		if r.Severity != declcfg.SeverityError || libraryChecks(declcfg.Finding{Rule: r.ID}) || olmRefuses(r.ID) {
			continue
		}
		t.Errorf("%s is fbc's own check and an error, but OLM does not refuse what it finds: make it a warning, or say in olmRefuses why OLM refuses the bundle", r.ID)
	}
}

// libraryChecks reports whether a diagnostic is of a check
// operator-framework/api makes: the rules of its validators, and the
// removals in the releases it knows.
func libraryChecks(d declcfg.Finding) bool {
	switch d.Rule {
	case validate.RuleCSVName, validate.RuleCSVFields, validate.RuleCSVExamples, validate.RuleCSVInstallModes,
		validate.RuleCSVMinKubeVersion, validate.RuleCSVAnnotations, validate.RuleCRDInvalid,
		validate.RuleBundleCRDs, validate.RuleBundleSA, validate.RuleBundleSize, validate.RuleBundleName,
		validate.RuleHubMetadata, validate.RuleHubIcon, validate.RuleHubCapabilities, validate.RuleHubCategories,
		validate.RuleGPResourceRequests, validate.RuleGPCSVName, validate.RuleGPChannelNaming, validate.RuleGPCRDRBAC,
		validate.RuleGPCRDDescription,
		// The library's related-image check, which fbc reports as an
		// image reference of the bundle.
		validate.RuleImageReference:
		return true
	case validate.RuleRemovedAPI:
		for _, rel := range libraryReleases {
			if strings.Contains(d.Message, "Kubernetes "+rel+" ") {
				return true
			}
		}
	}
	return false
}

// removedAPI is one object the library's removed-API message names.
type removedAPI struct{ release, object string }

func (w removedAPI) matches(d declcfg.Finding) bool {
	return d.Rule == validate.RuleRemovedAPI && strings.Contains(d.Message, "Kubernetes "+w.release+" ") &&
		strings.Contains(strings.ToLower(d.Message), strings.ToLower(w.object))
}

var (
	removedRelease = regexp.MustCompile(`removed in v(\d+\.\d+)\.`)
	quotedNames    = regexp.MustCompile(`"([^"]+)"`)
	// The library names CSV fields in Go terms; fbc's messages in YAML's.
	csvFieldPath = strings.NewReplacer(
		"ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.", "spec.install.spec.",
		"ClusterServiceVersion.Spec.CustomResourceDefinitions.", "spec.customresourcedefinitions.",
		".Resource[", ".resources[", ".Rules[", ".rules[")
)

// removedAPIsOf reads "... removed in v1.25 ... Migrate the API(s) for
// KIND: ([\"name\" ...]),KIND: (...)" into objects.
func removedAPIsOf(t *testing.T, detail string) []removedAPI {
	m := removedRelease.FindStringSubmatch(detail)
	_, list, ok := strings.Cut(detail, "Migrate the API(s) for ")
	if m == nil || !ok {
		t.Fatalf("unexpected removed-API message: %s", detail)
	}
	var out []removedAPI
	for _, q := range quotedNames.FindAllStringSubmatch(list, -1) {
		out = append(out, removedAPI{release: m[1], object: csvFieldPath.Replace(q[1])})
	}
	if len(out) == 0 {
		t.Fatalf("no objects in removed-API message: %s", detail)
	}
	return out
}

func dumpDiags(ds []declcfg.Finding) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("    " + d.Pos.String() + ": " + string(d.Severity) + ": " + d.Message + " [" + d.Rule + "]\n")
	}
	return b.String()
}
