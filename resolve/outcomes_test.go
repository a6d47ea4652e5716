package resolve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// conflictingPreferences is the catalog of the vector
// multisub/conflicting-preferences-nondeterministic with a suffix on every
// name: a needs an API that p and q provide (p first), b needs q or r (q
// first), one provider per API. Visiting a first gives p and r, b first
// gives q.
func conflictingPreferences(sfx string) []Entry {
	pkg := func(name string, props ...string) Entry {
		e := Entry{Name: name + sfx + ".v1", Package: name + sfx, Channel: "stable", DefaultChannel: true, Version: "1.0.0"}
		e.Properties = append(e.Properties, Property{Type: "olm.package", Value: json.RawMessage(fmt.Sprintf(`{"packageName":%q,"version":"1.0.0"}`, name+sfx))})
		for i := 0; i < len(props); i += 2 {
			e.Properties = append(e.Properties, Property{Type: props[i], Value: json.RawMessage(props[i+1])})
		}
		return e
	}
	api := fmt.Sprintf(`{"group":"g%s","kind":"k","version":"v"}`, sfx)
	return []Entry{
		pkg("a", "olm.gvk.required", api),
		pkg("b", "olm.constraint", fmt.Sprintf(`{"any":{"constraints":[{"package":{"packageName":"q%s","versionRange":">=0.0.0"}},{"package":{"packageName":"r%s","versionRange":">=0.0.0"}}]}}`, sfx, sfx)),
		pkg("p", "olm.gvk", api),
		pkg("q", "olm.gvk", api),
		pkg("r"),
	}
}

// TestOutcomesCombine: two independent groups of Subscriptions, each with
// two outcomes, make four, every combination listed once.
func TestOutcomesCombine(t *testing.T) {
	key := CatalogKey{"ns", "catalog"}
	cat := &Catalog{Key: key, Entries: append(conflictingPreferences(""), conflictingPreferences("2")...)}
	ns := &Namespace{Name: "ns", Catalogs: []*Catalog{cat}}
	for _, p := range []string{"a", "b", "a2", "b2"} {
		ns.Subscriptions = append(ns.Subscriptions, Subscription{Name: p, Namespace: "ns", Package: p, Channel: "stable", Catalog: key})
	}
	res, err := Resolve(context.Background(), ns)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	var got []string
	for _, o := range res.Outcomes {
		got = append(got, strings.Join(sorted(names(o.Install)), " "))
	}
	slices.Sort(got)
	want := []string{
		"a.v1 a2.v1 b.v1 b2.v1 p.v1 p2.v1 r.v1 r2.v1",
		"a.v1 a2.v1 b.v1 b2.v1 p.v1 q2.v1 r.v1",
		"a.v1 a2.v1 b.v1 b2.v1 p2.v1 q.v1 r2.v1",
		"a.v1 a2.v1 b.v1 b2.v1 q.v1 q2.v1",
	}
	if !slices.Equal(got, want) || !res.OutcomesComplete {
		t.Errorf("outcomes (complete %v):\n%s\nwant\n%s", res.OutcomesComplete, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(names(res.Install), names(res.Outcomes[0].Install)) {
		t.Errorf("Install %v is not the first outcome %v", names(res.Install), names(res.Outcomes[0].Install))
	}
}

// TestAnchorOrders: every order when they fit the budget, else a bounded
// list that starts with the rotations.
func TestAnchorOrders(t *testing.T) {
	orders, all := anchorOrders(3, 100)
	if len(orders) != 5 || !all {
		t.Errorf("3 anchors: %d orders (all %v), want the 5 besides the first", len(orders), all)
	}
	orders, all = anchorOrders(7, 50)
	if len(orders) != 50 || all {
		t.Errorf("7 anchors, budget 50: %d orders (all %v)", len(orders), all)
	}
	again, _ := anchorOrders(7, 50)
	if !slices.EqualFunc(orders, again, slices.Equal) {
		t.Error("orders differ between runs")
	}
	for _, o := range orders {
		if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, []int{0, 1, 2, 3, 4, 5, 6}) {
			t.Fatalf("%v is not an order of 7", o)
		}
	}
}
