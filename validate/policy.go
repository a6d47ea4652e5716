package validate

import (
	"errors"
	"fmt"

	"cuelang.org/go/cue"
	"github.com/fbc-project/fbc/declcfg"

	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/validate/internal/cueshape"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// A policy is the CUE of one policy directory (fbc validate --schema): the user's own rules, on
// top of the built-in shapes. The directory's .cue files form one CUE
// package (or have no package clause); imports of CUE's standard library
// work. Two top-level fields are read, with the same conventions as the
// built-in schema:
//
//	// schemas maps a blob schema to a constraint every blob of that schema
//	// must satisfy: a policy on a known schema, or the definition of your own.
//	schemas: "olm.bundle": {
//		// every bundle image is pinned by digest
//		image: =~"@sha256:[a-f0-9]{64}$"
//	}
//	schemas: "acme.owners": close({
//		schema:   "acme.owners"
//		package!: string
//		owners!: [...string & =~"@"]
//	})
//
//	// properties maps a property type to a constraint on its value, for
//	// the properties of packages, channels and bundles.
//	properties: "acme.io/tier": {level!: int & >=1 & <=3}
//
// A policy need not repeat the built-in shape: it is checked in addition to
// it. Open structs (as above) constrain only the fields they name; closed
// ones (close(...) or a #definition) also reject fields they do not list.
// A field the policy names without ? must be present (CUE reports it as
// incomplete). Every violation is a diagnostic of rule policy at the
// offending node, with CUE's message. Blobs are evaluated in full CUE, so a
// policy may use any CUE feature.
type policy struct {
	dir        string
	rt         *cueshape.Runtime
	schemas    map[string]cue.Value
	properties map[string]cue.Value
}

// PolicyError is a policy directory that cannot be used: its CUE does not
// compile, or it defines nothing to check.
type PolicyError struct {
	Dir string
	Err error
}

func (e *PolicyError) Error() string { return fmt.Sprintf("policy %s: %v", e.Dir, e.Err) }
func (e *PolicyError) Unwrap() error { return e.Err }

func loadPolicy(dir string) (*policy, error) {
	rt := cueshape.NewRuntime()
	v, err := rt.Load(safefs.DirFS(dir), ".", dir) // a FIFO named *.cue must not block
	if err != nil {
		return nil, &PolicyError{Dir: dir, Err: err}
	}
	p := &policy{dir: dir, rt: rt}
	var hasSchemas, hasProps bool
	if p.schemas, hasSchemas, err = cueshape.Fields(v, "schemas"); err != nil {
		return nil, &PolicyError{Dir: dir, Err: err}
	}
	if p.properties, hasProps, err = cueshape.Fields(v, "properties"); err != nil {
		return nil, &PolicyError{Dir: dir, Err: err}
	}
	if !hasSchemas && !hasProps {
		return nil, &PolicyError{Dir: dir, Err: errors.New("defines neither `schemas` nor `properties`, so it checks nothing (see docs/validate.md)")}
	}
	return p, nil
}

func (p *policy) definesSchema(s string) bool   { _, ok := p.schemas[s]; return ok }
func (p *policy) definesProperty(t string) bool { _, ok := p.properties[t]; return ok }

// checkBlob evaluates the policy's constraints on a blob and its properties.
func (p *policy) checkBlob(d *docContext, root *declcfg.Node, schema string, props []propertyNode) {
	if s, ok := p.schemas[schema]; ok {
		p.eval(d, s, root, nil)
	}
	for _, pr := range props {
		if s, ok := p.properties[pr.typ]; ok && !declcfg.IsNull(pr.value) {
			p.eval(d, s, pr.value, pr.path())
		}
	}
}

func (p *policy) eval(d *docContext, s cue.Value, n *declcfg.Node, fp *shape.Path) {
	cueshape.Eval(p.rt, s, n, fp, func(_ string, at *declcfg.Node, _ *shape.Path, msg string) {
		d.report(RulePolicy, at, fmt.Sprintf("%s (policy in %s)", msg, p.dir))
	})
}
