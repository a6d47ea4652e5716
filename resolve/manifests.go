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
	"reflect"
	"slices"
	"strconv"
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
	// Elsewhere are objects of a kind resolve reads but of another API
	// group (another product's Subscription, say): skipped, and each said.
	Elsewhere []ForeignObject
}

// ForeignObject is an object whose kind resolve reads in another
// apiVersion.
type ForeignObject struct {
	Kind, Name, APIVersion string
	// Want is the apiVersion resolve reads the kind in.
	Want string
	// Pos is the apiVersion field's.
	Pos declcfg.Pos
}

// readKinds are the kinds resolve reads, and the apiVersion of each.
var readKinds = map[string]string{
	"Subscription":          "operators.coreos.com/v1alpha1",
	"CatalogSource":         "operators.coreos.com/v1alpha1",
	"ClusterServiceVersion": "operators.coreos.com/v1alpha1",
	"OperatorGroup":         "operators.coreos.com/v1",
	"Namespace":             "v1",
	"ClusterCatalog":        olmv1.Group + "/v1",
	"ClusterExtension":      olmv1.Group + "/v1",
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

// object files one Kubernetes object by kind. node is its document tree,
// when it has one, for the positions of fields.
func (m *Manifests) object(pos declcfg.Pos, raw []byte, node *declcfg.Node, depth int) []*ManifestError {
	at := func(path ...string) declcfg.Pos { return olmv1.FieldPos(pos, node, path...) }
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
		// encoding/json reads what it can before it reports the first
		// mismatch: the kind and name are known, when the object has them.
		what := "object"
		if head.Kind != "" {
			what = head.Kind + " " + objectName(head.Metadata.Namespace, head.Metadata.Name)
		}
		p, msg := decodeProblem(pos, node, err)
		return []*ManifestError{{Pos: p, Msg: what + ": " + msg}}
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
	// failAt is a problem with the field at path (the object's start when
	// the document does not have it).
	failAt := func(path []string, format string, args ...any) []*ManifestError {
		return []*ManifestError{{Pos: at(path...), Msg: what + ": " + fmt.Sprintf(format, args...)}}
	}
	fail := func(format string, args ...any) []*ManifestError { return failAt(nil, format, args...) }
	// failDecode is a decoding error: at the field it names.
	failDecode := func(err error) []*ManifestError {
		p, msg := decodeProblem(pos, node, err)
		return []*ManifestError{{Pos: p, Msg: what + ": " + msg}}
	}
	switch {
	case head.Kind == "List" || strings.HasSuffix(head.Kind, "List") && head.Items != nil:
		if depth > 0 {
			return fail("a list inside a list")
		}
		// Each item is at its own place in the document, when the List
		// has a tree whose items are the decoded ones.
		_, items := declcfg.JSONKeys.Lookup(node, "items")
		if items != nil && (items.Kind != declcfg.SequenceNode || len(items.Content) != len(head.Items)) {
			items = nil
		}
		var errs []*ManifestError
		for i, item := range head.Items {
			ipos, inode := pos, (*declcfg.Node)(nil)
			if items != nil {
				inode = declcfg.Deref(items.Content[i])
				ipos = declcfg.Pos{File: pos.File, Line: inode.Line, Col: inode.Column}
			}
			errs = append(errs, m.object(ipos, item, inode, depth+1)...)
		}
		return errs
	case group == olmv1.Group && (head.Kind == "ClusterCatalog" || head.Kind == "ClusterExtension"):
		return m.olmv1Object(pos, raw, node, head.Kind, head.APIVersion)
	case group == "" && head.Kind == "Namespace":
		if head.Metadata.Name == "" {
			return failAt([]string{"metadata", "name"}, "metadata.name is required")
		}
		m.Namespaces = append(m.Namespaces, NamespaceManifest{Name: head.Metadata.Name, Labels: head.Metadata.Labels, Pos: pos})
		return nil
	case group != "operators.coreos.com":
		if want, ok := readKinds[head.Kind]; ok {
			m.Elsewhere = append(m.Elsewhere, ForeignObject{Kind: head.Kind, Name: objectName(head.Metadata.Namespace, head.Metadata.Name),
				APIVersion: head.APIVersion, Want: want, Pos: at("apiVersion")})
			return nil
		}
		m.Skipped[head.Kind]++
		return nil
	}
	if head.Metadata.Name == "" {
		return failAt([]string{"metadata", "name"}, "metadata.name is required")
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
			return failDecode(err)
		}
		// The CRD requires these; the API server refuses the object
		// without them.
		for _, f := range []struct{ name, value string }{{"name", o.Spec.Package}, {"source", o.Spec.Source}, {"sourceNamespace", o.Spec.SourceNamespace}} {
			if f.value == "" {
				return failAt([]string{"spec", f.name}, "spec.%s is required", f.name)
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
			return failDecode(err)
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
		var fe *olmv1.FieldError
		switch {
		case errors.As(err, &fe):
			return failAt(fe.Path, "%s", fe.Msg)
		case err != nil:
			return failDecode(err)
		}
		csv.Name, csv.Namespace, csv.Pos = head.Metadata.Name, head.Metadata.Namespace, pos
		if anno, ok := head.Metadata.Annotations[propertiesAnnotation]; ok {
			var props struct {
				Properties []Property `json:"properties"`
			}
			if err := json.Unmarshal([]byte(anno), &props); err != nil {
				return failAt([]string{"metadata", "annotations", propertiesAnnotation}, "annotation %s: %s", propertiesAnnotation, annotationProblem(err))
			}
			csv.Properties, csv.HasProperties = props.Properties, true
		}
		m.CSVs = append(m.CSVs, csv)
	case "OperatorGroup":
		og, err := parseOperatorGroup(raw)
		if err != nil {
			return failDecode(err)
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
		return OperatorGroupManifest{}, err
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
		at := pos
		var fe *olmv1.FieldError
		if errors.As(err, &fe) {
			at = olmv1.FieldPos(pos, node, fe.Path...)
		}
		return []*ManifestError{{Pos: at, Msg: kind + ": " + err.Error()}}
	}
	if apiVersion != olmv1.Group+"/v1" {
		return fail(&olmv1.FieldError{Path: []string{"apiVersion"}, Msg: fmt.Sprintf("apiVersion %s: fbc reads %s/v1", apiVersion, olmv1.Group)})
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
	o, err := declcfg.ParseCSV(raw)
	if err != nil {
		return CSVManifest{}, err
	}
	var csv CSVManifest
	csv.Version = o.Spec.Version
	crd := func(a declcfg.CSVCRDDescription, list string, i int) (gvk, error) {
		// A CRD is named PLURAL.GROUP.
		_, group, ok := strings.Cut(a.Name, ".")
		if !ok {
			return gvk{}, &olmv1.FieldError{Path: []string{"spec", "customresourcedefinitions", list, strconv.Itoa(i), "name"},
				Msg: fmt.Sprintf("spec.customresourcedefinitions.%s[%d].name: CRD name %q is not PLURAL.GROUP", list, i, a.Name)}
		}
		return gvk{Group: group, Version: a.Version, Kind: a.Kind}, nil
	}
	for i, a := range o.Spec.CRDs.Owned {
		g, err := crd(a, "owned", i)
		if err != nil {
			return csv, err
		}
		csv.Owned = append(csv.Owned, g)
	}
	for i, a := range o.Spec.CRDs.Required {
		g, err := crd(a, "required", i)
		if err != nil {
			return csv, err
		}
		csv.Required = append(csv.Required, g)
	}
	for _, a := range o.Spec.APIServices.Owned {
		csv.Owned = append(csv.Owned, gvk{Group: a.Group, Version: a.Version, Kind: a.Kind})
	}
	for _, a := range o.Spec.APIServices.Required {
		csv.Required = append(csv.Required, gvk{Group: a.Group, Version: a.Version, Kind: a.Kind})
	}
	return csv, nil
}

// decodeProblem words a decoding error of an object by the field it is
// about, and finds where that field is written: what the field should be
// and what it is, in YAML's words. A field whose items (or values) have the
// wrong type is named with the first such item.
func decodeProblem(pos declcfg.Pos, node *declcfg.Node, err error) (declcfg.Pos, string) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return pos, err.Error()
	}
	want, got := goTypeWords(te.Type), jsonValueWords(te.Value)
	field := te.Field
	if field == "" {
		return pos, fmt.Sprintf("want %s, got %s", want, got)
	}
	path := strings.Split(field, ".")
	at := olmv1.FieldPos(pos, node, path...)
	// The field itself is of the right kind (a list, a mapping): one of
	// its items or values is not.
	if n := olmv1.FieldNode(node, path...); n != nil && valueWords(n) != got {
		for i := 0; i < len(n.Content); i++ {
			var key, name string
			var item *declcfg.Node
			switch n.Kind {
			case declcfg.SequenceNode:
				key, item = strconv.Itoa(i), declcfg.Deref(n.Content[i])
				name = fmt.Sprintf("%s[%d]", te.Field, i)
			case declcfg.MappingNode:
				if i%2 == 1 || i+1 >= len(n.Content) {
					continue
				}
				key, item = n.Content[i].Value, declcfg.Deref(n.Content[i+1])
				name = fmt.Sprintf("%s[%q]", te.Field, key)
			}
			if item != nil && valueWords(item) == got {
				field, at = name, olmv1.FieldPos(pos, node, slices.Concat(path, []string{key})...)
				break
			}
		}
	}
	return at, fmt.Sprintf("%s: want %s, got %s", field, want, got)
}

// annotationProblem words an error decoding the JSON of an annotation,
// whose text has no positions of its own.
func annotationProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Sprintf("%s: want %s, got %s", field, goTypeWords(te.Type), jsonValueWords(te.Value))
	}
	return err.Error()
}

// goTypeWords names what a Go type decodes from.
func goTypeWords(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// jsonValueWords names the JSON value an UnmarshalTypeError found.
func jsonValueWords(v string) string {
	switch {
	case v == "object":
		return "a mapping"
	case v == "array":
		return "a list"
	case v == "bool":
		return "a boolean"
	case v == "string":
		return "a string"
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return v
}

// valueWords names a tree node's value as jsonValueWords does.
func valueWords(n *declcfg.Node) string {
	if w := declcfg.KindName(n); w != "an object" {
		return w
	}
	return "a mapping"
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
