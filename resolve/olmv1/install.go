package olmv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/model"
)

// InstallCheck is what operator-controller says when it turns the
// resolved registry+v1 bundle into manifests for the extension: the
// bundle's features it refuses, and the extension's configuration
// (spec.config.inline) checked against the schema it builds from the
// bundle's install modes.
type InstallCheck struct {
	// Err is operator-controller's refusal, its exact message; nil when
	// the bundle installs.
	Err error
	// Targets are the namespaces the operator will watch ("" is every
	// namespace), when it installs.
	Targets []string
	// Notes say what fbc could not check.
	Notes []string
}

const (
	allNamespaces    = "AllNamespaces"
	ownNamespace     = "OwnNamespace"
	singleNamespace  = "SingleNamespace"
	multiNamespace   = "MultiNamespace"
	namespacePattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
)

var namespaceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(namespacePattern) })

// deploymentConfigFields are the fields of spec.config.inline's
// deploymentConfig (OLM classic's SubscriptionConfig without selector),
// with the JSON type each takes.
var deploymentConfigFields = map[string]string{
	"affinity": "object", "annotations": "object", "env": "array", "envFrom": "array", "nodeSelector": "object",
	"resources": "object", "tolerations": "array", "volumeMounts": "array", "volumes": "array",
}

// checkInstall runs operator-controller's registry+v1 checks, in its
// order, on the resolved bundle. cfg is spec.config as the API server
// stored it (nil when the CRD does not have it).
func checkInstall(e *ClusterExtension, cfg *Config, facts model.CSVFacts, gates olmv1gate.Gates) *InstallCheck {
	ic := &InstallCheck{}
	fail := func(format string, args ...any) *InstallCheck {
		ic.Err = fmt.Errorf(format, args...)
		return ic
	}
	if facts.Source == "" {
		ic.Notes = append(ic.Notes, "the bundle carries neither its ClusterServiceVersion nor olm.csv.metadata: its install modes, APIServices and webhooks are not checked")
		return ic
	}
	if len(facts.OwnedAPIServices) > 0 {
		return fail("unsupported bundle: apiServiceDefintions are not supported")
	}
	switch {
	case facts.Webhooks == nil:
		if gates.CertificateProvider() == "" {
			ic.Notes = append(ic.Notes, "the catalog has the bundle's olm.csv.metadata, not its ClusterServiceVersion: whether it defines webhooks (which need a certificate provider gate) is not checked")
		}
	case len(facts.Webhooks) > 0 && gates.CertificateProvider() == "":
		return fail("unsupported bundle: webhookDefinitions are not supported")
	case len(facts.Webhooks) > 0:
		ic.Notes = append(ic.Notes, fmt.Sprintf("the bundle defines %d webhook(s): operator-controller issues their certificates with %s, which the cluster must run", len(facts.Webhooks), gates.CertificateProvider()))
	}
	singleOwn := gates.Enabled(olmv1gate.SingleOwnNamespaceInstallSupport)
	if !singleOwn && !facts.Supports(allNamespaces) {
		return fail("unsupported bundle: bundle does not support AllNamespaces install mode")
	}
	if !facts.Supports(allNamespaces) && !facts.Supports(singleNamespace) && !facts.Supports(ownNamespace) {
		return fail("unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes")
	}
	var watch *string
	if singleOwn || cfg != nil {
		var raw []byte
		if cfg != nil && cfg.ConfigType == "Inline" && cfg.Inline != nil {
			raw = cfg.Inline
		}
		w, err := validateConfig(raw, facts, e.Namespace, gates.Enabled(olmv1gate.DeploymentConfig))
		if err != nil {
			return fail("invalid ClusterExtension configuration: invalid configuration: %v", err)
		}
		watch = w
		if dc, ok := configValue(raw, "deploymentConfig"); ok && dc != nil && gates.Enabled(olmv1gate.DeploymentConfig) {
			ic.Notes = append(ic.Notes, "deploymentConfig is checked field by field, not the Kubernetes types inside each field")
		}
	}
	targets := []string(nil)
	if facts.Supports(allNamespaces) {
		targets = []string{""}
	}
	if watch != nil {
		targets = []string{*watch}
	}
	if err := checkTargets(facts, e.Namespace, targets); err != nil {
		return fail("invalid option(s): invalid target namespaces %v: %v", targets, err)
	}
	ic.Targets = targets
	return ic
}

// supportedModes lists the supported install modes in name order, as
// operator-controller prints them.
func supportedModes(facts model.CSVFacts) []string {
	var out []string
	for _, m := range facts.InstallModes {
		if m.Supported && !slices.Contains(out, m.Type) {
			out = append(out, m.Type)
		}
	}
	slices.Sort(out)
	return out
}

// checkTargets is operator-controller's check of the target namespaces
// against the bundle's install modes.
func checkTargets(facts model.CSVFacts, installNS string, targets []string) error {
	modes := supportedModes(facts)
	has := func(m string) bool { return slices.Contains(modes, m) }
	set := slices.Compact(slices.Sorted(slices.Values(targets)))
	switch {
	case len(set) == 0:
		if has(multiNamespace) {
			return errors.New("at least one target namespace must be specified")
		}
		return errors.New("exactly one target namespace must be specified")
	case len(set) == 1 && set[0] == "":
		if has(allNamespaces) {
			return nil
		}
		return fmt.Errorf("supported install modes %v do not support targeting all namespaces", modes)
	case len(set) == 1:
		if targets[0] == installNS {
			if !has(ownNamespace) {
				return fmt.Errorf("supported install modes %v do not support targeting own namespace", modes)
			}
			return nil
		}
		if has(singleNamespace) {
			return nil
		}
	}
	return fmt.Errorf("supported install modes %v do not support target namespaces %v", modes, targets)
}

// configValue reads a top-level field of the inline configuration.
func configValue(raw []byte, key string) (any, bool) {
	if raw == nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// schemaErr is one node of a JSON Schema validation error tree, worded as
// operator-controller words each node.
type schemaErr struct {
	msg      string
	children []*schemaErr
	// group marks a node that only gathers several errors.
	group bool
}

// group is what a validator returns for several errors: one error stands
// alone, several are grouped ("validation failed").
func group(errs []*schemaErr) *schemaErr {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return &schemaErr{msg: "validation failed", children: errs, group: true}
}

// flatten lists every node below the root, each followed by its own
// children, as the schema library's basic output does.
func (e *schemaErr) flatten(out []string) []string {
	out = append(out, e.msg)
	for _, c := range e.children {
		out = c.flatten(out)
	}
	return out
}

// validateConfig checks the inline configuration against the schema
// operator-controller builds for a registry+v1 bundle (watchNamespace per
// install mode, deploymentConfig behind its gate, nothing else), and
// returns the watchNamespace it sets, if any. The error is the message
// operator-controller gives after "invalid configuration: ".
func validateConfig(raw []byte, facts model.CSVFacts, installNS string, deploymentConfig bool) (*string, error) {
	if raw == nil {
		raw = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("invalid type: got %s, want object", jsonType(v))
	}
	own, single, all := facts.Supports(ownNamespace), facts.Supports(singleNamespace), facts.Supports(allNamespaces)
	configurable := own || single
	required := configurable && !all
	format := ""
	switch {
	case own && !single:
		format = "ownNamespaceInstallMode"
	case single && !own:
		format = "singleNamespaceInstallMode"
	}
	var errs []*schemaErr
	if _, has := obj["watchNamespace"]; required && !has {
		errs = append(errs, &schemaErr{msg: `required field "watchNamespace" is missing`})
	}
	var unknown []string
	for _, k := range sortedKeys(obj) {
		val := obj[k]
		switch {
		case k == "watchNamespace" && configurable:
			wn := watchNamespaceErr(val, format, installNS)
			if !required && val != nil && wn != nil {
				wn = &schemaErr{msg: `invalid value for field "watchNamespace"`, children: []*schemaErr{
					{msg: fmt.Sprintf(`invalid type for field "watchNamespace": got %s, want null`, jsonType(val))}, wn}}
			}
			if wn != nil {
				errs = append(errs, wn)
			}
		case k == "deploymentConfig" && deploymentConfig:
			if de := deploymentConfigErr(val); de != nil {
				errs = append(errs, de)
			}
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, &schemaErr{msg: fmt.Sprintf("unknown field %q", unknown[0])})
	}
	if root := group(errs); root != nil {
		// The library's result is a schema node whose causes are the
		// root's errors: a group there stands for its members.
		top := []*schemaErr{root}
		if root.group {
			top = root.children
		}
		var msgs []string
		for _, e := range top {
			msgs = e.flatten(msgs)
		}
		if len(msgs) == 1 {
			return nil, errors.New(msgs[0])
		}
		return nil, fmt.Errorf("multiple errors found:\n  - %s", strings.Join(msgs, "\n  - "))
	}
	if s, ok := obj["watchNamespace"].(string); ok && configurable {
		return &s, nil
	}
	return nil, nil
}

// watchNamespaceErr checks watchNamespace against its schema: a string,
// then the install-mode format (which alone is reported when it fails),
// then its length and pattern.
func watchNamespaceErr(val any, format, installNS string) *schemaErr {
	s, ok := val.(string)
	if !ok {
		if val == nil {
			return &schemaErr{msg: `required field "watchNamespace" is missing`}
		}
		return &schemaErr{msg: fmt.Sprintf(`invalid type for field "watchNamespace": got %s, want string`, jsonType(val))}
	}
	if installNS != "" {
		var ferr string
		switch {
		case format == "ownNamespaceInstallMode" && s != installNS:
			ferr = fmt.Sprintf("invalid value %q: must be %q (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode", s, installNS)
		case format == "singleNamespaceInstallMode" && s == installNS:
			ferr = fmt.Sprintf("invalid value %q: must be different from %q (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace", s, installNS)
		}
		if ferr != "" {
			return &schemaErr{msg: fmt.Sprintf(`invalid format for field "watchNamespace": %s is not valid %s: %s`, schemaQuote(s), format, ferr)}
		}
	}
	var errs []*schemaErr
	n := len([]rune(s))
	if n < 1 {
		errs = append(errs, &schemaErr{msg: fmt.Sprintf(`field "watchNamespace" must have minimum length of 1 (len=%d)`, n)})
	}
	if n > 63 {
		errs = append(errs, &schemaErr{msg: fmt.Sprintf(`field "watchNamespace" must have maximum length of 63 (len=%d)`, n)})
	}
	if !namespaceRE().MatchString(s) {
		errs = append(errs, &schemaErr{msg: fmt.Sprintf(`field "watchNamespace" must match pattern %q`, namespacePattern)})
	}
	return group(errs)
}

// deploymentConfigErr checks deploymentConfig's own fields and the type
// of each.
func deploymentConfigErr(val any) *schemaErr {
	if val == nil {
		return nil
	}
	obj, ok := val.(map[string]any)
	if !ok {
		return &schemaErr{msg: fmt.Sprintf(`invalid type for field "deploymentConfig": got %s, want object`, jsonType(val))}
	}
	var errs []*schemaErr
	var unknown []string
	for _, k := range sortedKeys(obj) {
		want, known := deploymentConfigFields[k]
		if !known {
			unknown = append(unknown, k)
			continue
		}
		got := jsonType(obj[k])
		if got != want {
			errs = append(errs, &schemaErr{msg: fmt.Sprintf(`invalid type for field "deploymentConfig.%s": got %s, want %s`, k, got, want)})
			continue
		}
		if k == "annotations" || k == "nodeSelector" {
			m := obj[k].(map[string]any)
			for _, mk := range sortedKeys(m) {
				if t := jsonType(m[mk]); t != "string" {
					errs = append(errs, &schemaErr{msg: fmt.Sprintf(`invalid type for field "deploymentConfig.%s.%s": got %s, want string`, k, mk, t)})
				}
			}
		}
		if want == "array" {
			for i, item := range obj[k].([]any) {
				if t := jsonType(item); t != "object" {
					errs = append(errs, &schemaErr{msg: fmt.Sprintf(`invalid type for field "deploymentConfig.%s.%d": got %s, want object`, k, i, t)})
				}
			}
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, &schemaErr{msg: fmt.Sprintf("unknown field %q", unknown[0])})
	}
	return group(errs)
}

// jsonType names a decoded JSON value's type as the schema library does
// (every number is "number").
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// schemaQuote quotes a value the schema library's way: single quotes,
// Go escapes.
func schemaQuote(s string) string {
	q := fmt.Sprintf("%q", s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}
