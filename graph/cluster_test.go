package graph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

func TestParseClusterVersion(t *testing.T) {
	for in, want := range map[string]string{
		"4.18":  "OpenShift 4.18 (Kubernetes 1.31)",
		"v4.12": "OpenShift 4.12 (Kubernetes 1.25)",
		"4.3":   "OpenShift 4.3 (Kubernetes 1.16)",
		"4.2":   "OpenShift 4.2 (Kubernetes 1.14)",
		"4.1":   "OpenShift 4.1 (Kubernetes 1.13)",
		"1.31":  "Kubernetes 1.31",
		"4.22":  "OpenShift 4.22 (Kubernetes 1.35)",
		"5.0":   "OpenShift 5.0 (Kubernetes 1.36)",
		"v5.2":  "OpenShift 5.2 (Kubernetes 1.38)",
	} {
		got, err := ParseClusterVersion(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseClusterVersion(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "4", "4.x", "4.0", "4.23", "6.0", "3.11", "4.18.1"} {
		if _, err := ParseClusterVersion(in); err == nil {
			t.Errorf("ParseClusterVersion(%q) succeeded", in)
		}
	}
	// openShiftFor inverts kubeOf: the first release that ships at least
	// the Kubernetes asked for.
	for minor := uint64(1); minor < 40; minor++ {
		for _, ocp := range []declcfg.MinorVersion{{Major: 4, Minor: minor}, {Major: 5, Minor: minor - 1}} {
			if ocp.Major == 4 && ocp.Minor > lastOpenShift4 {
				continue
			}
			if got, ok := openShiftFor(kubeOf(ocp)); !ok || got != ocp {
				t.Errorf("openShiftFor(kubeOf(%s)) = %s, %v", ocp, got, ok)
			}
		}
	}
	if got, _ := openShiftFor(declcfg.MinorVersion{Major: 1, Minor: 15}); got.String() != "4.3" {
		t.Errorf("Kubernetes 1.15 needs OpenShift %s, want 4.3", got)
	}
}

func TestParseMaxOpenShiftVersion(t *testing.T) {
	for raw, want := range map[string]string{
		`"4.18"`: "4.18", `4.18`: "4.18", `"4.9"`: "4.9",
		`"v4.18"`: "4.18 loose", `"4.18.0"`: "4.18 loose", `"4"`: "4.0 loose", `" 4.18"`: "4.18 loose",
		`""`: "error", `"4.18.1"`: "error", `"4.18-rc.1"`: "error", `"latest"`: "error", `{"v":1}`: "error", `[]`: "error",
	} {
		v, loose, err := model.ParseMaxOpenShiftVersion(json.RawMessage(raw))
		got := v.String()
		switch {
		case err != nil:
			got = "error"
		case loose != "":
			got += " loose"
		}
		if got != want {
			t.Errorf("%s: got %s (%v, %q), want %s", raw, got, err, loose, want)
		}
	}
}

// bundleWith makes a bundle with a maxOpenShiftVersion (raw JSON, "" for
// none) and a minKubeVersion in olm.csv.metadata ("" for none).
func bundleWith(t *testing.T, name, max, minKube string) *Bundle {
	t.Helper()
	b := declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: name,
		Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: "1.0.0"})}}
	if max != "" {
		b.Properties = append(b.Properties, declcfg.Property{Type: declcfg.PropertyMaxOCPVersion, Value: json.RawMessage(max)})
	}
	if minKube != "" {
		b.Properties = append(b.Properties, declcfg.MustProperty(declcfg.PropertyCSVMetadata, declcfg.CSVMetadata{MinKubeVersion: minKube}))
	}
	cat := model.New(&declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}})
	return cat.Packages[0].Bundles[0]
}

func TestBlockAny(t *testing.T) {
	var warnings []string
	cc := newClusterChecker(func(msg string) { warnings = append(warnings, msg) })
	a := bundleWith(t, "a", `"4.14"`, "1.25.0")  // OpenShift 4.12 to 4.14
	b := bundleWith(t, "b", ``, "1.27.0")        // 4.14 on
	c := bundleWith(t, "c", `"4.16"`, "1.29.0")  // 4.16 only
	d := bundleWith(t, "d", `"4.12"`, "1.30.0")  // nowhere
	e := bundleWith(t, "e", `"4.12.1"`, "1.31")  // max unreadable, minKube unparsable
	f := bundleWith(t, "f", `"4.20"`, "v1.33.0") // 4.20 only
	for _, tc := range []struct {
		path []*Bundle
		want string // "" or the bundles of the block, "from->to"
	}{
		{[]*Bundle{a, b}, ""},        // install b on 4.14, then upgrade
		{[]*Bundle{a, b, c}, ""},     // b has no max: the cluster moves on to 4.16 under it
		{[]*Bundle{a, c}, "a->c"},    // c needs 4.16, a keeps the cluster at 4.14
		{[]*Bundle{d}, "->d"},        // d runs nowhere
		{[]*Bundle{b, e}, "b->e"},    // OLM cannot parse 1.31
		{[]*Bundle{c, f}, "c->f"},    // f needs 4.20, c keeps it at 4.16
		{[]*Bundle{b, c, a}, "c->a"}, // a supports 4.14 at most, the path needs 4.16 by then
	} {
		got := ""
		if blk := cc.blockAny(tc.path); blk != nil {
			from := ""
			if blk.From != nil {
				from = blk.From.Name
			}
			got = from + "->" + blk.To.Name
		}
		if got != tc.want {
			t.Errorf("path %v: block %q, want %q", names(tc.path), got, tc.want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `bundle e: olm.maxOpenShiftVersion "4.12.1" has a patch`) {
		t.Errorf("warnings = %q, want one about e", warnings)
	}
}

func names(bs []*Bundle) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}
