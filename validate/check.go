package validate

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/slab"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// checker runs one validation. Files arrive one at a time; each document is
// checked while its nodes are alive (shape, properties, bundle contents,
// policy) and leaves behind only a slim copy of its blob (names, edges,
// versions, positions) for the model. The cross-blob rules are the model's
// and run once every file has been seen, so memory stays proportional to
// the number of blobs, not to the bytes of the catalog.
type checker struct {
	opts     Options
	schema   *catalogSchema
	policies []*policy
	severity map[string]declcfg.Severity

	// decodeOptions keep the property values the checks read: the
	// model's olm.package, and for the bundle-content checks every value
	// but olm.bundle.object's (which they get as BundleContents.Objects).
	decodeOptions declcfg.DecodeOptions

	builder *model.Builder
	// unreadable holds the positions of values the loader could not read
	// (field-type), so that the model's rules do not report them again.
	unreadable map[declcfg.Pos]bool
	diags      []declcfg.Finding
	stats      Stats
	// catalog is the model finish builds.
	catalog *model.Catalog
	// paths are the paths Validate was given.
	paths []string
	// lifecycles are the packages lifecycle blobs name.
	lifecycles []lifecycleRef
	// registries are the repository catalog folders among the paths and
	// the registries their bundle images may come from; jsonCatalogs the
	// repository catalog files that start as JSON (repocatalog.go).
	registries   []registryScope
	jsonCatalogs map[string]bool

	// profiles runs the bundle-content checks of catalog bundles beside
	// the file checks (bundles.go); payloads are the buffers their
	// manifests travel in, when the checks run in fbc-profile.
	profiles profileRunner
	payloads *slab.Pool
}

// fileCheck checks the documents of one file. Files are checked
// concurrently: a fileCheck reads the checker's configuration only and
// collects its diagnostics and slim blobs, which merge adds to the checker
// in file order.
type fileCheck struct {
	*checker
	diags      []declcfg.Finding
	records    []declcfg.Blob
	unreadable []declcfg.Pos
	// lost are the documents the loader skipped for syntax errors.
	lost  []declcfg.LostDoc
	stats Stats
	// lifecycles are the packages of the file's lifecycle blobs.
	lifecycles []lifecycleRef
	// path is the file's; docs counts its documents, and second is where
	// the second starts.
	path   string
	docs   int
	second declcfg.Pos

	// scratch is reused to decode olm.bundle.object data.
	scratch []byte
	// refs caches image reference verdicts by reference: the bundles of a
	// package list mostly the same related images.
	refs map[string]error
}

func (c *checker) newFileCheck() *fileCheck { return &fileCheck{checker: c} }

// merge adds what a file check found.
func (c *checker) merge(fc *fileCheck) {
	c.diags = append(c.diags, fc.diags...)
	c.stats.Add(fc.stats)
	for _, r := range fc.records {
		c.builder.Add(r)
	}
	for _, l := range fc.lost {
		c.builder.AddLost(l)
	}
	for _, p := range fc.unreadable {
		c.unreadable[p] = true
	}
	c.lifecycles = append(c.lifecycles, fc.lifecycles...)
	c.catalogYAML(fc)
}

func newChecker(opts Options) (*checker, error) {
	s, err := compiledSchema()
	if err != nil {
		return nil, err
	}
	c := &checker{opts: opts, schema: s, builder: model.NewBuilder(), unreadable: map[declcfg.Pos]bool{}, severity: ruleSeverities()}
	if opts.Profiles == nil {
		c.decodeOptions.Values = func(typ string) bool { return typ == declcfg.PropertyPackage }
	} else {
		// The profiles read every value but the olm.bundle.object ones:
		// those travel as the contents' Objects, decoded from the
		// document's nodes (bundleObjectAt), and encoding their base64
		// text as JSON too was a copy of every manifest for nothing.
		c.decodeOptions.Values = func(typ string) bool { return typ != declcfg.PropertyBundleObject }
	}
	if _, ok := opts.Profiles.(Remote); ok {
		// A bundle holds its buffer from its reading to its sending, on
		// one of the file workers.
		c.payloads = slab.New(workerCount(opts.Concurrency) + 1)
	}
	if opts.Strict {
		for _, id := range strictRules {
			c.severity[id] = declcfg.SeverityError
		}
	}
	for _, dir := range opts.SchemaDirs {
		p, err := loadPolicy(dir)
		if err != nil {
			return nil, err
		}
		c.policies = append(c.policies, p)
	}
	return c, nil
}

// compiledSchema is builtin with its error said.
func compiledSchema() (*catalogSchema, error) {
	s, err := builtin()
	if err != nil {
		return nil, fmt.Errorf("compiling the built-in CUE schemas: %w", err)
	}
	return s, nil
}

// ruleSeverities maps each rule id to its severity.
func ruleSeverities() map[string]declcfg.Severity {
	m := make(map[string]declcfg.Severity, len(catalogue))
	for _, r := range catalogue {
		m[r.ID] = r.Severity
	}
	return m
}

// strictRules are the warnings Options.Strict turns into errors: the ones
// about names that are probably typos.
var strictRules = []string{RuleUnknownField, RuleUnknownProperty, RuleUnknownSchema}

func (c *checker) policyDefines(f func(*policy) bool) bool {
	for _, p := range c.policies {
		if f(p) {
			return true
		}
	}
	return false
}

// blobRef says which package, channel and bundle a diagnostic concerns.
type blobRef struct {
	pkg, channel, bundle string
}

func (c *checker) add(rule string, pos declcfg.Pos, ref blobRef, msg string) {
	c.diags = append(c.diags, c.diagnostic(rule, pos, ref, msg))
}

func (c *fileCheck) add(rule string, pos declcfg.Pos, ref blobRef, msg string) {
	c.diags = append(c.diags, c.diagnostic(rule, pos, ref, msg))
}

func (c *checker) diagnostic(rule string, pos declcfg.Pos, ref blobRef, msg string) declcfg.Finding {
	sev, ok := c.severity[rule]
	if !ok {
		sev = declcfg.SeverityError
	}
	return declcfg.Finding{Rule: rule, Severity: sev, Pos: pos,
		Package: ref.pkg, Channel: ref.channel, Bundle: ref.bundle, Message: msg}
}

func (c *fileCheck) addLoadError(le *declcfg.LoadError, ref blobRef) {
	if le.Rule == declcfg.RuleFieldType {
		c.unreadable = append(c.unreadable, le.Pos)
	}
	d := le.Finding()
	d.Package, d.Channel, d.Bundle = ref.pkg, ref.channel, ref.bundle
	c.diags = append(c.diags, d)
}

// docContext is what the checks of one document share.
type docContext struct {
	c    *fileCheck
	file string
	ref  blobRef
	// fixed replaces every position (in-memory blobs have none of their own
	// beyond the blob's).
	fixed *declcfg.Pos
	// loaderSeen holds the positions at which the decoder already reported
	// a problem of a rule the shape walk reports too, so that each problem
	// appears once.
	loaderSeen map[loaderKey]bool
	// standalone is the bundle directory or image a bundle blob came from.
	standalone *BundleContents
}

type loaderKey struct {
	line, col int
	rule      string
}

func (d *docContext) pos(n *declcfg.Node) declcfg.Pos {
	if d.fixed != nil {
		return *d.fixed
	}
	if n == nil {
		return declcfg.Pos{File: d.file}
	}
	return declcfg.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

func (d *docContext) report(rule string, n *declcfg.Node, msg string) {
	if n != nil && d.loaderSeen[loaderKey{n.Line, n.Column, rule}] {
		return
	}
	d.c.add(rule, d.pos(n), d.ref, msg)
}

// shapeReport adapts report to what a shape walk produces.
func (d *docContext) shapeReport(rule string, n *declcfg.Node, _ *shape.Path, msg string) {
	d.report(rule, n, msg)
}

func (d *docContext) reportf(rule string, n *declcfg.Node, format string, args ...any) {
	d.report(rule, n, fmt.Sprintf(format, args...))
}

// file checks one file, a document at a time as Each reads them, then the
// problems found reading it. A streamed file is parsed on a goroutine of its
// own while the documents already read are checked, a few at most waiting.
func (c *fileCheck) file(f *declcfg.File) {
	c.stats.Files++
	c.path = f.Path
	docs := make(chan declcfg.Document, 1)
	go func() {
		defer close(docs)
		f.Each(func(doc declcfg.Document) { docs <- doc })
	}()
	for doc := range docs {
		if c.docs++; c.docs == 2 {
			c.second = doc.Pos
		}
		c.document(doc, nil, nil)
		doc.Release() // nothing of the tree outlives its checks
	}
	for _, le := range f.Errors {
		c.addLoadError(le, blobRef{})
		if le.Lost != nil {
			c.lost = append(c.lost, *le.Lost)
		}
	}
}

// document checks one document. blob, when given, is used instead of
// decoding the document (ValidateConfig passes the caller's typed blob).
// standalone, when given, is the bundle directory or image the blob was
// rendered from: it is checked on its own, outside any catalog.
func (c *fileCheck) document(doc declcfg.Document, given *declcfg.Blob, standalone *BundleContents) {
	d := &docContext{c: c, file: doc.Pos.File, standalone: standalone}
	var blob declcfg.Blob
	if given != nil {
		blob = *given
		switch p := blobPos(blob); {
		case doc.Pos.File == "" && p.File != "" && p.Line > 0:
			// The tree of a loaded blob's encoding: it takes the
			// positions the blob kept (placeBlob).
			placeBlob(declcfg.Deref(doc.Node), blob, p)
			d.file = p.File
		case p != (declcfg.Pos{}) || doc.Pos.File == "":
			d.fixed = &p
		}
	} else {
		var errs []*declcfg.LoadError
		var ok bool
		blob, errs, ok = declcfg.DecodeDocumentWith(doc, c.decodeOptions)
		pkg, name := blob.Name()
		d.ref = refOf(blob, pkg, name)
		for _, le := range errs {
			c.addLoadError(le, d.ref)
			if le.Rule == declcfg.RuleFieldType || le.Rule == declcfg.RuleKeyCase {
				if d.loaderSeen == nil {
					d.loaderSeen = map[loaderKey]bool{}
				}
				d.loaderSeen[loaderKey{le.Pos.Line, le.Pos.Col, le.Rule}] = true
			}
		}
		if !ok {
			return
		}
	}
	pkg, name := blob.Name()
	d.ref = refOf(blob, pkg, name)
	c.stats.Blobs++

	root := declcfg.Deref(doc.Node)
	foldedDuplicates(d, root, c.schema.schemas[blob.Schema])
	if sh := c.schema.schemas[blob.Schema]; sh != nil {
		sh.Walk(root, shape.Root(blob.Schema+" blob"), d.shapeReport)
	} else if !c.policyDefines(func(p *policy) bool { return p.definesSchema(blob.Schema) }) {
		c.unknownSchema(d, root, blob.Schema)
	}
	props := c.properties(d, root)
	for _, p := range c.policies {
		p.checkBlob(d, root, blob.Schema, props)
	}

	switch {
	case blob.Package != nil:
		c.stats.Packages++
		c.packageBlob(d, root, blob.Package)
	case blob.Channel != nil:
		c.stats.Channels++
		c.channelBlob(blob.Channel)
	case blob.Bundle != nil:
		c.stats.Bundles++
		c.bundleBlob(d, root, blob.Bundle, props)
	case blob.Deprecation != nil:
		c.deprecationBlob(blob.Deprecation)
	case blob.Schema == SchemaLifecycle:
		c.lifecycleBlob(d, root)
	}
}

// foldedDuplicates reports top-level keys of a blob that differ only in
// case. opm compares a blob's top-level keys case-insensitively, whatever its
// schema, and rejects the blob when two fold to one ("duplicate keys for key
// ..."). The shape walk reports the pairs in which one key is a field of a
// known schema spelt exactly; this finds the rest (custom schemas, unknown
// fields, two misspellings of one field).
func foldedDuplicates(d *docContext, root *declcfg.Node, sh *shape.Shape) {
	entries, err := declcfg.MappingEntries(root)
	if err != nil {
		return // duplicate keys: the loader reports them
	}
	for i, e := range entries {
		if e.KeyNode == nil || sh.Declares(e.Key) {
			continue
		}
		for _, f := range entries[:i] {
			if f.Key != e.Key && strings.EqualFold(f.Key, e.Key) && !sh.Declares(f.Key) {
				d.reportf(declcfg.RuleDuplicateKey, e.KeyNode,
					"keys %q and %q differ only in case; opm compares a blob's keys case-insensitively and rejects the blob (duplicate keys): keep one of them", f.Key, e.Key)
				break
			}
		}
	}
}

func refOf(b declcfg.Blob, pkg, name string) blobRef {
	switch {
	case b.Channel != nil:
		return blobRef{pkg: pkg, channel: name}
	case b.Bundle != nil:
		return blobRef{pkg: pkg, bundle: name}
	}
	return blobRef{pkg: pkg}
}

func blobPos(b declcfg.Blob) declcfg.Pos {
	switch {
	case b.Package != nil:
		return b.Package.Pos
	case b.Channel != nil:
		return b.Channel.Pos
	case b.Bundle != nil:
		return b.Bundle.Pos
	case b.Deprecation != nil:
		return b.Deprecation.Pos
	case b.Meta != nil:
		return b.Meta.Pos
	}
	return declcfg.Pos{}
}

// field returns the value node of key in mapping n as the decoder reads
// it (declcfg.CatalogKeys), or nil.
func field(n *declcfg.Node, key string) *declcfg.Node {
	return declcfg.CatalogKeys.Value(n, key)
}

// isString reports whether n is a string scalar.
func isString(n *declcfg.Node) bool {
	if n == nil || n.Kind != declcfg.ScalarNode {
		return false
	}
	if _, ok := declcfg.YAML11Bool(n); ok {
		return false // a boolean to opm
	}
	t := n.Tag
	return t == "!!str" || t == "!!timestamp"
}

// strValue returns the string a node holds, or "" for anything else (the
// decoder reads a value of the wrong type as empty, and reports it).
func strValue(n *declcfg.Node) string {
	if !isString(n) {
		return ""
	}
	return n.Value
}

// items returns the elements of a sequence node (nil for anything else).
func items(n *declcfg.Node) []*declcfg.Node {
	if n == nil || n.Kind != declcfg.SequenceNode {
		return nil
	}
	return n.Content
}
