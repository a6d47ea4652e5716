package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"

	"github.com/fbc-project/fbc/internal/olmcel"
	"github.com/fbc-project/fbc/resolve/internal/constraints"
)

// A predicate is one dependency of a bundle: "at least one bundle matching
// it must be installed". String is OLM's wording, which its messages quote
// after "requires an operator ".
type predicate interface {
	test(e *entry) bool
	String() string
}

type gvkPredicate gvk

func (p gvkPredicate) test(e *entry) bool {
	for _, g := range e.gvks {
		if g == gvk(p) {
			return true
		}
	}
	return false
}

func (p gvkPredicate) String() string {
	return fmt.Sprintf("providing an API with group: %s, version: %s, kind: %s", p.Group, p.Version, p.Kind)
}

type packagePredicate string

func (p packagePredicate) test(e *entry) bool {
	for _, id := range e.packages {
		if id.name == string(p) {
			return true
		}
	}
	return e.pkg == string(p)
}

func (p packagePredicate) String() string { return "with package: " + string(p) }

type versionPredicate struct {
	r    semver.Range
	text string
}

func (p versionPredicate) test(e *entry) bool {
	for _, id := range e.packages {
		if id.version != nil && p.r(*id.version) {
			return true
		}
	}
	return e.version != nil && p.r(*e.version)
}

func (p versionPredicate) String() string { return "with version in range: " + p.text }

type labelPredicate string

func (p labelPredicate) test(e *entry) bool {
	for _, l := range e.labels {
		if l == string(p) {
			return true
		}
	}
	return false
}

func (p labelPredicate) String() string { return "with label: " + string(p) }

type andPredicate []predicate

func (p andPredicate) test(e *entry) bool {
	for _, q := range p {
		if !q.test(e) {
			return false
		}
	}
	return true
}

func (p andPredicate) String() string { return joinPredicates(p, " and ") }

type orPredicate []predicate

func (p orPredicate) test(e *entry) bool {
	for _, q := range p {
		if q.test(e) {
			return true
		}
	}
	return false
}

func (p orPredicate) String() string { return joinPredicates(p, " or ") }

// notPredicate matches a bundle that matches none of its children.
type notPredicate []predicate

func (p notPredicate) test(e *entry) bool { return !orPredicate(p).test(e) }

func (p notPredicate) String() string { return joinPredicates(p, " and not ") }

func joinPredicates(ps []predicate, sep string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, sep)
}

type celPredicate struct {
	program        cel.Program
	rule           string
	failureMessage string
}

func (p celPredicate) test(e *entry) bool { return olmcel.Matches(p.program, e.celProperties()) }

// String is the one place OLM shows a constraint's failureMessage.
func (p celPredicate) String() string {
	return fmt.Sprintf("with constraint: %q and message: %q", p.rule, p.failureMessage)
}

// dependencyPredicates turns a bundle's dependency properties into
// predicates, in property order. Unknown property types are no dependency.
// Any error makes OLM give up the whole resolution.
func dependencyPredicates(props []Property) ([]predicate, error) {
	var out []predicate
	for _, p := range props {
		var (
			pred predicate
			err  error
		)
		switch p.Type {
		case typeGVKRequired:
			var v requiredGVK
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred = gvkPredicate{Group: v.Group, Version: v.Version, Kind: v.Kind}
			}
		case typePackageRequired:
			var v requiredPackage
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred, err = packageRangePredicate(v.PackageName, v.VersionRange)
			}
		case typeLabelRequired:
			var v struct {
				Label string `json:"label"`
			}
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred = labelPredicate(v.Label)
			}
		case typeConstraint:
			pred, err = constraintPredicate(p.Value)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, pred)
	}
	return out, nil
}

func packageRangePredicate(name, versionRange string) (predicate, error) {
	r, err := semver.ParseRange(versionRange)
	if err != nil {
		return nil, err
	}
	return andPredicate{packagePredicate(name), versionPredicate{r: r, text: versionRange}}, nil
}

// constraintPredicate reads an olm.constraint value.
func constraintPredicate(value []byte) (predicate, error) {
	c, err := constraints.Parse(value)
	if err != nil {
		return nil, fmt.Errorf("parse olm.constraint: %v", err)
	}
	ps, err := convertConstraints([]constraints.Constraint{c})
	if err != nil {
		return nil, fmt.Errorf("convert olm.constraint to resolver predicate: %v", err)
	}
	return ps[0], nil
}

var errEmptyConstraint = errors.New("constraint is empty")

func convertConstraints(cs []constraints.Constraint) ([]predicate, error) {
	out := make([]predicate, len(cs))
	for i, c := range cs {
		var err error
		switch {
		case c.GVK != nil:
			out[i] = gvkPredicate{Group: c.GVK.Group, Version: c.GVK.Version, Kind: c.GVK.Kind}
		case c.Package != nil:
			out[i], err = packageRangePredicate(c.Package.PackageName, c.Package.VersionRange)
		case c.All != nil:
			var ps []predicate
			ps, err = convertConstraints(c.All.Constraints)
			out[i] = andPredicate(ps)
		case c.Any != nil:
			var ps []predicate
			ps, err = convertConstraints(c.Any.Constraints)
			out[i] = orPredicate(ps)
		case c.Not != nil:
			var ps []predicate
			ps, err = convertConstraints(c.Not.Constraints)
			out[i] = notPredicate(ps)
		case c.Cel != nil:
			var prg cel.Program
			if prg, err = olmcel.Program(c.Cel.Rule); err == nil {
				out[i] = celPredicate{program: prg, rule: c.Cel.Rule, failureMessage: c.FailureMessage}
			}
		default:
			return nil, errEmptyConstraint
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
