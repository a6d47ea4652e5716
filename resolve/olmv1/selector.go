package olmv1

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// matcher is a compiled catalog selector.
type matcher func(labels map[string]string) bool

// compile turns the selector into a matcher the way operator-controller
// does (apimachinery's LabelSelectorAsSelector): no selector and an empty
// one select every catalog; keys and values must be valid label keys and
// values, In and NotIn need values, Exists and DoesNotExist take none. The
// error is apimachinery's wording. matchLabels are checked in key order
// (the API's map has none, so a cluster may name another bad key first).
func (s *LabelSelector) compile() (matcher, error) {
	if s == nil || len(s.MatchLabels)+len(s.MatchExpressions) == 0 {
		return func(map[string]string) bool { return true }, nil
	}
	var reqs []SelectorRequirement
	for _, k := range sortedKeys(s.MatchLabels) {
		r := SelectorRequirement{Key: k, Operator: "=", Values: []string{s.MatchLabels[k]}}
		if err := r.check(); err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	for _, r := range s.MatchExpressions {
		switch r.Operator {
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", r.Operator)
		}
		if err := r.check(); err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return func(labels map[string]string) bool {
		for _, r := range reqs {
			if !r.matches(labels) {
				return false
			}
		}
		return true
	}, nil
}

func (r SelectorRequirement) matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case "=", "In":
		return ok && slices.Contains(r.Values, v)
	case "NotIn":
		return !ok || !slices.Contains(r.Values, v)
	case "Exists":
		return ok
	case "DoesNotExist":
		return !ok
	}
	return false
}

// Matches reports whether a set of labels matches the selector; a
// selector that is not valid matches nothing.
func (s *LabelSelector) Matches(labels map[string]string) bool {
	m, err := s.compile()
	return err == nil && m(labels)
}

// check is apimachinery's NewRequirement validation, with its messages.
func (r SelectorRequirement) check() error {
	var errs []string
	if msgs := labelKeyErrors(r.Key); len(msgs) > 0 {
		errs = append(errs, fmt.Sprintf("key: Invalid value: %q: %s", r.Key, strings.Join(msgs, "; ")))
	}
	vals := quoteValue(anySlice(r.Values))
	switch r.Operator {
	case "In", "NotIn":
		if len(r.Values) == 0 {
			errs = append(errs, fmt.Sprintf("values: Invalid value: %s: for 'in', 'notin' operators, values set can't be empty", vals))
		}
	case "Exists", "DoesNotExist":
		if len(r.Values) != 0 {
			errs = append(errs, fmt.Sprintf("values: Invalid value: %s: values set must be empty for exists and does not exist", vals))
		}
	}
	for i, v := range r.Values {
		if msgs := labelValueErrors(v); len(msgs) > 0 {
			errs = append(errs, fmt.Sprintf("values[%d][%s]: Invalid value: %q: %s", i, r.Key, v, strings.Join(msgs, "; ")))
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", errs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(errs, ", "))
}

func anySlice(ss []string) any {
	if ss == nil {
		return nil
	}
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

const (
	labelKeyFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt  = "(" + labelKeyFmt + ")?"
	dns1123Label   = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	// DNS1123Subdomain is a Kubernetes object name's pattern.
	dns1123Subdomain = dns1123Label + "(\\." + dns1123Label + ")*"
)

var (
	labelKeyRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^" + labelKeyFmt + "$") })
	labelValueRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^" + labelValueFmt + "$") })
	subdomainRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^" + dns1123Subdomain + "$") })
)

// regexError words a pattern mismatch as apimachinery does.
func regexError(msg, fmtStr string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + fmtStr + "')")
	return b.String()
}

// subdomainErrors are apimachinery's reasons a name is not a DNS-1123
// subdomain.
func subdomainErrors(s string) []string {
	var errs []string
	if len(s) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !subdomainRE().MatchString(s) {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123Subdomain, "example.com"))
	}
	return errs
}

func labelKeyErrors(key string) []string {
	var errs []string
	parts := strings.Split(key, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range subdomainErrors(prefix) {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part must be no more than 63 characters")
	}
	if !labelKeyRE().MatchString(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !labelValueRE().MatchString(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}
