package resolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/internal/textout"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/resolve/olmv1"
)

// Report is what one run finds: each namespace OLM classic resolves, and
// each ClusterExtension OLM v1 resolves.
type Report struct {
	Namespaces []*Result
	Extensions []*olmv1.Result
}

// Failures counts the namespaces that do not resolve or whose CSVs OLM
// fails to install, and the extensions that do not install.
func (r *Report) Failures() (namespaces, extensions int) {
	for _, res := range r.Namespaces {
		if res.Err != nil || len(res.InstallFailures) > 0 {
			namespaces++
		}
	}
	for _, res := range r.Extensions {
		if res.Failed() {
			extensions++
		}
	}
	return namespaces, extensions
}

// Run resolves everything a request holds: the Subscriptions and CSVs of
// each namespace the way OLM classic does (with its install-time
// OperatorGroup rules), and each ClusterExtension the way OLM v1 does.
// Catalog contents whose name is a ClusterCatalog of the manifests go to
// OLM v1; the others name CatalogSources. Errors are for requests that
// cannot run (see Prepare and olmv1.Resolve).
func Run(ctx context.Context, req Request) (*Report, error) {
	m := req.Manifests
	if m == nil && len(req.ManifestPaths) > 0 {
		var err error
		if m, err = ReadManifests(ctx, req.ManifestPaths, req.Stdin); err != nil {
			return nil, err
		}
	}
	if m == nil {
		m = &Manifests{}
	}
	req.Manifests = m
	noteSkipped(req, m)
	classic := len(m.Subscriptions)+len(m.CSVs)+len(req.Subscriptions)+len(req.Installed) > 0
	v1 := len(m.ClusterExtensions) > 0
	classicContents, v1Contents, err := splitCatalogs(m, req.Catalogs, classic, v1)
	if err != nil {
		return nil, err
	}
	if !v1 && len(req.InstalledExtensions) > 0 {
		return nil, &RequestError{Field: FieldInstalledExtensions, Value: req.InstalledExtensions[0].Extension, Msg: "the manifests define no ClusterExtension"}
	}
	rep := &Report{}
	if classic || !v1 {
		creq := req
		creq.Catalogs = classicContents
		namespaces, err := Prepare(ctx, creq)
		if err != nil {
			return nil, err
		}
		for _, ns := range namespaces {
			res, err := Resolve(ctx, ns)
			if err != nil {
				return nil, err
			}
			for _, sub := range ns.Subscriptions {
				if sub.Pos.IsValid() {
					res.Pos = sub.Pos
					break
				}
			}
			rep.Namespaces = append(rep.Namespaces, res)
		}
		checkOperatorGroups(rep.Namespaces, namespaces, m, req)
	}
	if v1 {
		results, err := olmv1.Resolve(ctx, olmv1.Request{Catalogs: m.ClusterCatalogs, Extensions: m.ClusterExtensions, Contents: v1Contents,
			Installed: req.InstalledExtensions, Gates: req.Gates, Renderer: req.Renderer, Warn: req.Warn})
		if err != nil {
			var re *olmv1.RequestError
			if errors.As(err, &re) {
				return nil, &RequestError{Field: requestField(re.Field), Value: re.Value, Msg: re.Msg}
			}
			return nil, err
		}
		rep.Extensions = results
	}
	return rep, nil
}

func requestField(f string) RequestField {
	if f == olmv1.FieldInstalled {
		return FieldInstalledExtensions
	}
	return FieldCatalogs
}

// noteSkipped says once which documents no part of resolution reads, and
// for each object of a kind it reads in another apiVersion, where it is.
func noteSkipped(req Request, m *Manifests) {
	for _, o := range m.Elsewhere {
		req.Warn.Printf("%s", o.Pos.Prefix(fmt.Sprintf("skipped %s %s: its apiVersion is %s; resolve reads %s objects of apiVersion %s",
			o.Kind, o.Name, o.APIVersion, o.Kind, o.Want)))
	}
	if len(m.Skipped) == 0 {
		return
	}
	kinds := make([]string, 0, len(m.Skipped))
	n := 0
	for k, c := range m.Skipped {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
		n += c
	}
	slices.Sort(kinds)
	req.Warn.Printf("skipped %d %s resolve does not read (%s): it reads Subscription, CatalogSource, ClusterServiceVersion, OperatorGroup, Namespace, ClusterCatalog and ClusterExtension",
		n, plural(n, "document", "documents"), strings.Join(kinds, ", "))
}

// splitCatalogs sends each catalog content to the ClusterCatalog of its
// name (a name without a namespace that a ClusterCatalog of the manifests
// has), to the CatalogSource of its name, or to both when both kinds have
// it. In a run without Subscriptions and CSVs, a content that names no
// ClusterCatalog is a mistake.
func splitCatalogs(m *Manifests, contents []CatalogContent, classic, v1 bool) ([]CatalogContent, []olmv1.CatalogContent, error) {
	var cl []CatalogContent
	var v []olmv1.CatalogContent
	var ccNames []string
	for _, c := range m.ClusterCatalogs {
		ccNames = append(ccNames, c.Name)
	}
	for _, cf := range contents {
		isCC := cf.Key.Namespace == "" && slices.Contains(ccNames, cf.Key.Name)
		isCS := slices.ContainsFunc(m.CatalogSources, func(cs CatalogSourceManifest) bool {
			return cs.Key.Name == cf.Key.Name && (cf.Key.Namespace == "" || cs.Key.Namespace == cf.Key.Namespace)
		}) || slices.ContainsFunc(m.Subscriptions, func(s SubscriptionManifest) bool { return s.Catalog.Name == cf.Key.Name })
		switch {
		case isCC:
			v = append(v, olmv1.CatalogContent{Name: cf.Key.Name, Source: cf.Source})
			if isCS {
				cl = append(cl, cf)
			}
		case !classic && v1:
			what := "ClusterCatalog"
			if cf.Key.Namespace != "" {
				what = "Subscription or CatalogSource"
			}
			have := "none"
			if len(ccNames) > 0 {
				have = strings.Join(ccNames, ", ")
			}
			msg := fmt.Sprintf("the manifests define no %s of that name (their ClusterCatalogs: %s)", what, have)
			if s := suggestName(cf.Key.Name, ccNames); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, nil, &RequestError{Field: FieldCatalogs, Value: keyName(cf.Key), Msg: msg}
		default:
			cl = append(cl, cf)
		}
	}
	return cl, v, nil
}

// keyName is a catalog key as the request wrote it: NAME alone when it has
// no namespace.
func keyName(k CatalogKey) string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.String()
}

func suggestName(name string, names []string) string { return declcfg.Suggest(name, names) }

// WriteText writes the namespaces' results, then the extensions'.
func (rep *Report) WriteText(w io.Writer) error {
	if err := WriteText(w, rep.Namespaces); err != nil {
		return err
	}
	tw := textout.New(w)
	if len(rep.Namespaces) > 0 && len(rep.Extensions) > 0 {
		tw.Printf("\n")
	}
	olmv1.WriteText(tw, rep.Extensions)
	return tw.Err()
}

// WriteJSON writes one JSON object per namespace, then one per
// ClusterExtension: a JSON stream.
func (rep *Report) WriteJSON(w io.Writer) error {
	if err := WriteJSON(w, rep.Namespaces); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	for _, r := range rep.Extensions {
		if err := enc.Encode(r.JSON()); err != nil {
			return err
		}
	}
	return nil
}

// Finding rule ids for OLM classic, the titles of -o github annotations.
const (
	RuleResolution    = "olm-resolution"
	RuleOperatorGroup = "olm-operatorgroup"
)

// Findings are the report's problems at their manifest positions: a
// namespace that does not resolve at its first Subscription, each CSV OLM
// fails at its Subscription, each extension's problems at its fields.
func (rep *Report) Findings() []declcfg.Finding {
	var out []declcfg.Finding
	for _, r := range rep.Namespaces {
		if r.Err != nil {
			out = append(out, declcfg.Finding{Rule: RuleResolution, Severity: declcfg.SeverityError, Pos: r.Pos,
				Message: fmt.Sprintf("namespace %s does not resolve: %v", r.Namespace, r.Err)})
		}
		for _, f := range r.InstallFailures {
			msg := fmt.Sprintf("namespace %s: OLM fails CSV %s (%s): %s", r.Namespace, f.CSV, f.Reason, f.Message)
			if f.Detail != "" {
				msg += " (" + f.Detail + ")"
			}
			out = append(out, declcfg.Finding{Rule: RuleOperatorGroup, Severity: declcfg.SeverityError, Pos: f.Pos, Bundle: f.CSV, Message: msg})
		}
	}
	for _, r := range rep.Extensions {
		out = append(out, r.Findings()...)
	}
	return out
}
