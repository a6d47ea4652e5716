package olmv1

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
)

// AdmissionError is one reason the API server refuses a ClusterExtension
// on create, in its words ("FIELD: Invalid value: ...").
type AdmissionError struct {
	// Field is the field's path (spec.source.catalog.version).
	Field   string
	Message string
	// Pos is where the field (or the nearest part of it the manifest
	// has) is written.
	Pos declcfg.Pos
}

func (e AdmissionError) Error() string { return e.Message }

// Admission is what the API server does with a ClusterExtension on create.
type Admission struct {
	// Errors refuse the object; empty when it is admitted.
	Errors []AdmissionError
	// Unchecked is set when errors of the schema kept the API server from
	// running the CRD's CEL rules, which may refuse more once those are
	// corrected.
	Unchecked bool
	// Pruned are fields the CRD does not define: the API server drops
	// them (or refuses the object under strict field validation, kubectl's
	// default).
	Pruned []AdmissionError
	// Experimental is set when the object was checked against the
	// experimental CRD (an alpha feature gate is on).
	Experimental bool
}

// Allowed reports whether the API server admits the object.
func (a *Admission) Allowed() bool { return len(a.Errors) == 0 }

// schema is the part of the ClusterExtension CRD's OpenAPI schema that
// admission checks: types, required fields, enums, lengths, counts,
// bounds, defaults, and the x-kubernetes-validations CEL rules.
type schema struct {
	typ          string
	props        []prop
	required     []string
	enum         []string
	def          string
	minLength    int
	maxLength    int
	maxItems     int
	minProps     int
	min, max     *int64
	items        *schema
	additional   *schema
	preserve     bool
	rules        []celRule
	experimental bool
}

type prop struct {
	name string
	s    *schema
}

type celRule struct{ rule, message string }

func i64(v int64) *int64 { return &v }

func object(required []string, props ...prop) *schema {
	return &schema{typ: "object", props: props, required: required}
}

func p(name string, s *schema) prop { return prop{name, s} }

func withRules(s *schema, rules ...celRule) *schema {
	s.rules = append(s.rules, rules...)
	return s
}

func matches(pattern string) string { return "self.matches(" + strconv.Quote(pattern) + ")" }

const subdomainMessage = "must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters"

// clusterExtensionSchema is the v1 ClusterExtension schema of
// operator-controller v1.11's CRD (the experimental CRD adds the fields
// marked experimental). Rules that compare with oldSelf (immutability)
// apply to updates only and are left out.
var clusterExtensionSchema = sync.OnceValue(func() *schema {
	subdomain := matches("^" + dns1123Subdomain + "$")
	str := func() *schema { return &schema{typ: "string"} }
	config := withRules(object([]string{"configType"},
		p("configType", &schema{typ: "string", enum: []string{"Inline"}}),
		p("inline", &schema{typ: "object", minProps: 1, preserve: true}),
	), celRule{"has(self.configType) && self.configType == 'Inline' ?has(self.inline) : !has(self.inline)", "inline is required when configType is Inline, and forbidden otherwise"})
	config.experimental = true
	install := withRules(object(nil,
		p("preflight", withRules(object([]string{"crdUpgradeSafety"},
			p("crdUpgradeSafety", object([]string{"enforcement"},
				p("enforcement", &schema{typ: "string", enum: []string{"None", "Strict"}}))),
		), celRule{"has(self.crdUpgradeSafety)", "at least one of [crdUpgradeSafety] are required when preflight is specified"})),
	), celRule{"has(self.preflight)", "at least one of [preflight] are required when install is specified"})
	selector := object(nil,
		p("matchExpressions", &schema{typ: "array", items: object([]string{"key", "operator"},
			p("key", str()), p("operator", str()), p("values", &schema{typ: "array", items: str()}))}),
		p("matchLabels", &schema{typ: "object", additional: str()}),
	)
	catalog := object([]string{"packageName"},
		p("channels", &schema{typ: "array", maxItems: 256, items: withRules(&schema{typ: "string", maxLength: 253},
			celRule{subdomain, "channels entries must be valid DNS1123 subdomains"})}),
		p("packageName", withRules(&schema{typ: "string", maxLength: 253}, celRule{subdomain, "packageName " + subdomainMessage})),
		p("selector", selector),
		p("upgradeConstraintPolicy", &schema{typ: "string", enum: []string{"CatalogProvided", "SelfCertified"}, def: "CatalogProvided"}),
		p("version", withRules(&schema{typ: "string", maxLength: 64}, celRule{matches(graph.VersionExpressionPattern), "invalid version expression"})),
	)
	source := withRules(object([]string{"sourceType"},
		p("catalog", catalog),
		p("sourceType", &schema{typ: "string", enum: []string{"Catalog"}}),
	), celRule{"has(self.sourceType) && self.sourceType == 'Catalog' ? has(self.catalog) : !has(self.catalog)", "catalog is required when sourceType is Catalog, and forbidden otherwise"})
	progress := &schema{typ: "integer", min: i64(10), max: i64(720), experimental: true}
	spec := object([]string{"namespace", "source"},
		p("config", config),
		p("install", install),
		p("namespace", withRules(&schema{typ: "string", maxLength: 63}, celRule{matches("^" + dns1123Label + "$"), "namespace must be a valid DNS1123 label"})),
		p("progressDeadlineMinutes", progress),
		p("serviceAccount", &schema{typ: "object", minProps: 1, props: []prop{
			p("name", withRules(&schema{typ: "string", minLength: 1, maxLength: 253}, celRule{subdomain, "name " + subdomainMessage})),
		}}),
		p("source", source),
	)
	return object(nil,
		p("apiVersion", str()), p("kind", str()),
		p("metadata", &schema{typ: "object", preserve: true}),
		p("spec", spec),
		// status is the status subresource's: the API server drops it
		// on create.
	)
})

// compiledRules holds each CEL rule's program, compiled once.
var compiledRules = sync.OnceValues(func() (map[string]cel.Program, error) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		return nil, err
	}
	progs := map[string]cel.Program{}
	var walk func(s *schema) error
	walk = func(s *schema) error {
		if s == nil {
			return nil
		}
		for _, r := range s.rules {
			if _, ok := progs[r.rule]; ok {
				continue
			}
			ast, iss := env.Compile(r.rule)
			if iss.Err() != nil {
				return fmt.Errorf("rule %s: %w", r.rule, iss.Err())
			}
			prg, err := env.Program(ast)
			if err != nil {
				return err
			}
			progs[r.rule] = prg
		}
		for _, pr := range s.props {
			if err := walk(pr.s); err != nil {
				return err
			}
		}
		if err := walk(s.items); err != nil {
			return err
		}
		return walk(s.additional)
	}
	return progs, walk(clusterExtensionSchema())
})

// Admit checks the extension the way the API server does on create:
// metadata.name, then the CRD's schema (defaults applied, nulls dropped,
// unknown fields pruned), then, when the schema found nothing that blocks
// them, its CEL rules. experimental selects the experimental CRD, which
// operator-controller installs with its alpha features.
func (e *ClusterExtension) Admit(experimental bool) *Admission {
	a := &Admission{Experimental: experimental}
	if msgs := subdomainErrors(e.Name); len(msgs) > 0 {
		for _, m := range msgs {
			a.Errors = append(a.Errors, AdmissionError{Field: "metadata.name", Message: fmt.Sprintf("metadata.name: Invalid value: %q: %s", e.Name, m), Pos: e.FieldPos("metadata", "name")})
		}
	}
	v := &validator{e: e, experimental: experimental, a: a}
	obj := cloneValue(e.object).(map[string]any)
	delete(obj, "status") // the status subresource's; dropped on create
	v.schemaWalk(clusterExtensionSchema(), obj, nil)
	blocking := false
	for _, err := range v.schemaErrs {
		if err.blocking {
			blocking = true
		}
	}
	slices.SortStableFunc(v.schemaErrs, func(x, y fieldErr) int { return strings.Compare(x.Field, y.Field) })
	for _, err := range v.schemaErrs {
		a.Errors = append(a.Errors, err.AdmissionError)
	}
	if blocking {
		a.Unchecked = true
		return a
	}
	progs, err := compiledRules()
	if err != nil {
		// The rules are fixed text; a failure to compile them is a bug.
		panic(err)
	}
	v.celWalk(progs, clusterExtensionSchema(), obj, nil)
	return a
}

type fieldErr struct {
	AdmissionError
	blocking bool
}

type validator struct {
	e            *ClusterExtension
	experimental bool
	a            *Admission
	schemaErrs   []fieldErr
}

// fieldPath renders a path the way apimachinery does: names joined by
// dots, indexes in brackets.
func fieldPath(path []string) string {
	var b strings.Builder
	for _, p := range path {
		if strings.HasPrefix(p, "[") {
			b.WriteString(p)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// nodePath turns a field path into FieldPos's (indexes without brackets).
func nodePath(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		out[i] = strings.Trim(p, "[]")
	}
	return out
}

func (v *validator) add(path []string, blocking bool, format string, args ...any) {
	f := fieldPath(path)
	v.schemaErrs = append(v.schemaErrs, fieldErr{AdmissionError{Field: f, Message: f + ": " + fmt.Sprintf(format, args...), Pos: v.e.FieldPos(nodePath(path)...)}, blocking})
}

func child(path []string, name string) []string { return append(slices.Clip(path), name) }

// schemaWalk is the OpenAPI part: it fills defaults and drops nulls and
// unknown fields in place, as the API server does before it validates.
func (v *validator) schemaWalk(s *schema, val any, path []string) {
	if got := typeName(val); !typeMatches(s.typ, val) {
		v.add(path, true, "Invalid value: %q: %s in body must be of type %s: %q", got, fieldPath(path), s.typ, got)
		return
	}
	switch x := val.(type) {
	case string:
		if len(s.enum) > 0 && !slices.Contains(s.enum, x) {
			quoted := make([]string, len(s.enum))
			for i, e := range s.enum {
				quoted[i] = strconv.Quote(e)
			}
			v.add(path, true, "Unsupported value: %q: supported values: %s", x, strings.Join(quoted, ", "))
		}
		if s.maxLength > 0 && len(x) > s.maxLength {
			v.add(path, true, "Too long: may not be more than %d bytes", s.maxLength)
		}
		if s.minLength > 0 && len(x) < s.minLength {
			v.add(path, false, "Invalid value: %q: %s in body should be at least %d chars long", x, fieldPath(path), s.minLength)
		}
	case int64:
		if s.min != nil && x < *s.min {
			v.add(path, false, "Invalid value: %d: %s in body should be greater than or equal to %d", x, fieldPath(path), *s.min)
		}
		if s.max != nil && x > *s.max {
			v.add(path, false, "Invalid value: %d: %s in body should be less than or equal to %d", x, fieldPath(path), *s.max)
		}
	case []any:
		if s.maxItems > 0 && len(x) > s.maxItems {
			v.add(path, true, "Too many: %d: must have at most %d items", len(x), s.maxItems)
		}
		for i, item := range x {
			if item == nil {
				continue
			}
			v.schemaWalk(s.items, item, child(path, "["+strconv.Itoa(i)+"]"))
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if x[k] == nil {
				delete(x, k) // nulls of non-nullable fields are dropped
			}
		}
		for _, pr := range s.props {
			if pr.s.def != "" && (!pr.s.experimental || v.experimental) {
				if _, ok := x[pr.name]; !ok {
					x[pr.name] = pr.s.def
				}
			}
		}
		for _, r := range s.required {
			if _, ok := x[r]; !ok {
				v.add(child(path, r), true, "Required value")
			}
		}
		if s.minProps > 0 && len(x) < s.minProps {
			v.add(path, false, "Invalid value: %d: %s in body should have at least %d properties", len(x), fieldPath(path), s.minProps)
		}
		if s.preserve {
			return
		}
		for _, k := range sortedKeys(x) {
			cp := child(path, k)
			var sub *schema
			for _, pr := range s.props {
				if pr.name == k && (!pr.s.experimental || v.experimental) {
					sub = pr.s
				}
			}
			if sub == nil && s.additional != nil {
				sub = s.additional
				cp = child(path, "["+k+"]")
			}
			if sub == nil {
				f := fieldPath(cp)
				msg := fmt.Sprintf("unknown field %q", f)
				if !v.experimental && slices.Contains([]string{"spec.config", "spec.progressDeadlineMinutes"}, f) {
					msg += ": only the experimental ClusterExtension CRD has it (installed with operator-controller's alpha features)"
				}
				v.a.Pruned = append(v.a.Pruned, AdmissionError{Field: f, Message: msg, Pos: v.e.FieldPos(nodePath(cp)...)})
				delete(x, k)
				continue
			}
			v.schemaWalk(sub, x[k], cp)
		}
	}
}

func typeMatches(typ string, val any) bool {
	switch typ {
	case "object":
		_, ok := val.(map[string]any)
		return ok
	case "array":
		_, ok := val.([]any)
		return ok
	case "string":
		_, ok := val.(string)
		return ok
	case "integer":
		_, ok := val.(int64)
		return ok
	case "boolean":
		_, ok := val.(bool)
		return ok
	}
	return true
}

// celWalk runs the rules of every field the object has.
func (v *validator) celWalk(progs map[string]cel.Program, s *schema, val any, path []string) {
	if s == nil || val == nil {
		return
	}
	for _, r := range s.rules {
		out, _, err := progs[r.rule].Eval(map[string]any{"self": val})
		f := fieldPath(path)
		pos := v.e.FieldPos(nodePath(path)...)
		switch {
		case err != nil:
			v.a.Errors = append(v.a.Errors, AdmissionError{Field: f, Message: fmt.Sprintf("%s: Invalid value: %q: %v evaluating rule: %s", f, s.typ, err, r.message), Pos: pos})
		case out != types.True:
			bad := "Invalid value"
			if s.typ != "object" && s.typ != "array" {
				bad += ": " + quoteValue(val)
			}
			v.a.Errors = append(v.a.Errors, AdmissionError{Field: f, Message: fmt.Sprintf("%s: %s: %s", f, bad, r.message), Pos: pos})
		}
	}
	switch x := val.(type) {
	case []any:
		for i, item := range x {
			v.celWalk(progs, s.items, item, child(path, "["+strconv.Itoa(i)+"]"))
		}
	case map[string]any:
		if s.preserve {
			return
		}
		for _, pr := range s.props {
			if sub, ok := x[pr.name]; ok {
				v.celWalk(progs, pr.s, sub, child(path, pr.name))
			}
		}
	}
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e)
		}
		return s
	}
	return v
}
