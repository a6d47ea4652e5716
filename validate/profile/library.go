package profile

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	v1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// validatorRun is one of operator-framework/api's validators as fbc runs it.
type validatorRun struct {
	name string
	v    interfaces.Validator
	// fallback is the rule of the validator's results that no more
	// specific rule claims.
	fallback string
}

var (
	csvValidator    = validatorRun{"ClusterServiceVersionValidator", validation.ClusterServiceVersionValidator, validate.RuleCSVFields}
	crdValidator    = validatorRun{"CustomResourceDefinitionValidator", validation.CustomResourceDefinitionValidator, validate.RuleCRDInvalid}
	bundleValidator = validatorRun{"BundleValidator", validation.BundleValidator, validate.RuleBundleCRDs}
	hubValidator    = validatorRun{"OperatorHubV2Validator", validation.OperatorHubV2Validator, validate.RuleHubMetadata}
	capsValidator   = validatorRun{"StandardCapabilitiesValidator", validation.StandardCapabilitiesValidator, validate.RuleHubCapabilities}
	catsValidator   = validatorRun{"StandardCategoriesValidator", validation.StandardCategoriesValidator, validate.RuleHubCategories}
	gpValidator     = validatorRun{"GoodPracticesValidator", validation.GoodPracticesValidator, validate.RuleGPResourceRequests}
)

// library runs operator-framework/api's validators the profiles name, the
// way operator-sdk bundle validate drives them, and classifies what they
// report.
func (c *Checker) library(b *bundle) []finding {
	mb := &manifests.Bundle{
		Name:           b.csvName(),
		Package:        b.pkg,
		Channels:       b.in.Channels,
		DefaultChannel: b.in.DefaultChannel,
		CSV:            b.csv,
	}
	// Only the validators fbc does not run (ObjectValidator) read more than
	// an object's identity; OperatorHubV2's removed-API scan, which reads
	// the CSV object, is replaced by fbc's own (removed.go).
	for _, o := range b.objects {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(o.apiVersion)
		u.SetKind(o.kind)
		u.SetName(o.name)
		mb.Objects = append(mb.Objects, u)
	}
	var fs []finding
	for _, cr := range b.crds {
		obj, err := cr.libraryObject()
		if err != nil {
			fs = append(fs, finding{rule: validate.RuleCRDInvalid, sev: declcfg.SeverityError, at: cr.obj.Pos,
				msg: fmt.Sprintf("%s does not decode as a CustomResourceDefinition: %v", cr.obj.label(), jsonProblem(err))})
			continue
		}
		switch t := obj.(type) {
		case *apiextv1.CustomResourceDefinition:
			mb.V1CRDs = append(mb.V1CRDs, t)
		case *apiextv1beta1.CustomResourceDefinition:
			mb.V1beta1CRDs = append(mb.V1beta1CRDs, t)
		}
	}
	values := map[string]string{}
	if c.set.Has(K8sVersion) {
		values["k8s-version"] = c.set.Kube.String()
	}

	if c.set.Has(OperatorFramework) {
		fs = append(fs, c.classify(b, csvValidator, c.run(csvValidator, b.csv))...)
		for _, cr := range b.crds {
			fs = append(fs, c.classify(b, crdValidator, c.crdVerdict(cr))...)
		}
		if !b.partial {
			mb.Size, mb.CompressedSize = bundleSize(b, &c.sizes)
			// The validator's relatedImages checks, which parse every
			// reference, report what ruleOf drops (rule image-reference
			// checks the references): it gets a CSV without them.
			bv := *mb
			csv := *b.csv
			csv.Spec.RelatedImages = nil
			bv.CSV = &csv
			fs = append(fs, c.classify(b, bundleValidator, c.run(bundleValidator, &bv))...)
		}
	}
	if c.set.Has(OperatorHub) {
		fs = append(fs, c.classify(b, hubValidator, c.run(hubValidator, mb, values))...)
		fs = append(fs, c.classify(b, capsValidator, c.run(capsValidator, mb))...)
		fs = append(fs, c.classify(b, catsValidator, c.run(catsValidator, mb))...)
	}
	if c.set.Has(GoodPractices) {
		fs = append(fs, c.classify(b, gpValidator, c.run(gpValidator, mb))...)
	}
	return fs
}

// crdVerdict runs the CRD validator once per distinct CRD text.
func (c *Checker) crdVerdict(cr *crd) []errors.ManifestResult {
	c.mu.Lock()
	res, ok := c.crdResults[cr.key]
	c.mu.Unlock()
	if ok {
		return res
	}
	obj, err := cr.libraryObject()
	if err != nil {
		return nil
	}
	res = c.run(crdValidator, obj)
	c.mu.Lock()
	c.crdResults[cr.key] = res
	c.mu.Unlock()
	return res
}

// run calls a validator; a validator that panics on odd input becomes an
// error of its fallback rule instead of ending fbc.
func (c *Checker) run(v validatorRun, objs ...any) (out []errors.ManifestResult) {
	defer func() {
		if r := recover(); r != nil {
			out = []errors.ManifestResult{{Errors: []errors.Error{{
				Type:   "panic",
				Level:  errors.LevelError,
				Detail: fmt.Sprintf("operator-framework/api's %s failed on this bundle (%v); its other checks did not run", v.name, r),
			}}}}
		}
	}()
	return v.v.Validate(objs...)
}

// classify turns a validator's results into findings: the rule, where in
// which manifest, and the message.
func (c *Checker) classify(b *bundle, v validatorRun, results []errors.ManifestResult) []finding {
	var out []finding
	for _, r := range results {
		for _, e := range append(append([]errors.Error(nil), r.Errors...), r.Warnings...) {
			rule, path := ruleOf(v, e)
			if rule == "" || dropped(b, rule, e) {
				continue
			}
			sev := declcfg.SeverityWarning
			if e.Level == errors.LevelError {
				sev = declcfg.SeverityError
			}
			o, at := b.locate(v, r.Name, e, rule, path)
			out = append(out, finding{rule: rule, sev: sev, at: at, msg: message(v, o, e)})
		}
	}
	return out
}

// dropped reports results about what a bundle made from olm.csv.metadata
// cannot have: the fields the property does not carry, an icon, a
// deployment.
func dropped(b *bundle, rule string, e errors.Error) bool {
	if !b.partial {
		return false
	}
	switch rule {
	case validate.RuleCSVFields:
		return e.Type == errors.ErrorFieldMissing
	case validate.RuleHubIcon:
		return strings.Contains(e.Detail, "Icon not specified")
	case validate.RuleGPResourceRequests:
		return strings.Contains(e.Detail, "unable to find a deployment")
	}
	return false
}

// ruleOf says which rule a result belongs to, and which field of the
// manifest it concerns. An empty rule drops the result: OperatorHubV2's
// removed-API findings, which fbc's own check (removed.go) reports with
// the object and release of each.
func ruleOf(v validatorRun, e errors.Error) (string, []string) {
	d := e.Detail
	if strings.HasPrefix(d, "(") {
		// ErrInvalidCSV prefixes "(csv name) ".
		if _, rest, ok := strings.Cut(d, ") "); ok {
			d = rest
		}
	}
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(d, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("which were deprecated and removed in", "to verify the CRD/Webhook apis", "informed via the k8s key option"):
		return "", nil
	case has("relatedImages["):
		// The same references are checked as image references of the
		// bundle (rule image-reference), with opm's grammar.
		return "", nil
	case strings.HasPrefix(d, "metadata.name "):
		return validate.RuleCSVName, []string{"metadata", "name"}
	case strings.HasPrefix(d, "spec.replaces "):
		return validate.RuleCSVName, []string{"spec", "replaces"}
	case has("inKubeVersion"):
		return validate.RuleCSVMinKubeVersion, []string{"spec", "minKubeVersion"}
	case has("annotations not found", "alm-examples", "invalid example", "example CustomResource", "example annotation", "provided API", "plural.group from crd name"):
		return validate.RuleCSVExamples, []string{"metadata", "annotations", "alm-examples"}
	case has("install modes", "InstallModeType"):
		return validate.RuleCSVInstallModes, []string{"spec", "installModes"}
	case has("uses wrong case", "olm.properties annotation"):
		return validate.RuleCSVAnnotations, []string{"metadata", "annotations"}
	case has("CRD") && has("empty description"):
		return validate.RuleGPCRDDescription, []string{"spec", "customresourcedefinitions"}
	case has("owned CRD", "present in bundle", "duplicate CRD"):
		return validate.RuleBundleCRDs, []string{"spec", "customresourcedefinitions", "owned"}
	case has("invalid service account"):
		return validate.RuleBundleSA, nil
	case has("bundle compressed size", "bundle size", "compressed size"):
		return validate.RuleBundleSize, nil
	case has("release versioning"):
		return validate.RuleBundleName, []string{"metadata", "name"}
	case has("csv.Spec.Icon"):
		return validate.RuleHubIcon, []string{"spec", "icon"}
	case has("Provider.Name"):
		return validate.RuleHubMetadata, []string{"spec", "provider"}
	case has("Maintainers"):
		return validate.RuleHubMetadata, []string{"spec", "maintainers"}
	case has("Links"):
		return validate.RuleHubMetadata, []string{"spec", "links"}
	case has("csv.Spec.Version"):
		return validate.RuleHubMetadata, []string{"spec", "version"}
	case has("Capabilities"):
		return validate.RuleHubCapabilities, []string{"metadata", "annotations", "capabilities"}
	case has(`Annotations["categories"]`, "categories"):
		return validate.RuleHubCategories, []string{"metadata", "annotations", "categories"}
	case has("resource requests", "a deployment to install"):
		return validate.RuleGPResourceRequests, []string{"spec", "install", "spec", "deployments"}
	case has("csv.metadata.Name"):
		return validate.RuleGPCSVName, []string{"metadata", "name"}
	case has("channel(s)"):
		return validate.RuleGPChannelNaming, nil
	case has("permissions to create CRD"):
		return validate.RuleGPCRDRBAC, []string{"spec", "install", "spec"}
	}
	if v.name == crdValidator.name {
		return validate.RuleCRDInvalid, fieldPath(e.Field)
	}
	if e.Type == errors.ErrorFieldMissing {
		return validate.RuleCSVFields, []string{"spec"}
	}
	return v.fallback, nil
}

// locate finds the manifest a result concerns (the CSV unless the result
// names another object) and the position of its field.
func (b *bundle) locate(v validatorRun, name string, e errors.Error, rule string, path []string) (*object, declcfg.Pos) {
	var o *object
	switch {
	case v.name == crdValidator.name:
		o = b.objectNamed(kindCRD, name)
	case rule == validate.RuleBundleSA:
		if s, ok := e.BadValue.(string); ok {
			o = b.objectNamed("ServiceAccount", s)
		}
	case rule == validate.RuleGPChannelNaming:
		if pos, ok := b.metadataKeyPos("operators.operatorframework.io.bundle.channels.v1"); ok {
			return nil, pos
		}
	case rule == validate.RuleBundleSize && b.in.Source != "":
		return nil, declcfg.Pos{File: b.in.Source}
	case rule == validate.RuleBundleSize:
		return nil, b.in.Pos
	}
	if o == nil {
		o = b.csvObj
	}
	return o, b.fieldPos(o, path...)
}

// message words a result: the library's detail, the field and value when
// the detail does not name them, and the object when it is not the CSV.
func message(v validatorRun, o *object, e errors.Error) string {
	msg := e.Detail
	if short := withoutValue(msg); len(msg)-len(short) > 200 {
		// The API server's field errors quote the invalid value, which
		// for spec.versions is every version with its schema.
		msg = short
	}
	if e.Type == errors.ErrorFieldMissing && e.Field != "" {
		msg = fmt.Sprintf("required field %s is missing", e.Field)
	} else if e.Field != "" && !strings.Contains(msg, e.Field) {
		msg = e.Field + ": " + msg
	}
	// Values that are not text are the API versions and kinds the
	// example checks name; text values repeat a name or a field.
	if _, isText := e.BadValue.(string); !isText && v.name != crdValidator.name {
		if s := valueText(e.BadValue); s != "" && !strings.Contains(msg, s) {
			msg += " (" + s + ")"
		}
	}
	if o != nil && o.kind != kindCSV {
		msg = o.label() + ": " + msg
	}
	return msg
}

func valueText(v any) string {
	rv := reflect.ValueOf(v)
	for rv.IsValid() && rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return ""
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return ""
	}
	switch t := rv.Interface().(type) {
	case string:
		return t
	case fmt.Stringer:
		return t.String()
	case v1alpha1.ClusterServiceVersion:
		return ""
	}
	s := fmt.Sprint(rv.Interface())
	if len(s) > 200 {
		return ""
	}
	return s
}

// withoutValue drops the value from a Kubernetes field error
// ("spec.versions: Invalid value: [...]: must have ...").
func withoutValue(detail string) string {
	const marker = ": Invalid value: "
	i := strings.Index(detail, marker)
	if i < 0 {
		return detail
	}
	j := strings.LastIndex(detail, ": ")
	if j <= i+len(marker) {
		return detail
	}
	return detail[:i] + ": " + detail[j+2:]
}
