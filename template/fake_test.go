package template

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// fakeBundle is a small handmade bundle: an olm.package property and a CSV
// as olm.bundle.object, like render's output before migration.
func fakeBundle(pkg, version, image string) declcfg.Bundle {
	name := pkg + ".v" + version
	csv := map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1",
		"kind":       "ClusterServiceVersion",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"version":     version,
			"description": "the " + pkg + " operator, version " + version,
			"icon":        []any{map[string]any{"base64data": base64.StdEncoding.EncodeToString([]byte("icon " + version)), "mediatype": "image/png"}},
		},
	}
	raw, _ := json.Marshal(csv)
	return declcfg.Bundle{
		Schema:  declcfg.SchemaBundle,
		Name:    name,
		Package: pkg,
		Image:   image,
		Properties: []declcfg.Property{
			declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageProperty{PackageName: pkg, Version: version}),
			declcfg.MustProperty(declcfg.PropertyBundleObject, declcfg.BundleObject{Data: raw}),
		},
	}
}

// fakeRegistry renders references of the form REPO:PKG.vVERSION (or
// anything listed in extra) without a registry. Templates render their
// images concurrently, so the record of rendered references is locked.
type fakeRegistry struct {
	extra    map[string][]declcfg.Bundle
	mu       sync.Mutex
	rendered []string
}

func (f *fakeRegistry) render(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
	f.mu.Lock()
	f.rendered = append(f.rendered, ref)
	f.mu.Unlock()
	if bs, ok := f.extra[ref]; ok {
		return bs, nil
	}
	_, tag, ok := strings.Cut(ref, ":")
	pkg, version, ok2 := strings.Cut(tag, ".v")
	if !ok || !ok2 {
		return nil, fmt.Errorf("manifest unknown: %s", ref)
	}
	return []declcfg.Bundle{fakeBundle(pkg, version, ref)}, nil
}

func renderString(t *testing.T, f *fakeRegistry, src string, opts Options) (*Result, error) {
	t.Helper()
	if f == nil {
		f = &fakeRegistry{}
	}
	opts.Render = f.render
	return Render(context.Background(), "t.yaml", []byte(src), opts)
}

// channelText is a compact form of a config's channels for comparisons:
// "chan: name[<replaces][!skip,skip][~range] ...".
func channelText(cfg *declcfg.DeclarativeConfig) string {
	var b strings.Builder
	for _, c := range cfg.Channels {
		fmt.Fprintf(&b, "%s:", c.Name)
		for _, e := range c.Entries {
			fmt.Fprintf(&b, " %s", strings.TrimPrefix(e.Name, "op.v"))
			if e.Replaces != "" {
				fmt.Fprintf(&b, "<%s", strings.TrimPrefix(e.Replaces, "op.v"))
			}
			if len(e.Skips) > 0 {
				s := make([]string, len(e.Skips))
				for i, n := range e.Skips {
					s[i] = strings.TrimPrefix(n, "op.v")
				}
				fmt.Fprintf(&b, "!%s", strings.Join(s, ","))
			}
			if e.SkipRange != "" {
				fmt.Fprintf(&b, "~%s", e.SkipRange)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
