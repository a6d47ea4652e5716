// Command fbc-profile runs the bundle-content profiles (operator-sdk's
// validators, OperatorHub's rules, good practices, removed Kubernetes
// APIs, what OLM v1 refuses, CRD upgrade safety) for fbc validate
// --profile. It is fbc's sibling executable, installed beside it (make
// install, or go install ./...): the checks need operator-framework/api,
// crdify and the Kubernetes libraries, which fbc itself does not link.
// fbc runs it and talks to it over standard input and output
// (validate/profiles documents the protocol).
package main

import (
	"os"

	"github.com/fbc-project/fbc/validate/profile"
)

func main() { os.Exit(profile.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
