package repo

import (
	"errors"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// FuzzParseSettings: ci.yaml, release-config.yaml and config.yaml parse
// any bytes without panicking, and every problem they report names the
// file, with a line when the text has one to point at.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{
		"fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: a.yaml\n      type: olm.semver\n      catalog_names: [v4.18]\n",
		"catalog_templates:\n  - template_name: a.yaml\n    channels: [stable]\n    replaces: x\n    skips: [y]\n    skipRange: '<1.0.0'\n",
		"organization: community-operators\nallowed_bundle_registries: [quay.io/x/]\n",
		"fbc: [\n", "- a\n", "a: &x [*x]\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		check := func(what string, err error) {
			if err == nil {
				return
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("%s: error of type %T: %v", what, err, err)
			}
			for _, p := range ps {
				if p.File != "f.yaml" || p.Rule != RuleConfig || p.Severity != declcfg.SeverityError {
					t.Fatalf("%s: problem without its file, rule or severity: %+v", what, p)
				}
			}
		}
		_, err := ParseCI("f.yaml", data)
		check("ci.yaml", err)
		_, err = ParseReleaseConfig("f.yaml", data)
		check("release-config.yaml", err)
		_, err = ParseConfig("f.yaml", data)
		check("config.yaml", err)
	})
}
