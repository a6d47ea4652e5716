package resolve

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/model"
)

// UpgradeChecker answers, for one catalog, what OLM classic does with a
// single Subscription once dependencies count: `fbc upgrade-path
// --semantics classic` asks it about each step whose bundle declares
// dependencies (it implements graph.DependencyResolver). The namespace holds
// the Subscription, the installed bundle and nothing else, and sees only
// the catalog.
type UpgradeChecker struct {
	ctx     context.Context
	catalog *Catalog
}

// upgradeNamespace names the namespace and catalog of the questions, as
// the quick form of fbc resolve does.
const upgradeNamespace = "default"

// NewUpgradeChecker makes a checker over a catalog's model; the questions
// call the catalog "catalog" in namespace "default", as the quick form of
// fbc resolve does.
func NewUpgradeChecker(ctx context.Context, m *model.Catalog) *UpgradeChecker {
	return &UpgradeChecker{ctx: ctx, catalog: CatalogFromModel(CatalogKey{Namespace: upgradeNamespace, Name: "catalog"}, 0, m)}
}

// Step resolves a Subscription of pkg (channel "" for none) with from
// installed (from "" for a fresh install): the bundle OLM installs or
// upgrades to, "" when from stays, or OLM's error. An installed bundle the
// catalog lacks carries only its package and version.
func (u *UpgradeChecker) Step(pkg, channel, from, fromVersion string) (string, error) {
	ns := u.namespace(pkg, channel)
	if from != "" {
		in, ok := InstalledFrom(from, ns.Catalogs)
		if !ok {
			v, _ := json.Marshal(map[string]string{"packageName": pkg, "version": fromVersion})
			in = Installed{Name: from, Version: fromVersion, Properties: []Property{{Type: typePackage, Value: v}}}
		}
		ns.Installed = []Installed{in}
		ns.Subscriptions[0].InstalledCSV = from
	}
	res, err := Resolve(u.ctx, ns)
	if err != nil {
		return "", err
	}
	if res.Err != nil {
		return "", res.Err
	}
	if next := res.Subscriptions[0].Next; next != nil {
		return next.Name, nil
	}
	return "", nil
}

// Why is OLM's reason why a fresh Subscription that starts at bundle does
// not resolve, "" when it does: the conflicting constraints other than the
// Subscription's own ("subscription S exists", "... requires BUNDLE"),
// which say nothing new here.
func (u *UpgradeChecker) Why(pkg, channel, bundle string) string {
	ns := u.namespace(pkg, channel)
	ns.Subscriptions[0].StartingCSV = bundle
	res, err := Resolve(u.ctx, ns)
	switch {
	case err != nil:
		return err.Error()
	case res.Err == nil:
		return ""
	}
	var core NotSatisfiable
	if !errors.As(res.Err, &core) {
		return res.Err.Error()
	}
	prefix := "subscription " + ns.Subscriptions[0].Name + " "
	var reasons []string
	for _, c := range core {
		if !strings.HasPrefix(c, prefix) && !slices.Contains(reasons, c) {
			reasons = append(reasons, c)
		}
	}
	if len(reasons) == 0 {
		return res.Err.Error()
	}
	return strings.Join(reasons, "; ")
}

func (u *UpgradeChecker) namespace(pkg, channel string) *Namespace {
	name := pkg
	if channel != "" {
		name += "-" + channel
	}
	return &Namespace{
		Name:     upgradeNamespace,
		Catalogs: []*Catalog{u.catalog},
		Subscriptions: []Subscription{{Name: name, Namespace: upgradeNamespace, Package: pkg, Channel: channel,
			Catalog: u.catalog.Key}},
	}
}
