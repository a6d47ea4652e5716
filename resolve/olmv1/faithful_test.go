package olmv1

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// fooCatalog is a package foo: 1.0.0 (release 5 in olm.package's release
// field), replaced by 1.1.0, and 2.0.0 in no channel.
const fooCatalog = `{"schema":"olm.package","name":"foo","defaultChannel":"stable"}
{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v1.0.0"},{"name":"foo.v1.1.0","replaces":"foo.v1.0.0"}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v1.0.0","image":"quay.io/example/foo:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0","release":"5"}}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v1.1.0","image":"quay.io/example/foo:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.1.0"}}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v2.0.0","image":"quay.io/example/foo:2.0.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"2.0.0"}}]}
`

// resolveFile resolves one ClusterExtension (its spec.source.catalog, and
// status.install.bundle when installed is set) against one catalog read
// from a file, as fbc resolve reads a --catalog source.
func resolveFile(t *testing.T, catalog string, spec map[string]any, installed map[string]any, gates map[string]bool) *Result {
	t.Helper()
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	cc, err := ParseClusterCatalog(declcfg.Pos{File: "catalogs.yaml", Line: 1, Col: 1},
		[]byte(`{"apiVersion":"olm.operatorframework.io/v1","kind":"ClusterCatalog","metadata":{"name":"operatorhub"},"spec":{"source":{"type":"Image","image":{"ref":"quay.io/example/catalog:latest"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ext := map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension", "metadata": map[string]any{"name": "ext"},
		"spec": map[string]any{"namespace": "default", "source": map[string]any{"sourceType": "Catalog", "catalog": spec}}}
	if installed != nil {
		ext["status"] = map[string]any{"install": map[string]any{"bundle": installed}}
	}
	raw, _ := json.Marshal(ext)
	e, err := ParseClusterExtension(declcfg.Pos{File: "ext.yaml", Line: 1, Col: 1}, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Catalogs: []ClusterCatalog{cc}, Extensions: []ClusterExtension{e},
		Contents: []CatalogContent{{Name: "operatorhub", Source: file}}}
	for name, on := range gates {
		req.Gates = req.Gates.With(name, on)
	}
	results, err := Resolve(context.Background(), req)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return results[0]
}

func wantBundle(t *testing.T, r *Result, name, version string) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("error %q, want %s", r.Err, name)
	}
	if r.Bundle.Name != name || r.Bundle.Version != version {
		t.Fatalf("resolved %s %s, want %s %s", r.Bundle.Name, r.Bundle.Version, name, version)
	}
}

// Under SelfCertified operator-controller applies no successor filter and
// never parses the installed version: one that does not parse changes
// nothing, and the highest bundle installs.
func TestSelfCertifiedIgnoresInstalledVersion(t *testing.T) {
	r := resolveFile(t, fooCatalog, map[string]any{"packageName": "foo", "upgradeConstraintPolicy": "SelfCertified"},
		map[string]any{"name": "foo.vX", "version": "abc"}, nil)
	wantBundle(t, r, "foo.v2.0.0", "2.0.0")
	// Under CatalogProvided the successor filter reads it, and fails.
	r = resolveFile(t, fooCatalog, map[string]any{"packageName": "foo"}, map[string]any{"name": "foo.vX", "version": "abc"}, nil)
	if r.Err == nil || r.Err.Error() != "error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found" {
		t.Fatalf("CatalogProvided: %v", r.Err)
	}
}

// With BundleReleaseSupport, an installed bundle recorded with its release
// matches its own version and release in the catalog and stays where no
// successor ranks above it (1.1.0 replaces 1.0.0 under CatalogProvided,
// so a range that keeps 1.0.0 alone is asked for).
func TestInstalledReleaseStays(t *testing.T) {
	gates := map[string]bool{"BundleReleaseSupport": true}
	for _, installed := range []map[string]any{
		{"name": "foo.v1.0.0", "version": "1.0.0", "release": "5"},
		{"name": "foo.v1.0.0", "version": "1.0.0+5"}, // recorded before the gate: the release in build metadata
	} {
		r := resolveFile(t, fooCatalog, map[string]any{"packageName": "foo", "version": "1.0.0"}, installed, gates)
		wantBundle(t, r, "foo.v1.0.0", "1.0.0")
		if r.Bundle.Release == nil || *r.Bundle.Release != "5" {
			t.Errorf("installed %v: release %v, want 5", installed, r.Bundle.Release)
		}
	}
	// Another release of the same version is neither the installed bundle
	// nor a successor.
	r := resolveFile(t, fooCatalog, map[string]any{"packageName": "foo", "version": "1.0.0"},
		map[string]any{"name": "foo.v1.0.0", "version": "1.0.0", "release": "4"}, gates)
	if r.Err == nil || !strings.Contains(r.Err.Error(), `no bundles found for package "foo" matching version "1.0.0"`) {
		t.Fatalf("another release: %v", r.Err)
	}
}

// catalogd and operator-controller read only the package asked for: a
// broken blob of another package is never decoded, and one of the package
// asked for fails the walk with operator-registry's loader error.
func TestBrokenBlobs(t *testing.T) {
	broken := map[string]string{
		`{"schema":"olm.bundle","package":"%s","name":"%s.v9","image":"x","properties":5}`:                                                 `parse bundle: json: cannot unmarshal number into Go struct field Bundle.properties of type []property.Property`,
		`{"schema":"olm.channel","package":"%s","name":"fast","entries":[{"name":"%s.v9","skips":"a"}]}`:                                   `parse channel: json: cannot unmarshal string into Go struct field ChannelEntry.entries.skips of type []string`,
		`{"schema":"olm.package","name":"%s","icon":{"base64data":"!!","mediatype":"image/png"}}`:                                          `parse package: illegal base64 data at input byte 0`,
		`{"schema":"olm.deprecations","package":"%s","entries":[{"reference":"%s","message":"m"}]}`:                                        `parse deprecation: json: cannot unmarshal string into Go struct field DeprecationEntry.entries.reference of type declcfg.PackageScopedReference`,
		`{"schema":"olm.bundle","package":"%s","name":"%s.v9","image":"x","properties":[{"type":"olm.bundle.object","value":{"data":7}}]}`: `read bundle objects: package "%s", bundle "%s.v9": parse property at index 0 as bundle object: json: cannot unmarshal number into Go struct field BundleObject.data of type []uint8`,
		`{"schema":"olm.bundle","package":"%s","name":"%s.v9","image":7,"relatedImages":[{"name":1}]}`:                                     `parse bundle: json: cannot unmarshal number into Go struct field Bundle.image of type string`,
	}
	for blob, msg := range broken {
		other := strings.ReplaceAll(blob, "%s", "bar")
		// The other package's blob: foo resolves as if it were not there.
		wantBundle(t, resolveFile(t, fooCatalog+other+"\n", map[string]any{"packageName": "foo"}, nil, nil), "foo.v2.0.0", "2.0.0")

		mine := strings.ReplaceAll(blob, "%s", "foo")
		r := resolveFile(t, fooCatalog+mine+"\n", map[string]any{"packageName": "foo"}, nil, nil)
		want := `error walking catalogs: error getting package "foo" from catalog "operatorhub": error loading package "foo": ` + strings.ReplaceAll(msg, "%s", "foo")
		if r.Err == nil || r.Err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", mine, r.Err, want)
			continue
		}
		if !strings.HasSuffix(r.Catalogs[0].Unreadable, "catalog.json:6:1: a blob of the package does not load") {
			t.Errorf("%s: catalog report %q, want the blob's position", mine, r.Catalogs[0].Unreadable)
		}
	}
	// A later blob of the same name replaces a broken one in
	// operator-controller's cache, and the reverse.
	bad := `{"schema":"olm.bundle","package":"foo","name":"foo.v9","image":"x","properties":5}` + "\n"
	good := `{"schema":"olm.bundle","package":"foo","name":"foo.v9","image":"x","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"9.0.0"}}]}` + "\n"
	wantBundle(t, resolveFile(t, fooCatalog+bad+good, map[string]any{"packageName": "foo"}, nil, nil), "foo.v9", "9.0.0")
	if r := resolveFile(t, fooCatalog+good+bad, map[string]any{"packageName": "foo"}, nil, nil); r.Err == nil {
		t.Errorf("a broken blob replacing a good one: resolved %s", r.Bundle.Name)
	}
}

// A package no catalog has: operator-controller's error, and the nearest
// package of the catalogs as a hint beside it.
func TestPackageHint(t *testing.T) {
	r := resolveFile(t, fooCatalog+`{"schema":"olm.package","name":"infinispan"}`+"\n", map[string]any{"packageName": "infinispn"}, nil, nil)
	if r.Err == nil || r.Err.Error() != `no bundles found for package "infinispn"` {
		t.Fatalf("error %v", r.Err)
	}
	if r.Hint != `no catalog has package "infinispn"; did you mean "infinispan"?` {
		t.Errorf("hint %q", r.Hint)
	}
	// No hint where a catalog has the package (its bundles do not match),
	// or nothing is near.
	if r := resolveFile(t, fooCatalog, map[string]any{"packageName": "foo", "version": "9.x"}, nil, nil); r.Err == nil || r.Hint != "" {
		t.Errorf("package present: %v, hint %q", r.Err, r.Hint)
	}
	if r := resolveFile(t, fooCatalog, map[string]any{"packageName": "unrelated"}, nil, nil); r.Err == nil || r.Hint != "" {
		t.Errorf("nothing near: %v, hint %q", r.Err, r.Hint)
	}
}
