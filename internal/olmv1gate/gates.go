// Package olmv1gate holds operator-controller's feature gates: their names,
// the defaults of the release fbc follows (v1.11), and the Name=bool list
// operator-controller's --feature-gates flag takes. Resolution (resolve/olmv1)
// and the olmv1 bundle profile (validate/profile) read the same gates.
package olmv1gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The gates operator-controller v1.11 knows.
const (
	SingleOwnNamespaceInstallSupport  = "SingleOwnNamespaceInstallSupport"
	WebhookProviderCertManager        = "WebhookProviderCertManager"
	WebhookProviderOpenshiftServiceCA = "WebhookProviderOpenshiftServiceCA"
	BoxcutterRuntime                  = "BoxcutterRuntime"
	DeploymentConfig                  = "DeploymentConfig"
	BundleReleaseSupport              = "BundleReleaseSupport"
)

// Names lists the gates in the order operator-controller declares them.
var Names = []string{
	SingleOwnNamespaceInstallSupport,
	WebhookProviderCertManager,
	WebhookProviderOpenshiftServiceCA,
	BoxcutterRuntime,
	DeploymentConfig,
	BundleReleaseSupport,
}

// defaults are v1.11's: the two webhook certificate providers are GA and
// on; everything else is alpha and off.
var defaults = map[string]bool{
	WebhookProviderCertManager:        true,
	WebhookProviderOpenshiftServiceCA: true,
}

// Gates is a set of gate values. The zero value is v1.11's defaults.
type Gates struct {
	// set holds the gates given explicitly; the others take defaults.
	set map[string]bool
}

// Enabled reports whether a gate is on. An unknown name is off.
func (g Gates) Enabled(name string) bool {
	if v, ok := g.set[name]; ok {
		return v
	}
	return defaults[name]
}

// With returns g with one gate set. It panics on a name operator-controller
// does not know: callers use the constants above.
func (g Gates) With(name string, on bool) Gates {
	if !slices.Contains(Names, name) {
		panic("olmv1gate: unknown gate " + name)
	}
	out := Gates{set: make(map[string]bool, len(g.set)+1)}
	for k, v := range g.set {
		out.set[k] = v
	}
	out.set[name] = on
	return out
}

// Parse reads NAME=BOOL pairs separated by commas, as operator-controller's
// --feature-gates flag does, on top of the defaults. Several values (a
// repeated flag) apply in order; a later value of a gate wins.
func Parse(values ...string) (Gates, error) {
	g := Gates{set: map[string]bool{}}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, val, ok := strings.Cut(item, "=")
			name = strings.TrimSpace(name)
			if !ok {
				return Gates{}, fmt.Errorf("missing bool value for %s", name)
			}
			if !slices.Contains(Names, name) {
				return Gates{}, fmt.Errorf("unrecognized feature gate: %s (operator-controller v1.11 knows %s)", name, strings.Join(Names, ", "))
			}
			on, err := strconv.ParseBool(strings.TrimSpace(val))
			if err != nil {
				return Gates{}, fmt.Errorf("invalid value of %s=%s, err: %v", name, val, err)
			}
			g.set[name] = on
		}
	}
	return g, nil
}

// CertificateProvider names the certificate provider operator-controller
// installs webhooks with, "" when neither provider gate is on (webhooks
// are then not supported). cert-manager wins when both are on, as in
// operator-controller.
func (g Gates) CertificateProvider() string {
	switch {
	case g.Enabled(WebhookProviderCertManager):
		return "cert-manager"
	case g.Enabled(WebhookProviderOpenshiftServiceCA):
		return "OpenShift service CA"
	}
	return ""
}

// Experimental reports whether an alpha gate is on: those come with
// operator-controller's experimental manifests, which install the
// experimental ClusterExtension CRD (spec.config, status.install.bundle.release).
func (g Gates) Experimental() bool {
	for _, n := range []string{SingleOwnNamespaceInstallSupport, BoxcutterRuntime, DeploymentConfig, BundleReleaseSupport} {
		if g.Enabled(n) {
			return true
		}
	}
	return false
}

// String lists every gate with its value, in declaration order, as
// NAME=BOOL pairs.
func (g Gates) String() string {
	parts := make([]string, len(Names))
	for i, n := range Names {
		parts[i] = fmt.Sprintf("%s=%t", n, g.Enabled(n))
	}
	return strings.Join(parts, ",")
}

// Changed lists the gates whose value differs from the default, as
// NAME=BOOL pairs in declaration order ("" when none does).
func (g Gates) Changed() string {
	var parts []string
	for _, n := range Names {
		if g.Enabled(n) != defaults[n] {
			parts = append(parts, fmt.Sprintf("%s=%t", n, g.Enabled(n)))
		}
	}
	return strings.Join(parts, ",")
}
