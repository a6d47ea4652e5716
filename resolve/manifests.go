package resolve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/resolve/olmv1"
)

// Manifests are the objects resolution reads from a GitOps repository's
// Kubernetes YAML or JSON.
type Manifests struct {
	Subscriptions  []SubscriptionManifest
	CatalogSources []CatalogSourceManifest
	CSVs           []CSVManifest
	OperatorGroups []OperatorGroupManifest
	// Namespaces are Namespace objects: their labels are what
	// OperatorGroup selectors match.
	Namespaces []NamespaceManifest
	// ClusterCatalogs and ClusterExtensions are OLM v1's objects.
	ClusterCatalogs   []olmv1.ClusterCatalog
	ClusterExtensions []olmv1.ClusterExtension
	// Skipped counts the objects of other kinds, by kind.
	Skipped map[string]int
}

// NamespaceManifest is a Namespace.
type NamespaceManifest struct {
	Name   string
	Labels map[string]string
	Pos    declcfg.Pos
}

// SubscriptionManifest is a Subscription (operators.coreos.com/v1alpha1).
type SubscriptionManifest struct {
	Subscription
	Pos declcfg.Pos
}

// CatalogSourceManifest is a CatalogSource (operators.coreos.com/v1alpha1).
type CatalogSourceManifest struct {
	Key      CatalogKey
	Priority int
	// Image is spec.image: the catalog image the CatalogSource serves.
	Image string
	// SourceType and Address are spec.sourceType and spec.address, for
	// catalogs fbc cannot read (a gRPC address, a ConfigMap).
	SourceType string
	Address    string
	Pos        declcfg.Pos
}

// CSVManifest is a ClusterServiceVersion (operators.coreos.com/v1alpha1):
// an installed operator.
type CSVManifest struct {
	Name      string
	Namespace string
	Version   string
	// Properties are the operatorframework.io/properties annotation's, when
	// it has one.
	Properties    []Property
	HasProperties bool
	// Owned and Required are the APIs of spec.customresourcedefinitions and
	// spec.apiservicedefinitions, which OLM reads when the annotation is
	// missing.
	Owned, Required []gvk
	Pos             declcfg.Pos
}

// OperatorGroupManifest is an OperatorGroup (operators.coreos.com/v1).
type OperatorGroupManifest struct {
	Name      string
	Namespace string
	// ExcludeGlobal is the annotation
	// olm.operatorframework.io/exclude-global-namespace-resolution: "true".
	ExcludeGlobal bool
	// TargetNamespaces is spec.targetNamespaces; Selector is spec.selector
	// (nil when absent). Neither: the group targets every namespace.
	TargetNamespaces []string
	Selector         *olmv1.LabelSelector
	// StatusNamespaces is status.namespaces, what OLM resolved the
	// targets to, when the manifest has it.
	StatusNamespaces []string
	// StaticProvidedAPIs is spec.staticProvidedAPIs; ProvidedAPIs the
	// olm.providedAPIs annotation (KIND.VERSION.GROUP each).
	StaticProvidedAPIs bool
	ProvidedAPIs       []string
	Pos                declcfg.Pos
}

// ManifestError is a manifest fbc cannot use, at a position.
type ManifestError struct {
	Pos declcfg.Pos
	Msg string
	// Err, when set, is the cause as a value callers can test for
	// (ErrNoNamespace); Msg says it in full.
	Err error
}

func (e *ManifestError) Unwrap() error { return e.Err }

// FaultKind is Run: a manifest fbc cannot use keeps resolve from running.
func (e *ManifestError) FaultKind() fault.Kind { return fault.Run }

func (e *ManifestError) Error() string { return e.Pos.Prefix(e.Msg) }

// ManifestErrors are every problem found reading manifests, in file order.
type ManifestErrors []*ManifestError

// sorted orders problems by file (in the order files first appear) and
// line.
func (es ManifestErrors) sorted() ManifestErrors {
	rank := map[string]int{}
	for _, e := range es {
		if _, ok := rank[e.Pos.File]; !ok {
			rank[e.Pos.File] = len(rank)
		}
	}
	out := slices.Clone(es)
	slices.SortStableFunc(out, func(a, b *ManifestError) int {
		return cmp.Or(cmp.Compare(rank[a.Pos.File], rank[b.Pos.File]), cmp.Compare(a.Pos.Line, b.Pos.Line))
	})
	return out
}

func (es ManifestErrors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

func (es ManifestErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Skipped's names for documents that are no Kubernetes objects.
const (
	notObjects = "not an object"
	noKind     = "no kind"
)

const (
	propertiesAnnotation = "operatorframework.io/properties"
	excludeGlobalAnno    = "olm.operatorframework.io/exclude-global-namespace-resolution"
	providedAPIsAnno     = "olm.providedAPIs"
	copiedFromLabel      = "olm.copiedFrom"
	// maxManifestFile bounds one manifest file (or standard input).
	maxManifestFile = 64 << 20
)

// ReadManifests reads files, directory trees (their .yaml, .yml and .json
// files, in lexical order, skipping hidden directories) and "-" (standard
// input) holding Kubernetes objects, in YAML documents, JSON streams or
// kind: List objects. Problems are a ManifestErrors with positions; an
// unreadable path is an *fs.PathError.
func ReadManifests(ctx context.Context, paths []string, stdin io.Reader) (*Manifests, error) {
	m := &Manifests{Skipped: map[string]int{}}
	var errs ManifestErrors
	for _, p := range paths {
		files, err := manifestFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			data, err := readManifestFile(ctx, f, stdin)
			if err != nil {
				return nil, err
			}
			errs = append(errs, m.parse(f, data)...)
		}
	}
	if len(errs) > 0 {
		return m, errs.sorted()
	}
	return m, nil
}

func manifestFiles(p string) ([]string, error) {
	if p == "-" {
		return []string{"-"}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		// Named pipes, sockets and devices (or links to them) are no
		// manifests: opening a FIFO would wait for a writer.
		if !d.Type().IsRegular() {
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				return nil
			}
		}
		files = append(files, path)
		return nil
	})
	slices.Sort(files)
	return files, err
}

// readManifestFile reads a manifest file, standard input ("-") or a pipe
// this process was handed (<(kubectl get ...)); a FIFO or device on disk
// is refused (*safefs.NotRegularError) instead of waited on.
func readManifestFile(ctx context.Context, name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := safefs.OpenInput(name)
		if err != nil {
			return nil, err
		}
		data, err := safefs.ReadAll(ctx, f, maxManifestFile)
		if errors.Is(err, safefs.ErrTooLarge) {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %d MiB", maxManifestFile>>20)}
		} else if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		return data, nil
	} else if r == nil {
		r = os.Stdin
	}
	data, err := io.ReadAll(io.LimitReader(r, maxManifestFile+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if len(data) > maxManifestFile {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %d MiB", maxManifestFile>>20)}
	}
	return data, nil
}

// parse reads one file's objects.
func (m *Manifests) parse(name string, data []byte) []*ManifestError {
	var errs []*ManifestError
	f := declcfg.ParseFile(name, data)
	for _, le := range f.Errors {
		switch le.Rule {
		case declcfg.RuleEmptyDocument:
			// kubectl skips documents that hold only comments.
		case declcfg.RuleNotObject:
			// Not a Kubernetes object (a values file, a list of
			// settings): a repository holds such files beside its
			// manifests.
			m.Skipped[notObjects]++
		case declcfg.RuleBinaryFile:
			errs = append(errs, &ManifestError{Pos: le.Pos, Msg: "not a text file; manifests are YAML or JSON"})
		default:
			errs = append(errs, &ManifestError{Pos: le.Pos, Msg: le.Msg})
		}
	}
	for _, doc := range f.Docs {
		raw, err := declcfg.NodeToJSON(doc.Node, false)
		if err != nil {
			errs = append(errs, &ManifestError{Pos: doc.Pos, Msg: err.Error()})
			continue
		}
		errs = append(errs, m.object(doc.Pos, raw, doc.Node, 0)...)
	}
	return errs
}

// object files one Kubernetes object by kind.
func (m *Manifests) object(pos declcfg.Pos, raw []byte, node *declcfg.Node, depth int) []*ManifestError {
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
		Metadata   struct {
			Name        string            `json:"name"`
			Namespace   string            `json:"namespace"`
			Annotations map[string]string `json:"annotations"`
			Labels      map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return []*ManifestError{{Pos: pos, Msg: jsonProblem("object", err)}}
	}
	if head.Kind == "" {
		m.Skipped[noKind]++
		return nil
	}
	group, _, _ := strings.Cut(head.APIVersion, "/")
	if !strings.Contains(head.APIVersion, "/") {
		group = ""
	}
	what := head.Kind + " " + objectName(head.Metadata.Namespace, head.Metadata.Name)
	fail := func(format string, args ...any) []*ManifestError {
		return []*ManifestError{{Pos: pos, Msg: what + ": " + fmt.Sprintf(format, args...)}}
	}
	switch {
	case head.Kind == "List" || strings.HasSuffix(head.Kind, "List") && head.Items != nil:
		if depth > 0 {
			return fail("a list inside a list")
		}
		var errs []*ManifestError
		for _, item := range head.Items {
			errs = append(errs, m.object(pos, item, nil, depth+1)...)
		}
		return errs
	case group == olmv1.Group && (head.Kind == "ClusterCatalog" || head.Kind == "ClusterExtension"):
		return m.olmv1Object(pos, raw, node, head.Kind, head.APIVersion)
	case group == "" && head.Kind == "Namespace":
		if head.Metadata.Name == "" {
			return fail("metadata.name is required")
		}
		m.Namespaces = append(m.Namespaces, NamespaceManifest{Name: head.Metadata.Name, Labels: head.Metadata.Labels, Pos: pos})
		return nil
	case group != "operators.coreos.com":
		m.Skipped[head.Kind]++
		return nil
	}
	if head.Metadata.Name == "" {
		return fail("metadata.name is required")
	}
	switch head.Kind {
	case "Subscription":
		var o struct {
			Spec struct {
				Package         string `json:"name"`
				Channel         string `json:"channel"`
				Source          string `json:"source"`
				SourceNamespace string `json:"sourceNamespace"`
				StartingCSV     string `json:"startingCSV"`
			} `json:"spec"`
			Status struct {
				InstalledCSV string `json:"installedCSV"`
			} `json:"status"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return fail("%s", jsonProblem("", err))
		}
		// The CRD requires these; the API server refuses the object
		// without them.
		for _, f := range []struct{ name, value string }{{"spec.name", o.Spec.Package}, {"spec.source", o.Spec.Source}, {"spec.sourceNamespace", o.Spec.SourceNamespace}} {
			if f.value == "" {
				return fail("%s is required", f.name)
			}
		}
		m.Subscriptions = append(m.Subscriptions, SubscriptionManifest{Pos: pos, Subscription: Subscription{
			Name: head.Metadata.Name, Namespace: head.Metadata.Namespace, Package: o.Spec.Package, Channel: o.Spec.Channel,
			Catalog:     CatalogKey{Namespace: o.Spec.SourceNamespace, Name: o.Spec.Source},
			StartingCSV: o.Spec.StartingCSV, InstalledCSV: o.Status.InstalledCSV,
		}})
	case "CatalogSource":
		var o struct {
			Spec struct {
				Priority   int    `json:"priority"`
				Image      string `json:"image"`
				SourceType string `json:"sourceType"`
				Address    string `json:"address"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return fail("%s", jsonProblem("", err))
		}
		m.CatalogSources = append(m.CatalogSources, CatalogSourceManifest{Pos: pos,
			Key:      CatalogKey{Namespace: head.Metadata.Namespace, Name: head.Metadata.Name},
			Priority: o.Spec.Priority, Image: o.Spec.Image, SourceType: o.Spec.SourceType, Address: o.Spec.Address})
	case "ClusterServiceVersion":
		if _, copied := head.Metadata.Labels[copiedFromLabel]; copied {
			// A copy OLM makes in every namespace an OperatorGroup
			// targets; the resolver ignores copies.
			m.Skipped["ClusterServiceVersion (copied)"]++
			return nil
		}
		csv, err := parseCSV(raw)
		if err != nil {
			return fail("%s", err)
		}
		csv.Name, csv.Namespace, csv.Pos = head.Metadata.Name, head.Metadata.Namespace, pos
		if anno, ok := head.Metadata.Annotations[propertiesAnnotation]; ok {
			var props struct {
				Properties []Property `json:"properties"`
			}
			if err := json.Unmarshal([]byte(anno), &props); err != nil {
				return fail("annotation %s: %s", propertiesAnnotation, jsonProblem("", err))
			}
			csv.Properties, csv.HasProperties = props.Properties, true
		}
		m.CSVs = append(m.CSVs, csv)
	case "OperatorGroup":
		og, err := parseOperatorGroup(raw)
		if err != nil {
			return fail("%s", err)
		}
		og.Pos, og.Name, og.Namespace = pos, head.Metadata.Name, head.Metadata.Namespace
		og.ExcludeGlobal = head.Metadata.Annotations[excludeGlobalAnno] == "true"
		if apis := head.Metadata.Annotations[providedAPIsAnno]; apis != "" {
			og.ProvidedAPIs = strings.Split(apis, ",")
		}
		m.OperatorGroups = append(m.OperatorGroups, og)
	default:
		m.Skipped[head.Kind]++
	}
	return nil
}

// parseOperatorGroup reads an OperatorGroup's target selection and static
// provided APIs.
func parseOperatorGroup(raw []byte) (OperatorGroupManifest, error) {
	var o struct {
		Spec struct {
			TargetNamespaces []string `json:"targetNamespaces"`
			Selector         *struct {
				MatchLabels      map[string]string `json:"matchLabels"`
				MatchExpressions []struct {
					Key      string   `json:"key"`
					Operator string   `json:"operator"`
					Values   []string `json:"values"`
				} `json:"matchExpressions"`
			} `json:"selector"`
			StaticProvidedAPIs bool `json:"staticProvidedAPIs"`
		} `json:"spec"`
		Status struct {
			Namespaces []string `json:"namespaces"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return OperatorGroupManifest{}, errors.New(jsonProblem("", err))
	}
	og := OperatorGroupManifest{TargetNamespaces: o.Spec.TargetNamespaces, StaticProvidedAPIs: o.Spec.StaticProvidedAPIs, StatusNamespaces: o.Status.Namespaces}
	if sel := o.Spec.Selector; sel != nil {
		og.Selector = &olmv1.LabelSelector{MatchLabels: sel.MatchLabels}
		for _, x := range sel.MatchExpressions {
			og.Selector.MatchExpressions = append(og.Selector.MatchExpressions, olmv1.SelectorRequirement{Key: x.Key, Operator: x.Operator, Values: x.Values})
		}
	}
	return og, nil
}

// olmv1Object files a ClusterCatalog or ClusterExtension.
func (m *Manifests) olmv1Object(pos declcfg.Pos, raw []byte, node *declcfg.Node, kind, apiVersion string) []*ManifestError {
	fail := func(err error) []*ManifestError {
		return []*ManifestError{{Pos: pos, Msg: kind + ": " + err.Error()}}
	}
	if apiVersion != olmv1.Group+"/v1" {
		return fail(fmt.Errorf("apiVersion %s: fbc reads %s/v1", apiVersion, olmv1.Group))
	}
	switch kind {
	case "ClusterCatalog":
		c, err := olmv1.ParseClusterCatalog(pos, raw)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", objectName("", c.Name), err))
		}
		m.ClusterCatalogs = append(m.ClusterCatalogs, c)
	default:
		e, err := olmv1.ParseClusterExtension(pos, raw, node)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", objectName("", e.Name), err))
		}
		m.ClusterExtensions = append(m.ClusterExtensions, e)
	}
	return nil
}

// parseCSV reads the parts of a CSV's spec the resolver uses.
func parseCSV(raw []byte) (CSVManifest, error) {
	type api struct {
		Name    string `json:"name"`
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
	type apis struct {
		Owned    []api `json:"owned"`
		Required []api `json:"required"`
	}
	var o struct {
		Spec struct {
			Version string `json:"version"`
			CRDs    apis   `json:"customresourcedefinitions"`
			APIs    apis   `json:"apiservicedefinitions"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return CSVManifest{}, errors.New(jsonProblem("", err))
	}
	var csv CSVManifest
	csv.Version = o.Spec.Version
	crd := func(a api, field string) (gvk, error) {
		// A CRD is named PLURAL.GROUP.
		_, group, ok := strings.Cut(a.Name, ".")
		if !ok {
			return gvk{}, fmt.Errorf("%s: CRD name %q is not PLURAL.GROUP", field, a.Name)
		}
		return gvk{Group: group, Version: a.Version, Kind: a.Kind}, nil
	}
	for _, a := range o.Spec.CRDs.Owned {
		g, err := crd(a, "spec.customresourcedefinitions.owned")
		if err != nil {
			return csv, err
		}
		csv.Owned = append(csv.Owned, g)
	}
	for _, a := range o.Spec.CRDs.Required {
		g, err := crd(a, "spec.customresourcedefinitions.required")
		if err != nil {
			return csv, err
		}
		csv.Required = append(csv.Required, g)
	}
	for _, a := range o.Spec.APIs.Owned {
		csv.Owned = append(csv.Owned, gvk{Group: a.Group, Version: a.Version, Kind: a.Kind})
	}
	for _, a := range o.Spec.APIs.Required {
		csv.Required = append(csv.Required, gvk{Group: a.Group, Version: a.Version, Kind: a.Kind})
	}
	return csv, nil
}

// jsonProblem words a decoding error by field.
func jsonProblem(what string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = what
		}
		return fmt.Sprintf("%s: a %s, want %s", field, te.Value, te.Type)
	}
	return err.Error()
}

func objectName(ns, name string) string {
	switch {
	case name == "":
		return "(no name)"
	case ns == "":
		return name
	}
	return ns + "/" + name
}
