package graph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// Warnings about bundle versions come in package order, not in the order
// of a map walk: the same catalog always warns the same way.
func TestNewWarningsInPackageOrder(t *testing.T) {
	cfg := &declcfg.DeclarativeConfig{}
	var want []string
	for _, pkg := range []string{"a", "b", "c", "d", "e", "f"} {
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: pkg, Name: pkg + ".v1",
			Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: pkg, Version: "1.0"})}})
	}
	for i := len(cfg.Bundles) - 1; i >= 0; i-- {
		// Listed backwards, so catalog order is not package order either.
		cfg.Bundles = append(cfg.Bundles, cfg.Bundles[i])
	}
	cfg.Bundles = cfg.Bundles[6:]
	for _, pkg := range []string{"a", "b", "c", "d", "e", "f"} {
		want = append(want, fmt.Sprintf(`: bundle %q: invalid version "1.0": No Major.Minor.Patch elements found`, pkg+".v1"))
	}
	for range 20 {
		var got []string
		New(cfg, func(msg string) { got = append(got, msg) })
		if !slices.Equal(got, want) {
			t.Fatalf("warnings =\n%q\nwant\n%q", got, want)
		}
	}
}
