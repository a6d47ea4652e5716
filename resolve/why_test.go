package resolve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// TestPassedOver: each candidate a Subscription preferred to what it got
// says why it was passed over: a dependency no catalog meets, a deprecated
// bundle, a dependency kept out by another Subscription's bundle.
func TestPassedOver(t *testing.T) {
	key := CatalogKey{"ns", "catalog"}
	bundle := func(name, pkg, version, replaces string, props ...string) Entry {
		e := Entry{Name: name, Package: pkg, Channel: "stable", DefaultChannel: true, Version: version, Replaces: replaces}
		e.Properties = append(e.Properties, Property{Type: "olm.package", Value: json.RawMessage(fmt.Sprintf(`{"packageName":%q,"version":%q}`, pkg, version))})
		for i := 0; i < len(props); i += 2 {
			e.Properties = append(e.Properties, Property{Type: props[i], Value: json.RawMessage(props[i+1])})
		}
		return e
	}
	cat := &Catalog{Key: key, Entries: []Entry{
		bundle("app.v1", "app", "1.0.0", ""),
		bundle("app.v2", "app", "2.0.0", "app.v1", "olm.package.required", `{"packageName":"db","versionRange":">=2.0.0"}`),
		bundle("app.v3", "app", "3.0.0", "app.v2", "olm.deprecated", `{}`),
		bundle("app.v4", "app", "4.0.0", "app.v3", "olm.gvk.required", `{"group":"nowhere.io","kind":"Thing","version":"v1"}`),
		bundle("db.v1", "db", "1.0.0", ""),
		bundle("db.v2", "db", "2.0.0", "db.v1"),
	}}
	ns := &Namespace{Name: "ns", Catalogs: []*Catalog{cat}, Subscriptions: []Subscription{
		{Name: "app", Namespace: "ns", Package: "app", Channel: "stable", Catalog: key},
		{Name: "db", Namespace: "ns", Package: "db", Channel: "stable", StartingCSV: "db.v1", Catalog: key},
	}}
	res, err := Resolve(context.Background(), ns)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	got := res.Subscriptions[0].PassedOver
	want := []PassedOver{
		{"app.v4", "it requires an operator providing an API with group: nowhere.io, version: v1, kind: Thing, and no catalog the namespace sees has one"},
		{"app.v3", "it is deprecated (the legacy olm.deprecated property: OLM never installs it)"},
		{"app.v2", "it requires an operator with package: db and with version in range: >=2.0.0, and the namespace gets db.v1 instead, which subscription db requires (it holds one operator of package db)"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("passed over:\n%q\nwant:\n%q", got, want)
	}
	if len(res.Subscriptions[1].PassedOver) != 0 {
		t.Errorf("db got its only candidate, yet: %q", res.Subscriptions[1].PassedOver)
	}
}
