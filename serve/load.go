package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/borrow"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/serve/api"
	"github.com/fbc-project/fbc/validate"
)

// Catalog is a catalog loaded for serving. Loading reads every file once:
// each blob is written, in catalog order, to an unlinked temporary file in
// the canonical form catalogd serves (the spill), and what the registry API
// answers from without reading manifests (names, edges, heads, properties,
// provided and required APIs, deprecations) stays in memory through the
// model. A bundle's manifests (csvJson, objects) are read back from the
// spill when a call needs them, converted, and kept in a bounded cache.
// A Catalog is safe for concurrent use.
type Catalog struct {
	model    *model.Catalog
	spill    *os.File
	size     int64
	loadedAt time.Time

	blobs     []blobRef
	bySchema  map[string][]int
	byPackage map[string][]int
	byName    map[string][]int
	// customs indexes blobs of other schemas by schema and package, for the
	// experimental registry service.
	customs map[customKey][]int

	bundles  map[bundleKey]*bundleInfo
	packages map[string]*packageInfo

	cache *manifestCache
	stats Stats
}

// Stats counts what a catalog holds.
type Stats struct {
	Files, Packages, Channels, Bundles, Blobs int
}

// blobRef is where a blob's line is in the spill, and the keys catalogd
// indexes it by (the blob's own schema, package and name fields).
type blobRef struct {
	off               int64
	n                 int
	schema, pkg, name string
}

type customKey struct{ schema, pkg string }

type bundleKey struct{ pkg, name string }

// bundleInfo is what a bundle's answers need besides its manifests.
type bundleInfo struct {
	blob       int // index in blobs
	version    string
	properties []*api.Property
	deps       []*api.Dependency
	provided   []*api.GroupVersionKind
	required   []*api.GroupVersionKind
	// hasCSVMetadata says the bundle has an olm.csv.metadata value (one,
	// of the right shape), which the spill holds.
	hasCSVMetadata bool
	hasObjects     bool
}

var csvMetadataType = reflect.TypeFor[declcfg.CSVMetadata]()

// bundleObjectType is the shape of an olm.bundle.object value as opm
// decodes it (its data is base64, which LoadCheck checks).
var bundleObjectType = reflect.TypeFor[struct {
	Data string `json:"data"`
}]()

// packageInfo is what a made-up CSV takes from its package.
type packageInfo struct {
	description string
	icon        *declcfg.Icon
}

// InvalidError is returned by Load for a catalog OLM would reject: every
// problem found, warnings included.
type InvalidError struct{ Problems []declcfg.Finding }

// FaultKind is Input, or Run when a file could not be read.
func (e *InvalidError) FaultKind() fault.Kind {
	for _, p := range e.Problems {
		if p.Rule == declcfg.RuleIO {
			return fault.Run
		}
	}
	return fault.Input
}

func (e *InvalidError) Error() string {
	n := 0
	for i := range e.Problems {
		if !e.Problems[i].IsWarning() {
			n++
		}
	}
	return fmt.Sprintf("the catalog is invalid (%d errors)", n)
}

// Source calls fn with each file of a catalog, parsed, in catalog order.
type Source func(ctx context.Context, fn func(*declcfg.File) error) error

// LoadOptions tune Load.
type LoadOptions struct {
	// TempDir holds the spill file (default: the system's).
	TempDir string
	// CacheBytes bounds the manifests kept converted in memory (default
	// 32 MiB); the spill holds the rest.
	CacheBytes int64
	// LowMemory keeps the process's heap close to what is live while
	// loading, at some cost in time: a soft memory limit (the runtime's,
	// process-wide) is kept at the live heap plus a margin and lifted when
	// loading ends. Files are large and short-lived; without it the heap
	// grows to twice the largest of them before the collector runs.
	LowMemory bool
}

// lowMemoryMargin is the room the heap gets above what is live while
// loading with LowMemory: a few of the largest catalog files.
const lowMemoryMargin = 12 << 20

// heapSamples are what keepHeapLow reads: the live heap, and the memory
// the runtime holds that is not heap (stacks, its own tables), which the
// memory limit counts too.
func heapSamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
}

// keepHeapLow sets the soft memory limit so that the heap may grow by the
// margin above what is live. The limit counts all the runtime's memory,
// so what is not heap is added: without it the margin would go to the
// runtime's own tables and the collector would run without pause.
func keepHeapLow(sample []metrics.Sample) {
	metrics.Read(sample)
	v := make([]int64, len(sample))
	for i, s := range sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return
		}
		v[i] = int64(s.Value.Uint64())
	}
	live, total, released, objects, unused, free := v[0], v[1], v[2], v[3], v[4], v[5]
	other := max(total-released-objects-unused-free, 0)
	debug.SetMemoryLimit(live + other + lowMemoryMargin)
}

// Load reads a catalog for serving. It fails with *InvalidError when the
// catalog breaks a rule that would make opm serve refuse it.
func Load(ctx context.Context, src Source, opts LoadOptions) (_ *Catalog, err error) {
	spill, err := os.CreateTemp(opts.TempDir, "fbc-serve-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("creating the serve spill file: %w", err)
	}
	// Unlinked at once: the file lives as long as the open descriptor, and
	// nothing is left behind however the process ends.
	_ = os.Remove(spill.Name())
	defer func() {
		if err != nil {
			spill.Close()
		}
	}()
	c := &Catalog{
		spill:     spill,
		bySchema:  map[string][]int{},
		byPackage: map[string][]int{},
		byName:    map[string][]int{},
		customs:   map[customKey][]int{},
		bundles:   map[bundleKey]*bundleInfo{},
		packages:  map[string]*packageInfo{},
	}
	l := &loader{c: c, builder: model.NewBuilder(), w: bufio.NewWriterSize(spill, 64<<10), check: validate.NewLoadCheck()}
	if opts.LowMemory {
		l.live = heapSamples()
		keepHeapLow(l.live)
		defer debug.SetMemoryLimit(math.MaxInt64)
	}
	if err := src(ctx, l.file); err != nil {
		return nil, err
	}
	if err := l.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the serve spill file: %w", err)
	}
	c.size = l.off
	c.model = l.builder.Build()
	l.problems = append(l.problems, c.model.Problems()...)
	declcfg.SortFindings(l.problems)
	for i := range l.problems {
		if !l.problems[i].IsWarning() {
			return nil, &InvalidError{Problems: l.problems}
		}
	}
	c.stats.Blobs = len(c.blobs)
	c.stats.Packages = len(c.model.Packages)
	for _, p := range c.model.Packages {
		c.stats.Channels += len(p.Channels)
		c.stats.Bundles += len(p.Bundles)
	}
	c.loadedAt = time.Now()
	c.cache = newManifestCache(opts.CacheBytes)
	return c, nil
}

// Stats counts what the catalog holds.
func (c *Catalog) Stats() Stats { return c.stats }

// Close releases the spill file.
func (c *Catalog) Close() error { return c.spill.Close() }

// loader is one Load's state while files stream in.
type loader struct {
	c        *Catalog
	builder  *model.Builder
	w        *bufio.Writer
	off      int64
	buf      bytes.Buffer
	problems []declcfg.Finding
	check    *validate.LoadCheck
	live     []metrics.Sample
}

func (l *loader) problem(pos declcfg.Pos, rule, msg string) {
	l.problems = append(l.problems, declcfg.Finding{Rule: rule, Severity: declcfg.SeverityError, Pos: pos, Message: msg})
}

func (l *loader) file(f *declcfg.File) error {
	l.c.stats.Files++
	var err error
	if len(f.Docs) > 0 {
		for i, doc := range f.Docs {
			if err = l.document(doc); err != nil {
				break
			}
			// The parsed document is no longer needed: let the collector
			// have it before the rest of the file is done.
			f.Docs[i] = declcfg.Document{}
		}
	} else {
		// A streamed file (WalkOptions.Stream) is parsed here, a document
		// at a time: one document's tree is alive at once. (Parsing the
		// next document on another goroutine meanwhile gained nothing on a
		// busy two-core machine and cost a tenth more CPU.)
		f.Each(func(doc declcfg.Document) {
			if err == nil {
				err = l.document(doc)
			}
		})
	}
	for _, e := range f.Errors {
		l.problems = append(l.problems, e.Finding())
	}
	if err != nil {
		return err
	}
	if l.live != nil {
		keepHeapLow(l.live)
	}
	return nil
}

func (l *loader) document(doc declcfg.Document) error {
	// The canonical line first: it reads the whole document, and a
	// document it cannot read (an unknown alias, a number JSON cannot
	// hold) is refused before anything looks at its fields.
	l.buf.Reset()
	if err := MetaBlob(&l.buf, doc.Node); err != nil {
		l.problem(doc.Pos, declcfg.RuleSyntax, err.Error())
		return nil
	}
	fields := mapping(doc.Node)
	// The index outlives the file: its keys must not share the file's
	// bytes (WalkOptions.Borrow, Reuse).
	ref := blobRef{off: l.off, schema: borrow.Own(stringOf(lookup(fields, "schema"))),
		pkg: borrow.Own(stringOf(lookup(fields, "package"))), name: borrow.Own(stringOf(lookup(fields, "name")))}
	var info *bundleInfo
	if ref.schema == declcfg.SchemaBundle {
		// Read what answers need from the full blob, then drop the
		// manifests from the parsed document: the model never sees them,
		// and they are read back from the spill when asked for.
		var err error
		if info, err = l.bundle(doc, fields); err != nil {
			return err
		}
		dropManifests(doc.Node)
	}
	blob, errs, ok := declcfg.DecodeDocument(doc)
	for _, e := range errs {
		l.problems = append(l.problems, e.Finding())
	}
	if !ok {
		return nil
	}
	ref.n = l.buf.Len()
	if _, err := l.w.Write(l.buf.Bytes()); err != nil {
		return fmt.Errorf("writing the serve spill file: %w", err)
	}
	l.off += int64(ref.n)
	idx := len(l.c.blobs)
	l.c.blobs = append(l.c.blobs, ref)
	if ref.schema != "" {
		l.c.bySchema[ref.schema] = append(l.c.bySchema[ref.schema], idx)
	}
	if ref.pkg != "" {
		l.c.byPackage[ref.pkg] = append(l.c.byPackage[ref.pkg], idx)
	}
	if ref.name != "" {
		l.c.byName[ref.name] = append(l.c.byName[ref.name], idx)
	}
	switch {
	case blob.Bundle != nil:
		k := bundleKey{blob.Bundle.Package, blob.Bundle.Name}
		if _, dup := l.c.bundles[k]; !dup && info != nil {
			info.blob = idx
			l.c.bundles[k] = info
		}
	case blob.Package != nil:
		if _, seen := l.c.packages[blob.Package.Name]; !seen {
			l.c.packages[blob.Package.Name] = &packageInfo{description: blob.Package.Description, icon: blob.Package.Icon}
		}
	case blob.Meta != nil:
		k := customKey{ref.schema, ref.pkg}
		l.c.customs[k] = append(l.c.customs[k], idx)
	}
	l.builder.Add(blob)
	return nil
}

// heavyProperty reports the property types that hold manifests.
func heavyProperty(typ string) bool {
	return typ == declcfg.PropertyBundleObject || typ == declcfg.PropertyCSVMetadata
}

// propertyNodes returns the items of a document's properties list.
func propertyNodes(root *declcfg.Node) []*declcfg.Node {
	for root.Kind == declcfg.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if v := declcfg.CatalogKeys.Value(root, "properties"); v != nil && v.Kind == declcfg.SequenceNode {
		return v.Content
	}
	return nil
}

// dropManifests empties the values of a bundle document's manifest
// properties.
func dropManifests(root *declcfg.Node) {
	for _, item := range propertyNodes(root) {
		if item.Kind != declcfg.MappingNode {
			continue
		}
		typ := ""
		if v := declcfg.CatalogKeys.Value(item, "type"); v != nil {
			typ = v.Value
		}
		if !heavyProperty(typ) {
			continue
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			if item.Content[i].Value == "value" {
				item.Content[i+1] = &declcfg.Node{Kind: declcfg.MappingNode, Tag: "!!map", Line: item.Content[i+1].Line, Column: item.Content[i+1].Column}
			}
		}
	}
}

// bundle records what answers about a bundle need. What opm checks when
// it loads a bundle (manifests that decode, one olm.package with a semver
// version, at most one olm.csv.metadata, property values of the shape
// their type says) is asked of validate's LoadCheck, so that fbc serve
// refuses with fbc validate's findings; serve tells it which values decode
// into opm's types, which it decodes anyway, so that only the others are
// checked against their schema.
func (l *loader) bundle(doc declcfg.Document, fields []pair) (*bundleInfo, error) {
	info := &bundleInfo{}
	pkg, name := stringOf(lookup(fields, "package")), stringOf(lookup(fields, "name"))
	type failure struct {
		i         int
		item, val *declcfg.Node
		typ       string
		err       error
	}
	var failed []failure
	list := items(lookup(fields, "properties"))
	for i, item := range list {
		p := mapping(item)
		typ := stringOf(lookup(p, "type"))
		pv := lookup(p, "value")
		fail := func(err error) { failed = append(failed, failure{i, item, pv, typ, err}) }
		switch typ {
		case declcfg.PropertyBundleObject:
			info.hasObjects = true
			if !fitsJSON(pv, bundleObjectType) {
				fail(fmt.Errorf("not an object with base64 data"))
			}
			continue
		case declcfg.PropertyCSVMetadata:
			// Not served as a property, and read back from the spill when
			// a CSV is made from it: the first one, once it is known to
			// decode.
			if !fitsJSON(pv, csvMetadataType) {
				if err := json.Unmarshal([]byte(canonicalValue(pv)), new(declcfg.CSVMetadata)); err != nil {
					fail(err)
					continue
				}
			}
			info.hasCSVMetadata = true
			continue
		}
		value := canonicalValue(pv)
		decode := func(into any) bool {
			if err := json.Unmarshal([]byte(value), into); err != nil {
				fail(err)
				return false
			}
			return true
		}
		switch typ {
		case declcfg.PropertyPackage:
			var pp struct{ PackageName, Version string }
			if decode(&pp) && info.version == "" {
				info.version = pp.Version
			}
		case declcfg.PropertyGVK:
			var g struct{ Group, Version, Kind string }
			if decode(&g) {
				info.provided = append(info.provided, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
			}
		case declcfg.PropertyGVKRequired:
			var g struct{ Group, Version, Kind string }
			if decode(&g) {
				info.required = append(info.required, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
				info.deps = append(info.deps, &api.Dependency{Type: declcfg.PropertyGVK, Value: value})
			}
		case declcfg.PropertyPackageRequired:
			var r struct{ PackageName, VersionRange string }
			if decode(&r) {
				// opm serves the dependency as an olm.package value whose
				// version is the required range.
				info.deps = append(info.deps, &api.Dependency{Type: declcfg.PropertyPackage, Value: packageDependency(r.PackageName, r.VersionRange)})
			}
		case declcfg.PropertyChannel:
			var ch struct {
				ChannelName string
				Priority    int
			}
			decode(&ch)
		}
		info.properties = append(info.properties, &api.Property{Type: typ, Value: value})
	}
	refused, err := l.check.Bundle(doc, pkg, name, func(i int) bool {
		return !slices.ContainsFunc(failed, func(f failure) bool { return f.i == i })
	})
	if err != nil {
		return nil, err
	}
	l.problems = append(l.problems, refused...)
	if len(refused) == 0 && len(failed) > 0 {
		f := failed[0]
		l.undecodable(doc, f.item, f.val, pkg, name, f.i, f.typ, f.err)
	}
	return info, nil
}

// undecodable refuses a property value that serve cannot decode although
// LoadCheck found nothing wrong with the bundle (a value its schema's shape
// allows but opm's type does not take, such as a priority beyond an int):
// serving it would fail the calls that read it.
func (l *loader) undecodable(doc declcfg.Document, item, value *declcfg.Node, pkg, bundle string, i int, typ string, err error) {
	at := item
	if value != nil {
		at = value
	}
	l.problems = append(l.problems, declcfg.Finding{Rule: declcfg.RuleFieldType, Severity: declcfg.SeverityError,
		Pos: declcfg.Pos{File: doc.Pos.File, Line: at.Line, Col: at.Column}, Package: pkg, Bundle: bundle,
		Message: fmt.Sprintf("properties[%d].value does not decode as opm decodes %s: %v", i, typ, err)})
}

// packageDependency is the olm.package value opm builds for a package
// dependency: packageName, then version (struct order), nothing escaped.
func packageDependency(name, versionRange string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		PackageName string `json:"packageName"`
		Version     string `json:"version"`
	}{name, versionRange})
	return strings.TrimSuffix(buf.String(), "\n")
}

// readBlob returns a blob's canonical line from the spill.
func (c *Catalog) readBlob(i int) ([]byte, error) {
	ref := c.blobs[i]
	buf := make([]byte, ref.n)
	if _, err := c.spill.ReadAt(buf, ref.off); err != nil {
		return nil, fmt.Errorf("reading the serve spill file: %w", err)
	}
	return buf, nil
}
