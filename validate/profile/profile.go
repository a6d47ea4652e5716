// Package profile checks what bundles hold against named profiles: the
// verdicts of operator-sdk's validators (github.com/operator-framework/api),
// OperatorHub's metadata rules, good practices, Kubernetes APIs a cluster
// version no longer serves, what OLM v1 (operator-controller) refuses, and
// CRD upgrade safety along a catalog's upgrade edges. It implements
// validate.ProfileChecker; it is the only package that needs the Kubernetes
// libraries, so the rest of validate builds and runs without them.
package profile

import "github.com/fbc-project/fbc/validate/profiles"

// The profile names and sets are validate/profiles' (fbc parses --profile
// without linking these checks); these aliases name them here.
type (
	Name = profiles.Name
	Set  = profiles.Set
)

const (
	OperatorFramework = profiles.OperatorFramework
	OperatorHub       = profiles.OperatorHub
	GoodPractices     = profiles.GoodPractices
	OLMv1             = profiles.OLMv1
	K8sVersion        = profiles.K8sVersion
)

// Of makes a set from names.
func Of(names ...Name) Set { return profiles.Of(names...) }
