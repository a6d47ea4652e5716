package olmv1

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// FuzzClusterExtension parses ClusterExtension manifests and runs what
// operator-controller runs on them without a catalog: admission under both
// CRDs, the catalog selector, and the inline configuration against every
// install-mode schema. Nothing may panic; an admitted object has no
// errors, and every error names its field.
func FuzzClusterExtension(f *testing.F) {
	seeds := []string{
		`{"metadata":{"name":"e"},"spec":{"namespace":"ns","source":{"sourceType":"Catalog","catalog":{"packageName":"p","version":"1.*.*","channels":["Stable"],"upgradeConstraintPolicy":"X"}}}}`,
		`{"metadata":{"name":"e"},"spec":{"namespace":"ns","config":{"configType":"Inline","inline":{"watchNamespace":"ns","deploymentConfig":{"env":[1]}}},"source":{"sourceType":"Catalog","catalog":{"packageName":"p","selector":{"matchLabels":{"a/b/c":"x"},"matchExpressions":[{"key":"k","operator":"Exists","values":["v"]}]}}}}}`,
		`{"metadata":{"name":"E"},"spec":{"source":{"sourceType":"Other","catalog":7},"serviceAccount":{},"install":{"preflight":{}},"progressDeadlineMinutes":5}}`,
		`{"metadata":{"name":"e"},"spec":{"namespace":null,"source":{"catalog":{"packageName":null,"channels":[null,"a"]}}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	modes := [][]model.InstallMode{nil, {{Type: "AllNamespaces", Supported: true}}, {{Type: "OwnNamespace", Supported: true}},
		{{Type: "SingleNamespace", Supported: true}, {Type: "OwnNamespace", Supported: true}}, {{Type: "AllNamespaces", Supported: true}, {Type: "SingleNamespace", Supported: true}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 || !json.Valid(data) {
			return
		}
		e, err := ParseClusterExtension(declcfg.Pos{File: "e.json", Line: 1, Col: 1}, data, nil)
		if err != nil {
			return
		}
		for _, exp := range []bool{false, true} {
			a := e.Admit(exp)
			for _, ae := range a.Errors {
				if !strings.HasPrefix(ae.Message, ae.Field+": ") {
					t.Fatalf("error %q does not start with its field %q", ae.Message, ae.Field)
				}
			}
		}
		_, _ = e.Selector.compile()
		if e.Config != nil {
			for _, m := range modes {
				for _, dc := range []bool{false, true} {
					w, err := validateConfig(e.Config.Inline, model.CSVFacts{Source: "csv", InstallModes: m}, e.Namespace, dc)
					if err != nil && w != nil {
						t.Fatalf("both a watch namespace and an error: %v", err)
					}
				}
			}
		}
	})
}
