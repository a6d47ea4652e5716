package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/resolve"
	"github.com/fbc-project/fbc/resolve/olmv1"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newResolveCmd() *cobra.Command {
	var (
		manifests  []string
		catalogs   []string
		priorities []string
		installed  []string
		subscribe  []string
		extensions []string
		gates      []string
		namespace  string
		global     string
		pull       image.Options
		output     = newEnum("text", "text", "json", "github")
	)
	cmd := &cobra.Command{
		Use:   "resolve (-f MANIFESTS... | CATALOG --subscribe PACKAGE[/CHANNEL][@STARTINGCSV]...)",
		Short: "Predict what OLM installs: Subscriptions (OLM classic) and ClusterExtensions (OLM v1)",
		Long: `resolve answers "if these Subscriptions merge, what does OLM install, and does it
resolve at all?" without a cluster. It resolves all Subscriptions of a
namespace together the way OLM classic's catalog operator does: candidates in
channel order, dependencies (olm.gvk.required, olm.package.required,
olm.label.required, olm.constraint), one bundle per package and one provider
per API in the namespace, installed CSVs that must stay, catalog priorities,
and OLM's preference-driven search with the SAT solver OLM uses. Each CSV it
installs is then checked against OLM's OperatorGroup rules (one group per
namespace, install modes, APIs of intersecting groups).

It also predicts what OLM v1 (operator-controller v1.11) does with each
ClusterExtension among the manifests: whether the API server admits it (the
ClusterExtension CRD's schema and CEL rules), which bundle it resolves from
the ClusterCatalogs (selector, availability, channels, version range,
upgrade edges, deprecations, priority) or operator-controller's exact error,
and whether the bundle installs with spec.config.inline. --catalog NAME=SOURCE
gives a ClusterCatalog's content; --installed-extension NAME=BUNDLE@VERSION
sets an extension's installed bundle (status.install.bundle);
--feature-gates sets operator-controller's gates (v1.11's defaults otherwise).

Two forms:

  fbc resolve -f MANIFESTS... --catalog [NAMESPACE/]NAME=SOURCE...
      reads Subscriptions, CatalogSources, ClusterServiceVersions (installed
      operators) and OperatorGroups from Kubernetes YAML or JSON: files,
      directory trees (.yaml, .yml, .json) or - for standard input (kustomize
      build | fbc resolve -f -). Several paths may follow one -f (-f a.yaml
      b.yaml, as a shell glob gives them), or -f may be repeated. Other kinds
      are skipped with one note. Every namespace with a Subscription or a CSV
      is resolved.

  fbc resolve CATALOG --subscribe PACKAGE[/CHANNEL][@STARTINGCSV]...
      the quick form: one catalog and Subscriptions to it named
      PACKAGE-CHANNEL. CATALOG is [[NAMESPACE/]NAME=]SOURCE (default name
      "catalog"); the Subscriptions live in --namespace, else in the
      catalog's namespace, else in "default".

--catalog NAMESPACE/NAME=SOURCE gives the content of CatalogSource NAME in
NAMESPACE from anything 'fbc render' reads: a catalog directory or file, an
oci: layout, an archive or a registry image. A CatalogSource with spec.image
and no --catalog is pulled the way render pulls (cache, --offline).
--catalog-priority sets spec.priority of a catalog given on the command line.
--installed adds an installed CSV; its properties are those of the catalog
bundle of that name, as OLM projects them; it becomes status.installedCSV of a
Subscription to its package. Catalogs in --global-namespace (default
openshift-marketplace; upstream OLM uses olm) are seen by every namespace.

The text output says, per Subscription, what is installed or upgraded, from
which channel and catalog, each candidate it preferred and why OLM passed it
over (one line each: the requirement no bundle of the answer meets, and what
stands in the way), and why each dependency was chosen; for a namespace that
does not resolve, a one-line summary of the conflict before OLM's message; per
ClusterExtension, the bundle and catalog, what each catalog offered and why
higher versions lost. -o json prints one object per namespace: {"namespace",
"install": [{"name", "package", "channel", "catalog", "replaces",
"subscription"}], "error", "why", "passedOver": [{"subscription", "bundle",
"reason"}]}, then one per ClusterExtension:
{"clusterExtension", "bundle", "error", "admission", "install", "catalogs",
"passedOver", "deprecation"}. When OLM itself decides at random (two
Subscriptions with conflicting preferences), every possible outcome is listed
("outcomes" in JSON). -o github prints a workflow annotation at the manifest
line of each failure.

Exit status: 0 when everything resolves and installs, 1 when a namespace or
an extension does not (with OLM's own message: "constraints not satisfiable:
...", a property OLM cannot parse, an OperatorGroup rule, the API server's
refusal, operator-controller's error), 2 for unusable arguments or
unreadable inputs.`,
		Example: `  fbc resolve -f gitops/ --catalog openshift-marketplace/redhat-operators=catalog/
  kustomize build overlays/prod | fbc resolve -f - --offline -o json
  fbc resolve catalog/ --subscribe etcd/alpha
  fbc resolve olm/operatorhubio=quay.io/operatorhubio/catalog:latest -n operators \
      --subscribe cert-manager --subscribe prometheus/beta --installed prometheusoperator.0.47.0
  fbc resolve -f clusterextensions/ --catalog operatorhubio=catalog/ \
      --installed-extension argocd=argocd-operator.v0.12.0@0.12.0 --feature-gates BundleReleaseSupport=true`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if len(manifests) > 0 && len(subscribe) == 0 {
				// -f a.yaml b.yaml (what a shell glob after -f makes):
				// without --subscribe there is no quick form, so the
				// other paths are manifests too.
				manifests, args = append(manifests, args...), nil
			}
			if err := checkResolveForm(args, manifests, subscribe); err != nil {
				return err
			}
			req := resolve.Request{GlobalNamespace: global, Namespace: namespace, ManifestPaths: manifests, Stdin: cmd.InOrStdin()}
			if err := parseResolveFlags(&req, args, catalogs, priorities, installed, subscribe); err != nil {
				return err
			}
			if err := parseResolveV1Flags(&req, extensions, gates); err != nil {
				return err
			}
			req.Warn = warner(cmd.ErrOrStderr())
			r, err := newRenderer(cmd, pull, 0)
			if err != nil {
				return err
			}
			req.Renderer = r
			rep, err := resolve.Run(cmd.Context(), req)
			if err != nil {
				return resolveFlagHints(err)
			}
			if err := writeResolveReport(cmd, output.String(), rep); err != nil {
				return err
			}
			return resolveVerdict(rep)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&manifests, "filename", "f", nil, "Kubernetes manifests: a file, a directory tree, or - for standard input (repeatable)")
	f.StringArrayVar(&catalogs, "catalog", nil, "content of a CatalogSource: [NAMESPACE/]NAME=SOURCE, SOURCE as fbc render reads it (repeatable)")
	f.StringArrayVar(&priorities, "catalog-priority", nil, "spec.priority of a catalog: [NAMESPACE/]NAME=N (repeatable)")
	f.StringArrayVar(&installed, "installed", nil, "an installed CSV: [NAMESPACE/]NAME, properties from the catalog bundle of that name (repeatable)")
	f.StringArrayVar(&subscribe, "subscribe", nil, "quick form: a Subscription, [NAME=]PACKAGE[/CHANNEL][@STARTINGCSV] (repeatable)")
	f.StringArrayVar(&extensions, "installed-extension", nil, "the bundle a ClusterExtension runs: NAME=BUNDLE@VERSION (repeatable; overrides its status.install.bundle)")
	f.StringArrayVar(&gates, "feature-gates", nil, "operator-controller feature gates: NAME=BOOL,... (repeatable; v1.11's defaults otherwise)")
	f.StringVarP(&namespace, "namespace", "n", "", "namespace of objects that name none; the quick form's Subscriptions")
	f.StringVar(&global, "global-namespace", "openshift-marketplace", "namespace whose catalogs every namespace sees (upstream OLM: olm)")
	output.register(cmd, "output", "o", "output format")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}

// checkResolveForm refuses arguments that fit neither form: -f MANIFESTS,
// or one CATALOG with --subscribe.
func checkResolveForm(args, manifests, subscribe []string) error {
	switch {
	case len(args) > 1:
		return usageErrorf("the quick form takes one CATALOG, got %d paths (%s); manifests go after -f", len(args), strings.Join(args, " "))
	case len(args) == 1 && len(manifests) > 0:
		return usageErrorf("give either -f MANIFESTS or a CATALOG with --subscribe, not both")
	case len(args) == 0 && len(manifests) == 0:
		return usageErrorf("nothing to resolve: give -f MANIFESTS (Subscriptions, ClusterExtensions and their catalogs), or a CATALOG with --subscribe PACKAGE")
	case len(args) == 0 && len(subscribe) > 0:
		return usageErrorf("--subscribe belongs to the quick form (fbc resolve CATALOG --subscribe PACKAGE); with -f, Subscriptions come from the manifests")
	case len(args) == 1 && len(subscribe) == 0:
		return usageErrorf("--subscribe PACKAGE[/CHANNEL][@STARTINGCSV] is required with a CATALOG")
	case countStdin(manifests) > 1:
		return usageErrorf("standard input (-) can be read only once")
	}
	return nil
}

// parseResolveV1Flags reads what only ClusterExtensions use:
// --installed-extension and --feature-gates.
func parseResolveV1Flags(req *resolve.Request, extensions, gates []string) error {
	for _, x := range extensions {
		ie, err := olmv1.ParseInstalledExtension(x)
		if err != nil {
			return usageErrorf("--installed-extension %v", err)
		}
		req.InstalledExtensions = append(req.InstalledExtensions, ie)
	}
	g, err := olmv1gate.Parse(gates...)
	if err != nil {
		return usageErrorf("--feature-gates: %v", err)
	}
	req.Gates = g
	return nil
}

// writeResolveReport writes the report as -o says: text, json, or GitHub
// workflow commands for its findings.
func writeResolveReport(cmd *cobra.Command, format string, rep *resolve.Report) error {
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		err = rep.WriteJSON(&buf)
	case "github":
		wd, werr := os.Getwd()
		if werr != nil {
			return fmt.Errorf("finding the working directory: %w", werr)
		}
		err = vreport.WriteGitHub(&buf, &validate.Result{Diagnostics: rep.Findings()}, vreport.Options{WorkDir: wd})
	default:
		err = rep.WriteText(&buf)
	}
	if err != nil {
		return err
	}
	_, err = buf.WriteTo(cmd.OutOrStdout())
	return err
}

// resolveVerdict is the run's error when something does not resolve or
// install: exit 1 with a one-line summary.
func resolveVerdict(rep *resolve.Report) error {
	ns, ext := rep.Failures()
	var parts []string
	switch {
	case ns == 1 && len(rep.Namespaces) == 1:
		parts = append(parts, fmt.Sprintf("namespace %s does not resolve", rep.Namespaces[0].Namespace))
		if rep.Namespaces[0].Err == nil {
			parts[0] = fmt.Sprintf("OLM fails to install in namespace %s", rep.Namespaces[0].Namespace)
		}
	case ns > 0:
		parts = append(parts, fmt.Sprintf("%d of %d namespaces %s not resolve or install", ns, len(rep.Namespaces), plural(ns, "does", "do")))
	}
	switch {
	case ext == 1 && len(rep.Extensions) == 1:
		parts = append(parts, fmt.Sprintf("ClusterExtension %s does not install", rep.Extensions[0].Extension.Name))
	case ext > 0:
		parts = append(parts, fmt.Sprintf("%d of %d ClusterExtensions do not install", ext, len(rep.Extensions)))
	}
	if len(parts) == 0 {
		return nil
	}
	return fault.Errorf(fault.Input, "%s", strings.Join(parts, "; "))
}

// parseResolveFlags fills the request from the command line; the quick
// form's CATALOG becomes a catalog and the --subscribe Subscriptions point
// at it.
func parseResolveFlags(req *resolve.Request, args, catalogs, priorities, installed, subscribe []string) error {
	if err := resolve.CheckNamespace("--global-namespace", req.GlobalNamespace); err != nil {
		return usageErrorf("%v", err)
	}
	if req.Namespace != "" {
		if err := resolve.CheckNamespace("--namespace", req.Namespace); err != nil {
			return usageErrorf("%v", err)
		}
	}
	if len(args) == 1 {
		main, err := resolve.ParseQuickCatalog(args[0], req.Namespace)
		if err != nil {
			return usageErrorf("CATALOG %v", err)
		}
		// The Subscriptions live in --namespace, else in the catalog's
		// namespace, else in "default".
		if req.Namespace == "" {
			req.Namespace = main.Key.Namespace
		}
		req.Catalogs = append(req.Catalogs, main)
		subs, err := resolve.QuickSubscriptions(subscribe, req.Namespace, main.Key)
		if err != nil {
			return usageErrorf("--subscribe %v", err)
		}
		req.Subscriptions = subs
	}
	for _, c := range catalogs {
		cf, err := resolve.ParseCatalogContent(c)
		if err != nil {
			return usageErrorf("--catalog %v", err)
		}
		req.Catalogs = append(req.Catalogs, cf)
	}
	for _, p := range priorities {
		pf, err := resolve.ParseCatalogPriority(p)
		if err != nil {
			return usageErrorf("--catalog-priority %v", err)
		}
		req.Priorities = append(req.Priorities, pf)
	}
	for _, i := range installed {
		inf, err := resolve.ParseInstalledCSV(i)
		if err != nil {
			return usageErrorf("--installed %v", err)
		}
		req.Installed = append(req.Installed, inf)
	}
	return nil
}

// resolveFlags are the flags that give each of a resolve.Request's lists.
var resolveFlags = map[resolve.RequestField]string{
	resolve.FieldSubscriptions:       "--subscribe",
	resolve.FieldCatalogs:            "--catalog",
	resolve.FieldPriorities:          "--catalog-priority",
	resolve.FieldInstalled:           "--installed",
	resolve.FieldInstalledExtensions: "--installed-extension",
}

// resolveFlagHints words resolve's errors the way the user gave the
// request: a value of the request by its flag, and what is missing by the
// flag that gives it.
func resolveFlagHints(err error) error {
	var re *resolve.RequestError
	if errors.As(err, &re) {
		msg := fmt.Sprintf("%s %s: %s", resolveFlags[re.Field], re.Value, re.Msg)
		if re.NoContent != nil {
			msg += " (give its content with --catalog)"
		}
		return usageErrorf("%s", msg)
	}
	if errors.Is(err, resolve.ErrNoNamespace) {
		return fmt.Errorf("%w\n(give --namespace for manifests that name none)", err)
	}
	// Catalogs are read together: each one that failed is an error of its
	// own.
	var ce *resolve.CatalogError
	var v1ce *olmv1.CatalogError
	if joined, ok := err.(interface{ Unwrap() []error }); ok && (errors.As(err, &ce) || errors.As(err, &v1ce)) {
		errs := joined.Unwrap()
		hinted := make([]error, len(errs))
		for i, e := range errs {
			hinted[i] = catalogHint(e)
		}
		return errors.Join(hinted...)
	}
	return catalogHint(err)
}

// catalogHint says how to give the content of a CatalogSource fbc could not
// read.
func catalogHint(err error) error {
	var v1ce *olmv1.CatalogError
	if errors.As(err, &v1ce) {
		switch {
		case v1ce.Source == "":
			return fmt.Errorf("%w; give its content with --catalog %s=SOURCE (a catalog directory, file or image)", err, v1ce.Name)
		case errors.Is(err, image.ErrOffline):
			return fmt.Errorf("%w\n(run once without --offline to fill the cache, or give the catalog's content with --catalog %s=SOURCE)", err, v1ce.Name)
		case !v1ce.Given:
			return fmt.Errorf("%w\n(the image is spec.source.image.ref of ClusterCatalog %s at %s; --catalog %s=SOURCE gives its content instead)", err, v1ce.Name, v1ce.Manifest, v1ce.Name)
		}
		return err
	}
	var ce *resolve.CatalogError
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case ce.Source == "":
		return fmt.Errorf("%w; give its content with --catalog %s=SOURCE (a catalog directory, file or image)", err, ce.Key)
	case errors.Is(err, image.ErrOffline):
		return fmt.Errorf("%w\n(run once without --offline to fill the cache, or give the catalog's content with --catalog %s=SOURCE)", err, ce.Key)
	case ce.Manifest.File != "":
		return fmt.Errorf("%w\n(the image is spec.image of CatalogSource %s at %s; --catalog %s=SOURCE gives its content instead)", err, ce.Key, ce.Manifest, ce.Key)
	}
	return err
}
