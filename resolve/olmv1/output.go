package olmv1

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/textout"
)

// maxShown bounds the passed-over bundles text output lists; JSON lists
// them all.
const maxShown = 5

// WriteText explains each extension: what the API server says, what
// operator-controller resolves (or its error), what each catalog offered,
// why higher versions lost, deprecations, and whether the bundle installs
// with the extension's configuration.
func WriteText(tw *textout.Writer, results []*Result) {
	for i, r := range results {
		if i > 0 {
			tw.Printf("\n")
		}
		writeResult(tw, r)
	}
}

func (r *Result) headline() string {
	e := r.Extension
	switch {
	case r.Err != nil:
		return "does not resolve"
	case r.Installed != nil && r.Bundle.Name == r.Installed.Name:
		return fmt.Sprintf("stays on %s (%s)", r.Bundle.Name, r.Bundle.describe(e))
	case r.Installed != nil:
		return fmt.Sprintf("upgrades %s (%s) -> %s (%s)", r.Installed.Name, r.Installed.Version, r.Bundle.Name, r.Bundle.describe(e))
	}
	return fmt.Sprintf("installs %s (%s)", r.Bundle.Name, r.Bundle.describe(e))
}

func (b *Resolved) describe(e *ClusterExtension) string {
	v := "version " + b.Version
	if b.Release != nil {
		v += ", release " + *b.Release
	}
	return fmt.Sprintf("%s, package %s, catalog %s", v, e.PackageName, b.Catalog)
}

func writeResult(tw *textout.Writer, r *Result) {
	e := r.Extension
	name := "clusterextension " + e.Name
	switch {
	case !r.Admission.Allowed():
		tw.Printf("%s: the API server refuses it\n", name)
		for _, ae := range r.Admission.Errors {
			tw.Printf("  %s\n", ae.Pos.Prefix(ae.Message))
		}
		if r.Admission.Unchecked {
			tw.Printf("  (the CRD's CEL rules run once these are corrected)\n")
		}
		writePruned(tw, r)
		tw.Printf("  if it were admitted, operator-controller: %s\n", r.headline())
		if r.Err != nil {
			tw.Printf("    %s\n", r.Err)
		}
		return
	case r.Err != nil:
		tw.Printf("%s: does not resolve\n", name)
		tw.Printf("  %s\n", r.Err)
		if r.Hint != "" {
			tw.Printf("  %s\n", e.FieldPos("spec", "source", "catalog", "packageName").Prefix(r.Hint))
		}
		if r.selectsNothing() {
			tw.Printf("  %s\n", e.FieldPos("spec", "source", "catalog", "selector").Prefix("its selector matches none of the ClusterCatalogs"))
		}
	case r.Install != nil && r.Install.Err != nil:
		tw.Printf("%s: %s, but operator-controller refuses to install it\n", name, r.headline())
		tw.Printf("  %s\n", r.Install.Err)
	default:
		tw.Printf("%s: %s\n", name, r.headline())
		tw.Printf("  image %s\n", r.Bundle.Image)
	}
	writePruned(tw, r)
	writeCatalogs(tw, r)
	if len(r.PassedOver) > 0 {
		what := "passed over"
		if r.Err != nil {
			what = "highest versions"
		}
		tw.Printf("  %s:\n", what)
		for i, p := range r.PassedOver {
			if i == maxShown {
				tw.Printf("    and %d more\n", len(r.PassedOver)-i)
				break
			}
			tw.Printf("    %s (%s, catalog %s): %s\n", p.Bundle, p.Version, p.Catalog, p.Reason)
		}
	}
	if d := r.Deprecation; d != nil {
		for _, m := range d.Package {
			tw.Printf("  deprecated package: %s\n", m)
		}
		for _, m := range d.Channel {
			tw.Printf("  deprecated channel: %s\n", m)
		}
		for _, m := range d.Bundle {
			tw.Printf("  deprecated bundle: %s\n", m)
		}
	}
	if ic := r.Install; ic != nil {
		if ic.Err == nil && ic.Targets != nil {
			tw.Printf("  %s\n", watches(ic.Targets))
		}
		for _, n := range ic.Notes {
			tw.Printf("  note: %s\n", n)
		}
	}
}

// writePruned notes the fields the API server would drop, whether or not
// it admits the extension.
func writePruned(tw *textout.Writer, r *Result) {
	for _, p := range r.Admission.Pruned {
		tw.Printf("  note: %s: the API server drops it\n", p.Pos.Prefix(p.Message))
	}
}

// selectsNothing reports whether the extension's selector left out every
// ClusterCatalog of the manifests.
func (r *Result) selectsNothing() bool {
	if r.Extension.Selector == nil || len(r.Catalogs) == 0 {
		return false
	}
	for _, c := range r.Catalogs {
		if c.Skipped != skippedSelector {
			return false
		}
	}
	return true
}

func watches(targets []string) string {
	if len(targets) == 1 && targets[0] == "" {
		return "the operator watches all namespaces"
	}
	return "the operator watches namespace " + strings.Join(targets, ", ")
}

func writeCatalogs(tw *textout.Writer, r *Result) {
	if len(r.Catalogs) == 0 {
		tw.Printf("  catalogs: none (the manifests define no ClusterCatalog)\n")
		return
	}
	tw.Printf("  catalogs:\n")
	for _, c := range r.Catalogs {
		tw.Printf("    %s (priority %d): %s\n", c.Name, c.Priority, c.describe(r.Extension.PackageName))
	}
}

func (c CatalogReport) describe(pkg string) string {
	switch {
	case c.Skipped != "":
		return "not considered: " + c.Skipped
	case c.NotServing != "":
		return "not being served (" + c.NotServing + "): the walk fails here"
	case c.Unreadable != "":
		return c.Unreadable + ": the walk fails here"
	case !c.PackageFound:
		return "no package " + pkg
	case c.Matched == 0:
		return fmt.Sprintf("%d of %d bundles match", c.Matched, c.Total)
	}
	s := fmt.Sprintf("%d of %d bundles match; best %s (%s)", c.Matched, c.Total, c.Best, c.BestVersion)
	if c.BestDeprecated {
		s += ", deprecated"
	}
	if c.Outcome != "" {
		s += ": " + c.Outcome
	}
	return s
}

// The JSON form of a result: `fbc resolve -o json` prints one object per
// extension.
type (
	resultJSON struct {
		ClusterExtension string           `json:"clusterExtension"`
		Package          string           `json:"package"`
		Installed        *InstalledBundle `json:"installed"`
		Bundle           *bundleJSON      `json:"bundle"`
		Error            *string          `json:"error"`
		Hint             string           `json:"hint,omitempty"`
		Admission        admissionJSON    `json:"admission"`
		Install          *installJSON     `json:"install"`
		Catalogs         []catalogJSON    `json:"catalogs"`
		PassedOver       []passedJSON     `json:"passedOver"`
		Deprecation      *deprecationOut  `json:"deprecation"`
	}
	bundleJSON struct {
		Name    string  `json:"name"`
		Version string  `json:"version"`
		Release *string `json:"release,omitempty"`
		Image   string  `json:"image"`
		Catalog string  `json:"catalog"`
	}
	admissionJSON struct {
		Allowed bool        `json:"allowed"`
		Errors  []fieldJSON `json:"errors"`
		Pruned  []fieldJSON `json:"pruned,omitempty"`
	}
	fieldJSON struct {
		Field   string `json:"field"`
		Message string `json:"message"`
		Pos     string `json:"position,omitempty"`
	}
	installJSON struct {
		Error   *string  `json:"error"`
		Targets []string `json:"targetNamespaces"`
		Notes   []string `json:"notes,omitempty"`
	}
	catalogJSON struct {
		Name           string `json:"catalogName"`
		Priority       int32  `json:"priority"`
		Skipped        string `json:"skipped,omitempty"`
		NotServing     string `json:"notServing,omitempty"`
		Unreadable     string `json:"unreadable,omitempty"`
		PackageFound   bool   `json:"packageFound"`
		TotalBundles   int    `json:"totalBundles"`
		MatchedBundles int    `json:"matchedBundles"`
		Best           string `json:"best,omitempty"`
		BestDeprecated bool   `json:"bestDeprecated,omitempty"`
		Outcome        string `json:"outcome,omitempty"`
	}
	passedJSON struct {
		Bundle  string `json:"bundle"`
		Version string `json:"version"`
		Catalog string `json:"catalog"`
		Reason  string `json:"reason"`
	}
	deprecationOut struct {
		Catalog string             `json:"catalog"`
		Entries []DeprecationEntry `json:"entries"`
		Package []string           `json:"package,omitempty"`
		Channel []string           `json:"channel,omitempty"`
		Bundle  []string           `json:"bundle,omitempty"`
	}
)

// JSON is the result as `fbc resolve -o json` prints it.
func (r *Result) JSON() any {
	out := resultJSON{ClusterExtension: r.Extension.Name, Package: r.Extension.PackageName, Installed: r.Installed,
		Admission: admissionJSON{Allowed: r.Admission.Allowed(), Errors: []fieldJSON{}},
		Catalogs:  []catalogJSON{}, PassedOver: []passedJSON{}}
	for _, ae := range r.Admission.Errors {
		out.Admission.Errors = append(out.Admission.Errors, fieldJSON{ae.Field, ae.Message, posString(ae)})
	}
	for _, ae := range r.Admission.Pruned {
		out.Admission.Pruned = append(out.Admission.Pruned, fieldJSON{ae.Field, ae.Message, posString(ae)})
	}
	if r.Err != nil {
		msg := r.Err.Error()
		out.Error = &msg
		out.Hint = r.Hint
	}
	if b := r.Bundle; b != nil {
		out.Bundle = &bundleJSON{Name: b.Name, Version: b.Version, Release: b.Release, Image: b.Image, Catalog: b.Catalog}
	}
	if ic := r.Install; ic != nil {
		j := &installJSON{Targets: ic.Targets, Notes: ic.Notes}
		if ic.Err != nil {
			msg := ic.Err.Error()
			j.Error = &msg
		}
		out.Install = j
	}
	for _, c := range r.Catalogs {
		out.Catalogs = append(out.Catalogs, catalogJSON{Name: c.Name, Priority: c.Priority, Skipped: c.Skipped, NotServing: c.NotServing, Unreadable: c.Unreadable, PackageFound: c.PackageFound,
			TotalBundles: c.Total, MatchedBundles: c.Matched, Best: c.Best, BestDeprecated: c.BestDeprecated, Outcome: c.Outcome})
	}
	for _, p := range r.PassedOver {
		out.PassedOver = append(out.PassedOver, passedJSON(p))
	}
	if d := r.Deprecation; d != nil {
		out.Deprecation = &deprecationOut{Catalog: d.Catalog, Entries: d.Entries, Package: d.Package, Channel: d.Channel, Bundle: d.Bundle}
	}
	return out
}

func posString(ae AdmissionError) string {
	if !ae.Pos.IsValid() {
		return ""
	}
	return ae.Pos.String()
}

// Finding rule ids: the titles of -o github annotations.
const (
	RuleAdmission  = "olmv1-admission"
	RuleResolution = "olmv1-resolution"
	RuleInstall    = "olmv1-install"
	RulePruned     = "olmv1-unknown-field"
)

// Findings are the result's problems at their manifest positions: every
// admission error at its field, the resolution error or the install
// refusal at the extension, and fields the API server drops (warnings).
func (r *Result) Findings() []declcfg.Finding {
	e := r.Extension
	var out []declcfg.Finding
	add := func(rule string, sev declcfg.Severity, ae AdmissionError) {
		out = append(out, declcfg.Finding{Rule: rule, Severity: sev, Pos: ae.Pos, Package: e.PackageName,
			Message: fmt.Sprintf("ClusterExtension %s: %s", e.Name, ae.Message)})
	}
	for _, ae := range r.Admission.Errors {
		add(RuleAdmission, declcfg.SeverityError, ae)
	}
	for _, ae := range r.Admission.Pruned {
		add(RulePruned, declcfg.SeverityWarning, ae)
	}
	if !r.Admission.Allowed() {
		return out // the object never reaches operator-controller
	}
	switch {
	case r.Err != nil:
		at, msg := e.FieldPos("spec", "source", "catalog", "packageName"), r.Err.Error()
		if r.selectsNothing() {
			at, msg = e.FieldPos("spec", "source", "catalog", "selector"), msg+" (its selector matches none of the ClusterCatalogs)"
		} else if r.Hint != "" {
			msg += " (" + r.Hint + ")"
		}
		add(RuleResolution, declcfg.SeverityError, AdmissionError{Message: msg, Pos: at})
	case r.Install != nil && r.Install.Err != nil:
		at := e.FieldPos("spec", "source", "catalog", "packageName")
		if e.Config != nil && r.Admission.Experimental {
			at = e.FieldPos("spec", "config")
		}
		add(RuleInstall, declcfg.SeverityError, AdmissionError{Message: fmt.Sprintf("%s resolves, but does not install: %v", r.Bundle.Name, r.Install.Err), Pos: at})
	}
	return out
}
