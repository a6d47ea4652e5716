package template

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// FuzzRender renders arbitrary template text with a renderer that makes a
// bundle of any reference shaped REPO:PKG.vVERSION and fails on others. A
// template may be rejected, but never with a panic, and a rendered one has
// exactly one package for semver templates.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		readme("true", "true"),
		readme("false", "false"),
		"schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: op\n- schema: olm.bundle\n  image: r/op:op.v1.0.0\n",
		"schema: olm.semver\nstable: {bundles: [{image: r/op:op.v1.0.0}, {image: r/op:op.v1.0.0+b}]}\n",
		"schema: olm.semver\ngenerateMajorChannels: true\ndefaultChannelTypePreference: minor\ncandidate: {bundles: [{image: r/op:op.v0.0.0-1}]}\n",
		"schema: olm.semver\nstable: {bundles: [{image: &a r/op:op.v1.0.0}, {image: *a}]}\n",
		"{\"schema\": \"olm.semver\", \"Fast\": {\"Bundles\": [{\"Image\": \"r/op:op.v2.1.0-rc.1\"}]}}",
		"schema: olm.semver\nstable: {bundles: [{image: r/op:op.v1.2.3}, {image: r/other:other.v1.2.4}]}\n",
		"schema: olm.template.basic\nentries: [{schema: olm.bundle, image: r/op:op.v1.0.0, name: wrong}]\n",
		"",
		"- a\n",
		"schema: olm.semver\n---\nschema: olm.semver\n",
		"schema: olm.template.substitutes\nentries:\n- {schema: olm.package, name: op, defaultChannel: s}\n- {schema: olm.channel, package: op, name: s, entries: [{name: op.v1.0.0}]}\n" +
			"- {schema: olm.bundle, name: op.v1.0.0, package: op, image: r/op:op.v1.0.0, properties: [{type: olm.package, value: {packageName: op, version: 1.0.0}}]}\n" +
			"substitutions:\n- {name: r/op:op.v1.0.1, base: op.v1.0.0}\n- {name: r/op:op.v1.0.2, base: op.v1.0.1}\n",
		"schema: olm.template.substitutes\nentries: []\nsubstitutions: [{name: a, base: a}, {base: b}, {name: c, base: b}, x]\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, src string, skipRange bool) {
		if len(src) > 1<<14 {
			return
		}
		reg := &fakeRegistry{}
		res, err := Render(context.Background(), "t.yaml", []byte(src), Options{Render: reg.render, SkipRange: skipRange})
		if err != nil {
			var ps Problems
			var p *declcfg.Finding
			var re *RenderError
			var empty *EmptyError
			if !errors.As(err, &ps) && !errors.As(err, &p) && !errors.As(err, &re) && !errors.As(err, &empty) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if res.Kind == KindSemver {
			if len(res.Config.Packages) != 1 || res.Config.Packages[0].DefaultChannel == "" {
				t.Fatalf("semver result without one package and a default channel: %+v", res.Config.Packages)
			}
			if res.Explanation == nil {
				t.Fatal("semver result without an explanation")
			}
		}
	})
}

// FuzzParseImageMap parses arbitrary image maps: errors, never panics.
func FuzzParseImageMap(f *testing.F) {
	for _, seed := range []string{
		"quay.io/a/b:v1: bundles/b/1\nquay.io/a/b@sha256:0000: oci:layouts/b:1\n",
		"{\"a\": \"docker-archive:x.tar\"}",
		"a: 1\n",
		"a: \n",
		"? [a]\n: b\n",
		"a: &x b\nc: *x\n",
		"a: b\na: c\n",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ParseImageMap("maps/images.yaml", []byte(src))
		if err == nil && m == nil {
			t.Fatal("no map and no error")
		}
	})
}

// FuzzConvert converts arbitrary catalog text into basic and substitutes
// templates: errors, never panics, and what converts writes as JSON that
// reads back with every entry.
func FuzzConvert(f *testing.F) {
	for _, seed := range []string{
		"schema: olm.package\nname: p\n---\nschema: olm.bundle\nname: p.v1\npackage: p\nimage: r/p:v1\n",
		"{\"schema\": \"x.custom\", \"n\": 1.50, \"z\": -0, \"s\": \"<&>\"}\n{\"Schema\": \"olm.bundle\", \"Image\": \"i\"}",
		"schema: x\non: yes\nmode: 0777\nbig: 123456789012345678901234567890\n",
		"schema: x\na: &a {b: [1, *a]}\n",
		"",
		"- 1\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			return
		}
		for _, kind := range []Kind{KindBasic, KindSubstitutes} {
			c, err := convertFiles(kind, "f.yaml", []*declcfg.File{declcfg.ParseFile("f.yaml", []byte(src))})
			if err != nil {
				continue
			}
			var buf bytes.Buffer
			if err := c.Write(&buf, declcfg.FormatJSON); err != nil {
				t.Fatalf("%s: write: %v", kind, err)
			}
			var back struct{ Entries []json.RawMessage }
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Entries) != len(c.Entries) {
				t.Fatalf("%s: output does not read back (%v): %s", kind, err, buf.Bytes())
			}
			if err := c.Write(&buf, declcfg.FormatYAML); err != nil {
				t.Fatalf("%s: write yaml: %v", kind, err)
			}
		}
	})
}
