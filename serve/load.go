package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/serve/api"
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
	// csvMetadata is the olm.csv.metadata value, when the bundle has one.
	csvMetadata json.RawMessage
	hasObjects  bool
}

// packageInfo is what a made-up CSV takes from its package.
type packageInfo struct {
	description string
	icon        *declcfg.Icon
}

// Problem is a reason a catalog cannot be served, or a warning about it.
type Problem struct {
	Pos     declcfg.Pos
	Rule    string
	Message string
	Package string
	Channel string
	Bundle  string
	Warning bool
}

// InvalidError is returned by Load for a catalog OLM would reject: every
// problem found, warnings included.
type InvalidError struct{ Problems []Problem }

func (e *InvalidError) Error() string {
	n := 0
	for _, p := range e.Problems {
		if !p.Warning {
			n++
		}
	}
	return fmt.Sprintf("the catalog is invalid (%d errors)", n)
}

// Source calls fn with each file of a catalog, parsed, in catalog order.
type Source func(ctx context.Context, fn func(*declcfg.File) error) error

// DirSource reads a catalog directory, a single catalog file, or "-".
func DirSource(path string) Source {
	return func(ctx context.Context, fn func(*declcfg.File) error) error {
		return declcfg.WalkPath(ctx, path, nil, declcfg.WalkOptions{}, fn)
	}
}

// LoadOptions tune Load.
type LoadOptions struct {
	// TempDir holds the spill file (default: the system's).
	TempDir string
	// CacheBytes bounds the manifests kept converted in memory (default
	// 32 MiB); the spill holds the rest.
	CacheBytes int64
}

// Rule ids of the problems Load finds beyond the model's and the loader's;
// they are fbc validate's ids for the same problems.
const (
	ruleBundleObject  = "bundle-object"
	ruleInvalidValue  = "invalid-value"
	ruleBundleVersion = "bundle-version"
)

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
	l := &loader{c: c, builder: model.NewBuilder(), w: bufio.NewWriterSize(spill, 1<<20)}
	if err := src(ctx, l.file); err != nil {
		return nil, err
	}
	if err := l.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the serve spill file: %w", err)
	}
	c.size = l.off
	c.model = l.builder.Build()
	for _, p := range c.model.Problems() {
		l.problems = append(l.problems, Problem{Pos: p.Pos, Rule: p.Rule, Message: p.Message,
			Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Warning: p.Warning})
	}
	for _, p := range c.model.Packages {
		for _, b := range p.Bundles {
			if b.VersionErr != nil && len(declcfgPackageProps(b.Blob)) == 1 {
				l.problems = append(l.problems, Problem{Pos: b.Pos, Rule: ruleBundleVersion, Package: p.Name, Bundle: b.Name,
					Message: fmt.Sprintf("bundle %q: %v; OLM needs a semantic version (MAJOR.MINOR.PATCH)", b.Name, b.VersionErr)})
			}
		}
	}
	sortProblems(l.problems)
	for _, p := range l.problems {
		if !p.Warning {
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

func declcfgPackageProps(b *declcfg.Bundle) []declcfg.Property {
	var out []declcfg.Property
	for _, p := range b.Properties {
		if p.Type == declcfg.PropertyPackage {
			out = append(out, p)
		}
	}
	return out
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].Pos, ps[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// loader is one Load's state while files stream in.
type loader struct {
	c        *Catalog
	builder  *model.Builder
	w        *bufio.Writer
	off      int64
	buf      bytes.Buffer
	problems []Problem
	warnings []string
}

func (l *loader) problem(pos declcfg.Pos, rule, msg string) {
	l.problems = append(l.problems, Problem{Pos: pos, Rule: rule, Message: msg})
}

func (l *loader) file(f *declcfg.File) error {
	l.c.stats.Files++
	for _, e := range f.Errors {
		l.problems = append(l.problems, Problem{Pos: e.Pos, Rule: e.Rule, Message: e.Msg, Warning: e.Warning})
	}
	for _, doc := range f.Docs {
		if err := l.document(doc); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) document(doc declcfg.Document) error {
	blob, errs, ok := declcfg.DecodeDocument(doc)
	for _, e := range errs {
		l.problems = append(l.problems, Problem{Pos: e.Pos, Rule: e.Rule, Message: e.Msg, Warning: e.Warning})
	}
	v, err := blobValue(doc.Node)
	if err != nil {
		l.problem(doc.Pos, declcfg.RuleSyntax, err.Error())
		return nil
	}
	if !ok {
		return nil
	}
	l.buf.Reset()
	if err := canonicalJSON(&l.buf, v); err != nil {
		l.problem(doc.Pos, declcfg.RuleSyntax, err.Error())
		return nil
	}
	fields, _ := v.(map[string]any)
	ref := blobRef{off: l.off, n: l.buf.Len(), schema: stringField(fields, "schema"),
		pkg: stringField(fields, "package"), name: stringField(fields, "name")}
	if _, err := l.w.Write(l.buf.Bytes()); err != nil {
		return fmt.Errorf("writing the serve spill file: %w", err)
	}
	l.off += int64(l.buf.Len())
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
		l.bundle(blob.Bundle, fields, idx)
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

func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// bundle records what answers about a bundle need, checks what opm checks
// when it loads one, and drops the manifests from the blob the model keeps:
// they are read back from the spill when asked for.
func (l *loader) bundle(b *declcfg.Bundle, fields map[string]any, idx int) {
	info := &bundleInfo{blob: idx}
	props, _ := fields["properties"].([]any)
	pos := func(i int) declcfg.Pos {
		if len(b.Properties) == len(props) && b.Properties[i].Pos.IsValid() {
			return b.Properties[i].Pos
		}
		return b.Pos
	}
	csvMetadatas := 0
	for i, raw := range props {
		p, _ := raw.(map[string]any)
		typ := stringField(p, "type")
		value, err := canonicalValue(p["value"])
		if err != nil {
			l.problem(pos(i), ruleInvalidValue, fmt.Sprintf("bundle %q: property %d: %v", b.Name, i, err))
			continue
		}
		decode := func(into any) bool {
			if err := json.Unmarshal([]byte(value), into); err != nil {
				l.problem(pos(i), ruleInvalidValue, fmt.Sprintf("bundle %q: %s property: %v", b.Name, typ, err))
				return false
			}
			return true
		}
		switch typ {
		case declcfg.PropertyBundleObject:
			info.hasObjects = true
			data, err := declcfg.DecodeBundleObject(json.RawMessage(value))
			if err != nil {
				l.problem(pos(i), ruleBundleObject, fmt.Sprintf("bundle %q: olm.bundle.object: %v", b.Name, err))
				continue
			}
			if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
				if _, err := sigsyaml.YAMLToJSON(data); err != nil {
					l.problem(pos(i), ruleBundleObject, fmt.Sprintf("bundle %q: olm.bundle.object is neither JSON nor YAML: %v", b.Name, err))
				}
			}
			continue
		case declcfg.PropertyCSVMetadata:
			csvMetadatas++
			if csvMetadatas > 1 {
				l.problem(pos(i), ruleInvalidValue, fmt.Sprintf("bundle %q has more than one olm.csv.metadata property; opm serves at most one", b.Name))
				continue
			}
			var m render.CSVMetadataValue
			if decode(&m) {
				info.csvMetadata = json.RawMessage(value)
			}
			continue
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
	// The model keeps the blob: without the manifests, it stays small.
	for i := range b.Properties {
		switch b.Properties[i].Type {
		case declcfg.PropertyBundleObject, declcfg.PropertyCSVMetadata:
			b.Properties[i].Value = nil
		}
	}
	k := bundleKey{b.Package, b.Name}
	if _, dup := l.c.bundles[k]; !dup {
		l.c.bundles[k] = info
	}
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
