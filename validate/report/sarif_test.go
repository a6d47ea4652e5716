package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/validate"
)

// sarifObject is an excerpt of the SARIF 2.1.0 JSON schema (OASIS,
// sarif-schema-2.1.0.json) for the objects fbc writes: each object's
// required properties and the properties it may have at all (the schema
// sets additionalProperties: false on them). Properties fbc never writes are
// left out of "allowed" on purpose, so a new one has to be checked against
// the schema and added here.
var sarifObject = map[string]struct{ required, allowed []string }{
	"log":                 {[]string{"version", "runs"}, []string{"$schema", "version", "runs"}},
	"run":                 {[]string{"tool"}, []string{"tool", "columnKind", "results"}},
	"tool":                {[]string{"driver"}, []string{"driver"}},
	"toolComponent":       {[]string{"name"}, []string{"name", "version", "informationUri", "rules"}},
	"reportingDescriptor": {[]string{"id"}, []string{"id", "shortDescription", "help", "helpUri", "defaultConfiguration"}},
	"multiformatMessage":  {[]string{"text"}, []string{"text"}},
	"configuration":       {nil, []string{"level"}},
	"result":              {[]string{"message"}, []string{"ruleId", "ruleIndex", "level", "message", "locations", "partialFingerprints"}},
	"message":             {nil, []string{"text"}},
	"location":            {nil, []string{"physicalLocation"}},
	"physicalLocation":    {nil, []string{"artifactLocation", "region"}},
	"artifactLocation":    {nil, []string{"uri", "uriBaseId"}},
	"region":              {nil, []string{"startLine", "startColumn"}},
}

// checkSARIF checks a SARIF document against the schema excerpt above, the
// schema's value constraints (enums, minimums, URI references, ruleIndex
// pointing at its rule) and GitHub code scanning's extra demand that every
// result has a location with an artifact URI.
func checkSARIF(doc []byte) []string {
	var problems []string
	fail := func(path, format string, args ...any) {
		problems = append(problems, path+": "+fmt.Sprintf(format, args...))
	}
	obj := func(path, kind string, v any) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			fail(path, "want a %s object, got %T", kind, v)
			return map[string]any{}
		}
		spec := sarifObject[kind]
		for _, r := range spec.required {
			if _, ok := m[r]; !ok {
				fail(path, "%s lacks required property %q", kind, r)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !slices.Contains(spec.allowed, k) {
				fail(path, "%s has property %q the schema does not allow", kind, k)
			}
		}
		return m
	}
	arr := func(path string, v any) []any {
		a, ok := v.([]any)
		if !ok && v != nil {
			fail(path, "want an array, got %T", v)
		}
		return a
	}
	str := func(path string, v any) string {
		s, ok := v.(string)
		if !ok {
			fail(path, "want a string, got %T", v)
		}
		return s
	}
	intMin := func(path string, v any, lo float64) {
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) || f < lo {
			fail(path, "want an integer >= %v, got %v", lo, v)
		}
	}
	message := func(path, kind string, v any) {
		m := obj(path, kind, v)
		if str(path+".text", m["text"]) == "" {
			fail(path, "empty text")
		}
	}

	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return []string{err.Error()}
	}
	log := obj("$", "log", root)
	if log["version"] != "2.1.0" {
		fail("$.version", "want 2.1.0, got %v", log["version"])
	}
	if _, err := url.Parse(str("$.$schema", log["$schema"])); err != nil {
		fail("$.$schema", "%v", err)
	}
	for i, rv := range arr("$.runs", log["runs"]) {
		rp := fmt.Sprintf("$.runs[%d]", i)
		run := obj(rp, "run", rv)
		if ck, ok := run["columnKind"]; ok && ck != "utf16CodeUnits" && ck != "unicodeCodePoints" {
			fail(rp+".columnKind", "not an allowed value: %v", ck)
		}
		driver := obj(rp+".tool.driver", "toolComponent", obj(rp+".tool", "tool", run["tool"])["driver"])
		if str(rp+".tool.driver.name", driver["name"]) == "" {
			fail(rp+".tool.driver.name", "empty")
		}
		if u, ok := driver["informationUri"]; ok {
			if pu, err := url.Parse(str(rp+".tool.driver.informationUri", u)); err != nil || !pu.IsAbs() {
				fail(rp+".tool.driver.informationUri", "not an absolute URI: %v", u)
			}
		}
		var ruleIDs []string
		for j, dv := range arr(rp+".tool.driver.rules", driver["rules"]) {
			dp := fmt.Sprintf("%s.tool.driver.rules[%d]", rp, j)
			d := obj(dp, "reportingDescriptor", dv)
			id := str(dp+".id", d["id"])
			if slices.Contains(ruleIDs, id) {
				fail(dp, "duplicate rule id %q", id)
			}
			ruleIDs = append(ruleIDs, id)
			for _, k := range []string{"shortDescription", "help"} {
				if v, ok := d[k]; ok {
					message(dp+"."+k, "multiformatMessage", v)
				}
			}
			if v, ok := d["defaultConfiguration"]; ok {
				c := obj(dp+".defaultConfiguration", "configuration", v)
				if l := c["level"]; !slices.Contains([]any{"none", "note", "warning", "error"}, l) {
					fail(dp+".defaultConfiguration.level", "not an allowed value: %v", l)
				}
			}
		}
		for j, resv := range arr(rp+".results", run["results"]) {
			p := fmt.Sprintf("%s.results[%d]", rp, j)
			r := obj(p, "result", resv)
			message(p+".message", "message", r["message"])
			if l := r["level"]; !slices.Contains([]any{"none", "note", "warning", "error"}, l) {
				fail(p+".level", "not an allowed value: %v", l)
			}
			id := str(p+".ruleId", r["ruleId"])
			intMin(p+".ruleIndex", r["ruleIndex"], 0)
			if idx, ok := r["ruleIndex"].(float64); ok && (int(idx) >= len(ruleIDs) || ruleIDs[int(idx)] != id) {
				fail(p+".ruleIndex", "does not point at rule %q", id)
			}
			locs := arr(p+".locations", r["locations"])
			if len(locs) == 0 {
				fail(p, "no location (GitHub code scanning rejects the upload)")
			}
			for k, lv := range locs {
				lp := fmt.Sprintf("%s.locations[%d]", p, k)
				phys := obj(lp+".physicalLocation", "physicalLocation", obj(lp, "location", lv)["physicalLocation"])
				al := obj(lp+".physicalLocation.artifactLocation", "artifactLocation", phys["artifactLocation"])
				u, err := url.Parse(str(lp+".physicalLocation.artifactLocation.uri", al["uri"]))
				switch {
				case err != nil:
					fail(lp, "artifact uri: %v", err)
				case al["uriBaseId"] == nil && !u.IsAbs():
					fail(lp, "relative artifact uri %q without uriBaseId", al["uri"])
				case al["uriBaseId"] != nil && u.IsAbs():
					fail(lp, "absolute artifact uri %q with a uriBaseId", al["uri"])
				}
				if rv, ok := phys["region"]; ok {
					reg := obj(lp+".physicalLocation.region", "region", rv)
					intMin(lp+".region.startLine", reg["startLine"], 1)
					if c, ok := reg["startColumn"]; ok {
						intMin(lp+".region.startColumn", c, 1)
					}
				}
			}
			if fp, ok := r["partialFingerprints"].(map[string]any); ok {
				for k, v := range fp {
					str(p+".partialFingerprints."+k, v)
				}
			}
		}
	}
	return problems
}

func TestSARIFMatchesSchema(t *testing.T) {
	for name, res := range map[string]*validate.Result{"sample": sampleResult(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, WriteSARIF(&b, res, sampleOptions()))
			require.Empty(t, checkSARIF(b.Bytes()))
		})
	}
}

// The checker itself must catch what it is there to catch.
func TestCheckSARIFFindsProblems(t *testing.T) {
	bad := `{"version": "2.0.0", "runs": [{"tool": {"driver": {"name": "", "rules": [{"id": "a"}]}}, "extra": 1,
	  "results": [{"ruleId": "b", "ruleIndex": 0, "level": "fatal", "message": {"text": "m"}},
	              {"ruleId": "a", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
	               "locations": [{"physicalLocation": {"artifactLocation": {"uri": "x.yaml"}, "region": {"startLine": 0}}}]}]}]}`
	got := checkSARIF([]byte(bad))
	for _, want := range []string{
		`$.version: want 2.1.0`,
		`$.$schema: want a string`,
		`$.runs[0]: run has property "extra"`,
		`$.runs[0].tool.driver.name: empty`,
		`$.runs[0].results[0].level: not an allowed value: fatal`,
		`$.runs[0].results[0].ruleIndex: does not point at rule "b"`,
		`$.runs[0].results[0]: no location`,
		`$.runs[0].results[1].locations[0]: relative artifact uri "x.yaml" without uriBaseId`,
		`$.runs[0].results[1].locations[0].region.startLine: want an integer >= 1`,
	} {
		found := false
		for _, g := range got {
			if bytes.HasPrefix([]byte(g), []byte(want)) {
				found = true
			}
		}
		if !found {
			t.Errorf("checker missed %q; it said:\n%q", want, got)
		}
	}
}
