package olmv1

import (
	"testing"

	"github.com/fbc-project/fbc/model"
)

// TestValidateConfig holds the inline configuration check to the schema
// operator-controller builds from install modes, with its messages (those
// its own tests and e2e scenarios show).
func TestValidateConfig(t *testing.T) {
	t.Parallel()
	modes := func(supported ...string) model.CSVFacts {
		f := model.CSVFacts{Source: "csv"}
		for _, s := range supported {
			f.InstallModes = append(f.InstallModes, model.InstallMode{Type: s, Supported: true})
		}
		return f
	}
	const pattern = `field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"`
	for _, tc := range []struct {
		name   string
		facts  model.CSVFacts
		config string
		dc     bool
		want   string
		watch  string
	}{
		{"all only, nothing", modes(allNamespaces), ``, false, "", ""},
		{"all only, watchNamespace", modes(allNamespaces), `{"watchNamespace":"ns"}`, false, `unknown field "watchNamespace"`, ""},
		{"own only, missing", modes(ownNamespace), `{}`, false, `required field "watchNamespace" is missing`, ""},
		{"own only, null", modes(ownNamespace), `{"watchNamespace":null}`, false, `required field "watchNamespace" is missing`, ""},
		{"own only, other", modes(ownNamespace), `{"watchNamespace":"other"}`, false,
			`invalid format for field "watchNamespace": 'other' is not valid ownNamespaceInstallMode: invalid value "other": must be "ns" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`, ""},
		{"own only, own", modes(ownNamespace), `{"watchNamespace":"ns"}`, false, "", "ns"},
		{"single only, own", modes(singleNamespace), `{"watchNamespace":"ns"}`, false,
			`invalid format for field "watchNamespace": 'ns' is not valid singleNamespaceInstallMode: invalid value "ns": must be different from "ns" (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace`, ""},
		{"single only, bad name", modes(singleNamespace), `{"watchNamespace":"invalid-namespace-"}`, false, pattern, ""},
		{"single only, number", modes(singleNamespace), `{"watchNamespace":123}`, false, `invalid type for field "watchNamespace": got number, want string`, ""},
		{"single and own, too long and bad", modes(singleNamespace, ownNamespace), `{"watchNamespace":"` + string(make64A()) + `"}`, false,
			"multiple errors found:\n  - field \"watchNamespace\" must have maximum length of 63 (len=64)\n  - " + pattern, ""},
		{"all and own, optional", modes(allNamespaces, ownNamespace), `{}`, false, "", ""},
		{"all and own, own", modes(allNamespaces, ownNamespace), `{"watchNamespace":"ns"}`, false, "", "ns"},
		{"all and own, other", modes(allNamespaces, ownNamespace), `{"watchNamespace":"other"}`, false,
			"multiple errors found:\n  - invalid value for field \"watchNamespace\"\n  - invalid type for field \"watchNamespace\": got string, want null\n  - invalid format for field \"watchNamespace\": 'other' is not valid ownNamespaceInstallMode: invalid value \"other\": must be \"ns\" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode", ""},
		{"unknown and missing", modes(ownNamespace), `{"b":1,"a":2}`, false, "multiple errors found:\n  - required field \"watchNamespace\" is missing\n  - unknown field \"a\"", ""},
		{"deploymentConfig off", modes(allNamespaces), `{"deploymentConfig":{}}`, false, `unknown field "deploymentConfig"`, ""},
		{"deploymentConfig on", modes(allNamespaces), `{"deploymentConfig":{"nodeSelector":{"a":"b"}}}`, true, "", ""},
		{"deploymentConfig unknown field", modes(allNamespaces), `{"deploymentConfig":{"selector":{}}}`, true, `unknown field "selector"`, ""},
		{"not an object", modes(allNamespaces), `true`, false, "invalid type: got boolean, want object", ""},
	} {
		var raw []byte
		if tc.config != "" {
			raw = []byte(tc.config)
		}
		w, err := validateConfig(raw, tc.facts, "ns", tc.dc)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: error\n got %q\nwant %q", tc.name, got, tc.want)
		}
		gotW := ""
		if w != nil {
			gotW = *w
		}
		if gotW != tc.watch {
			t.Errorf("%s: watchNamespace %q, want %q", tc.name, gotW, tc.watch)
		}
	}
}

func make64A() []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = 'A'
	}
	return b
}
