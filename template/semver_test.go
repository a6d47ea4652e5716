package template

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// readmeTemplate is the example of opm's semver template README: eleven
// versions spread over the three archetypes.
const readmeTemplate = `Schema: olm.semver
GenerateMajorChannels: %s
GenerateMinorChannels: %s
Candidate:
  Bundles:
  - Image: r/op:op.v0.1.0
  - Image: r/op:op.v0.1.1
  - Image: r/op:op.v0.1.2
  - Image: r/op:op.v0.1.3
  - Image: r/op:op.v0.2.0
  - Image: r/op:op.v0.2.1
  - Image: r/op:op.v0.2.2
  - Image: r/op:op.v0.3.0
  - Image: r/op:op.v1.0.0
  - Image: r/op:op.v1.0.1
  - Image: r/op:op.v1.1.0
Fast:
  Bundles:
  - Image: r/op:op.v0.2.1
  - Image: r/op:op.v0.2.2
  - Image: r/op:op.v0.3.0
  - Image: r/op:op.v1.0.1
  - Image: r/op:op.v1.1.0
Stable:
  Bundles:
  - Image: r/op:op.v1.0.1
`

func readme(major, minor string) string {
	return strings.Replace(strings.Replace(readmeTemplate, "%s", major, 1), "%s", minor, 1)
}

// The expectations follow opm-reference.md §4.1: the highest Z of each
// Y-stream replaces the previous Y-stream's head and skips every other lower
// version of its archetype and major; skips are sorted by name.
func TestSemverEdges(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		opts     Options
		channels string
		def      string
	}{
		{
			name: "major",
			src:  readme("true", "false"),
			channels: `candidate-v0: 0.1.0 0.1.1 0.1.2 0.1.3!0.1.0,0.1.1,0.1.2 0.2.0 0.2.1 0.2.2<0.1.3!0.1.0,0.1.1,0.1.2,0.2.0,0.2.1 0.3.0<0.2.2!0.1.0,0.1.1,0.1.2,0.1.3,0.2.0,0.2.1
candidate-v1: 1.0.0 1.0.1!1.0.0 1.1.0<1.0.1!1.0.0
fast-v0: 0.2.1 0.2.2!0.2.1 0.3.0<0.2.2!0.2.1
fast-v1: 1.0.1 1.1.0<1.0.1
stable-v1: 1.0.1
`,
			def: "stable-v1",
		},
		{
			name: "minor by default",
			src:  readme("false", "false"),
			channels: `candidate-v0.1: 0.1.0 0.1.1 0.1.2 0.1.3!0.1.0,0.1.1,0.1.2
candidate-v0.2: 0.2.0 0.2.1 0.2.2<0.1.3!0.1.0,0.1.1,0.1.2,0.2.0,0.2.1
candidate-v0.3: 0.3.0<0.2.2!0.1.0,0.1.1,0.1.2,0.1.3,0.2.0,0.2.1
candidate-v1.0: 1.0.0 1.0.1!1.0.0
candidate-v1.1: 1.1.0<1.0.1!1.0.0
fast-v0.2: 0.2.1 0.2.2!0.2.1
fast-v0.3: 0.3.0<0.2.2!0.2.1
fast-v1.0: 1.0.1
fast-v1.1: 1.1.0<1.0.1
stable-v1.0: 1.0.1
`,
			def: "stable-v1.0",
		},
		{
			name: "skip-range",
			src:  readme("true", "false"),
			opts: Options{SkipRange: true},
			channels: `candidate-v0: 0.1.0 0.1.1<0.1.0 0.1.2<0.1.1 0.1.3<0.1.2~>=0.1.0 <0.1.3 0.2.0<0.1.3 0.2.1<0.2.0 0.2.2<0.2.1~>=0.2.0 <0.2.2 0.3.0<0.2.2
candidate-v1: 1.0.0 1.0.1<1.0.0~>=1.0.0 <1.0.1 1.1.0<1.0.1
fast-v0: 0.2.1 0.2.2<0.2.1~>=0.2.0 <0.2.2 0.3.0<0.2.2
fast-v1: 1.0.1 1.1.0<1.0.1
stable-v1: 1.0.1
`,
			def: "stable-v1",
		},
		{
			name: "prereleases order before their release and skipRange reaches them",
			src: `schema: olm.semver
generateMajorChannels: true
stable:
  bundles:
  - image: r/op:op.v1.2.0
  - image: r/op:op.v1.2.0-rc.10
  - image: r/op:op.v1.2.0-rc.2
  - image: r/op:op.v1.2.1
`,
			opts:     Options{SkipRange: true},
			channels: "stable-v1: 1.2.0-rc.2 1.2.0-rc.10<1.2.0-rc.2 1.2.0<1.2.0-rc.10 1.2.1<1.2.0~>=1.2.0-0 <1.2.1\n",
			def:      "stable-v1",
		},
		{
			name: "prereleases with skips",
			src: `schema: olm.semver
generateMajorChannels: true
stable:
  bundles:
  - image: r/op:op.v1.2.0
  - image: r/op:op.v1.2.0-rc.10
  - image: r/op:op.v1.2.0-rc.2
`,
			channels: "stable-v1: 1.2.0-rc.2 1.2.0-rc.10 1.2.0!1.2.0-rc.10,1.2.0-rc.2\n",
			def:      "stable-v1",
		},
		{
			// opm-reference.md §4.1: the preference only breaks exact ties;
			// stable-v1 was created at 1.0.1 < 1.1.0.
			name: "preference breaks only ties",
			src: `schema: olm.semver
generateMajorChannels: true
generateMinorChannels: true
defaultChannelTypePreference: major
stable:
  bundles:
  - image: r/op:op.v1.0.1
  - image: r/op:op.v1.1.0
`,
			channels: "stable-v1: 1.0.1 1.1.0<1.0.1\nstable-v1.0: 1.0.1\nstable-v1.1: 1.1.0<1.0.1\n",
			def:      "stable-v1.1",
		},
		{
			name: "preference on a tie",
			src: `schema: olm.semver
generateMajorChannels: true
generateMinorChannels: true
defaultChannelTypePreference: major
stable:
  bundles:
  - image: r/op:op.v1.0.1
  - image: r/op:op.v1.0.2
`,
			channels: "stable-v1: 1.0.1 1.0.2!1.0.1\nstable-v1.0: 1.0.1 1.0.2!1.0.1\n",
			def:      "stable-v1",
		},
		{
			name: "no edges across majors",
			src: `schema: olm.semver
generateMajorChannels: true
fast:
  bundles:
  - image: r/op:op.v2.0.0
  - image: r/op:op.v1.9.0
  - image: r/op:op.v1.10.0
`,
			channels: "fast-v1: 1.9.0 1.10.0<1.9.0\nfast-v2: 2.0.0\n",
			def:      "fast-v2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := renderString(t, nil, tt.src, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := channelText(res.Config); got != tt.channels {
				t.Errorf("channels:\n%s\nwant:\n%s", got, tt.channels)
			}
			if got := res.Config.Packages[0].DefaultChannel; got != tt.def {
				t.Errorf("default channel %q, want %q", got, tt.def)
			}
		})
	}
}

func TestSemverPackageAndBundles(t *testing.T) {
	f := &fakeRegistry{}
	res, err := renderString(t, f, readme("true", "false"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := res.Config
	if len(cfg.Packages) != 1 || cfg.Packages[0].Name != "op" {
		t.Fatalf("packages: %+v", cfg.Packages)
	}
	// #1933: description and icon of the default channel's highest bundle.
	p := cfg.Packages[0]
	if p.Description != "the op operator, version 1.0.1" || p.Icon == nil || string(p.Icon.Data) != "icon 1.0.1" || p.Icon.MediaType != "image/png" {
		t.Errorf("package metadata: %q %+v", p.Description, p.Icon)
	}
	if len(cfg.Bundles) != 11 {
		t.Errorf("%d bundles, want 11 (each image once)", len(cfg.Bundles))
	}
	if len(f.rendered) != 11 {
		t.Errorf("rendered %d references, want each of the 11 once", len(f.rendered))
	}
}

func TestSemverExplain(t *testing.T) {
	res, err := renderString(t, nil, readme("true", "false"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.Explanation.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"default channel stable-v1: stable is the most stable archetype",
		"channel candidate-v0 (candidate, major channel)",
		"  op.v0.2.2 (0.2.2)\n      replaces:  op.v0.1.3\n      skips:     op.v0.1.0, op.v0.1.1, op.v0.1.2, op.v0.2.0, op.v0.2.1\n      why:       highest 0.2.z: replaces op.v0.1.3, the highest 0.1.z, and skips the 5 other lower candidate versions of 0.y.z\n",
		"  op.v0.2.0 (0.2.0)\n      why:       not the highest 0.2.z: no edges of its own; op.v0.2.2 skips it\n",
		"  op.v1.0.1 (1.0.1)\n      why:       the only stable 1.y.z version: no edges",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
}

func TestSemverProblems(t *testing.T) {
	two := fakeBundle("op", "1.0.0", "r/two")
	two.Name = "op-copy.v1.0.0"
	other := fakeBundle("other", "1.0.1", "r/other")
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"unknown key", "schema: olm.semver\navoidSkipPatch: true\nstable: {bundles: [{image: r/op:op.v1.0.0}]}\n",
			`t.yaml:2:1: unknown field "avoidSkipPatch" in a semver template`},
		{"unknown bundle key", "schema: olm.semver\nstable: {bundles: [{image: r/op:op.v1.0.0, name: x}]}\n",
			`t.yaml:2:44: unknown field "name" in a stable bundle; it has only image`},
		{"unknown archetype key", "schema: olm.semver\nStable:\n  Bundles: []\n  Channel: x\n",
			`t.yaml:4:3: unknown field "Channel" in Stable; it has only bundles`},
		{"preference without minor", "schema: olm.semver\ngenerateMajorChannels: true\ndefaultChannelTypePreference: minor\nstable: {bundles: [{image: r/op:op.v1.0.0}]}\n",
			"t.yaml:3:31: defaultChannelTypePreference is minor, but the template does not generate minor channels"},
		{"bad preference", "schema: olm.semver\ndefaultChannelTypePreference: patch\nstable: {bundles: [{image: r/op:op.v1.0.0}]}\n",
			`t.yaml:2:31: unknown defaultChannelTypePreference "patch": use major or minor`},
		{"not a bool", "schema: olm.semver\ngenerateMajorChannels: yes please\n",
			"t.yaml:2:24: generateMajorChannels must be true or false, not a string"},
		{"empty image", "schema: olm.semver\nfast:\n  bundles:\n  - image:\n", "t.yaml:4:11: fast bundle has no image"},
		{"two packages", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0\n  - image: r/other\n",
			`t.yaml:5:5: bundle "other.v1.0.1" (r/other) belongs to package "other", but this template's bundles belong to "op" (r/op:op.v1.0.0 at t.yaml:4:5): a semver template describes one package`},
		{"build metadata", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0+a\n  - image: r/op:op.v1.0.0+b\n",
			`t.yaml:5:5: bundles "op.v1.0.0+a" (1.0.0+a) and "op.v1.0.0+b" (1.0.0+b) in stable differ only in build metadata, which semver does not order`},
		{"same version twice", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0\n  - image: r/two\n",
			`t.yaml:5:5: bundles "op.v1.0.0" and "op-copy.v1.0.0" in stable both have version 1.0.0`},
		{"listed twice", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0\n  - image: r/op:op.v1.0.0\n",
			`t.yaml:5:5: bundle "op.v1.0.0" is listed twice in stable (first at t.yaml:4:5)`},
		{"not semver", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0\n",
			`t.yaml:4:5: bundle "op.v1.0" (r/op:op.v1.0) has version "1.0", which is not semver`},
		{"ref with two bundles", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/pair\n",
			`t.yaml:4:5: bundle reference "r/pair" resolved to 2 bundles; a bundle reference must name exactly one bundle`},
		{"ref with no bundle", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/none\n",
			`t.yaml:4:5: bundle reference "r/none" resolved to 0 bundles`},
		{"duplicate key", "schema: olm.semver\nstable: {}\nStable: {}\n", `t.yaml:3:1: duplicate key "Stable" (first defined at line 2)`},
		{"two documents", "schema: olm.semver\n---\nschema: olm.semver\n", "t.yaml:3:1: a template is one document"},
		{"two images, one bundle", "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0\n  - image: r/digest\n",
			`t.yaml:5:5: image "r/digest" renders to bundle "op.v1.0.0", which image "r/op:op.v1.0.0" (at t.yaml:4:5) already renders to`},
		{"two images, one bundle, two channels", "schema: olm.semver\nfast:\n  bundles:\n  - image: r/op:op.v1.0.0\nstable:\n  bundles:\n  - image: r/digest\n",
			`t.yaml:7:5: image "r/digest" renders to bundle "op.v1.0.0", which image "r/op:op.v1.0.0" (at t.yaml:4:5) already renders to`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRegistry{extra: map[string][]declcfg.Bundle{
				"r/two": {two}, "r/other": {other},
				"r/pair": {two, other}, "r/none": {}, "r/digest": {fakeBundle("op", "1.0.0", "r/digest")},
			}}
			_, err := renderString(t, f, tt.src, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %v (%T) is not a template problem", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}

func TestRenderFailureNamesEntry(t *testing.T) {
	_, err := renderString(t, nil, "schema: olm.semver\nstable:\n  bundles:\n  - image: r/op:op.v1.0.0\n  - image: r/missing\n", Options{})
	var re *RenderError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T), want a RenderError", err, err)
	}
	if want := `t.yaml:5:5: rendering bundle "r/missing": manifest unknown: r/missing`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestRenderFailureWinsOverTheCancellationItCaused(t *testing.T) {
	// The first reference blocks until the second one's failure cancels
	// it; the error must name the real failure, not the cancellation.
	render := func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		if ref == "r/slow" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("manifest unknown")
	}
	_, err := Render(context.Background(), "t.yaml", []byte("schema: olm.semver\nstable:\n  bundles:\n  - image: r/slow\n  - image: r/broken\n"), Options{Render: render})
	if err == nil || err.Error() != `t.yaml:5:5: rendering bundle "r/broken": manifest unknown` {
		t.Errorf("error %v", err)
	}
}
