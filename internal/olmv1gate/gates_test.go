package olmv1gate

import (
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	t.Parallel()
	var g Gates
	for _, n := range Names {
		want := n == WebhookProviderCertManager || n == WebhookProviderOpenshiftServiceCA
		if g.Enabled(n) != want {
			t.Errorf("%s = %t, want %t (v1.11's default)", n, g.Enabled(n), want)
		}
	}
	if g.CertificateProvider() != "cert-manager" || g.Experimental() || g.Changed() != "" {
		t.Errorf("defaults: provider %q, experimental %t, changed %q", g.CertificateProvider(), g.Experimental(), g.Changed())
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	g, err := Parse("BundleReleaseSupport=true, WebhookProviderCertManager=false", "SingleOwnNamespaceInstallSupport=1")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Enabled(BundleReleaseSupport) || g.Enabled(WebhookProviderCertManager) || !g.Enabled(SingleOwnNamespaceInstallSupport) {
		t.Errorf("parsed %s", g)
	}
	if g.CertificateProvider() != "OpenShift service CA" || !g.Experimental() {
		t.Errorf("provider %q, experimental %t", g.CertificateProvider(), g.Experimental())
	}
	if got := g.Changed(); got != "SingleOwnNamespaceInstallSupport=true,WebhookProviderCertManager=false,BundleReleaseSupport=true" {
		t.Errorf("Changed() = %q", got)
	}
	off := g.With(WebhookProviderOpenshiftServiceCA, false)
	if off.CertificateProvider() != "" || g.CertificateProvider() == "" {
		t.Error("With must not change the receiver, and both providers off means none")
	}
	for in, want := range map[string]string{
		"Nope=true":                  "unrecognized feature gate: Nope",
		"BundleReleaseSupport":       "missing bool value for BundleReleaseSupport",
		"BundleReleaseSupport=maybe": "invalid value of BundleReleaseSupport=maybe",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}
