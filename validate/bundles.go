package validate

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/manifestscan"
	"github.com/fbc-project/fbc/model"
)

// BundleSource is a bundle directory or bundle image given to Validate
// directly. The caller reads it (render.ReadBundles does); validate checks
// the olm.bundle it renders to with the blob rules, and its contents with
// the profiles.
type BundleSource struct {
	// Source names the bundle as the user did; diagnostics that concern
	// the bundle as a whole point there.
	Source string
	// Contents is what the bundle holds; nil when it could not be read.
	Contents *BundleContents
	// Problem says why the bundle could not be read, at Pos when known:
	// its content is not a bundle (rule bundle-read), or, when Unreadable,
	// reading it failed (rule io-error: the verdict is unknown).
	Problem    string
	Pos        declcfg.Pos
	Unreadable bool
	// Ignored lists files OLM ignores (rule bundle-ignored-file).
	Ignored []string
}

// BundleContents is what the profiles check about one bundle. It is also
// what fbc sends fbc-profile for each bundle (validate/profiles): its JSON
// form is the protocol's, so keep the field names stable.
type BundleContents struct {
	// Bundle is the olm.bundle blob (from a catalog, or rendered from a
	// bundle directory or image). Across the protocol it travels without
	// its olm.bundle.object properties, which are Objects.
	Bundle *declcfg.Bundle `json:"bundle,omitempty"`
	// Pos locates the bundle: its blob, or the file of its
	// ClusterServiceVersion for a bundle directory or image.
	Pos declcfg.Pos `json:"pos"`
	// Objects are the bundle's manifests: the olm.bundle.object properties
	// of a catalog blob, or the files of manifests/.
	Objects []BundleObject `json:"objects,omitempty"`
	// Files are the files of a bundle directory or image (manifests/ and
	// metadata/); nil for a catalog blob.
	Files []BundleFile `json:"files,omitempty"`
	// CSVMetadataPos is where a catalog bundle's olm.csv.metadata
	// property is, for bundles that carry no ClusterServiceVersion object.
	CSVMetadataPos declcfg.Pos `json:"csvMetadataPos"`
	// Channels and DefaultChannel come from a bundle's annotations; a
	// catalog's channels are the olm.channel blobs (CatalogFacts).
	Channels       []string `json:"channels,omitempty"`
	DefaultChannel string   `json:"defaultChannel,omitempty"`
	// FromCatalog is set for bundles of a catalog; Source names a bundle
	// directory or image as the user did.
	FromCatalog bool   `json:"fromCatalog,omitempty"`
	Source      string `json:"source,omitempty"`

	// payload holds the Objects' JSON of a catalog bundle sent to a Remote
	// checker, one buffer for all of them, which goes back to the run's
	// pool once the bundle's findings are in (Remote promises that it
	// keeps no reference to them).
	payload []byte
}

// BundleObject is one manifest of a bundle.
type BundleObject struct {
	// Pos is the manifest's file and line, or the position of the
	// olm.bundle.object property's data in the catalog.
	Pos declcfg.Pos `json:"pos"`
	// JSON is the manifest. Across the protocol it travels after the
	// request's line, as raw bytes (profiles.BundleRequest.Payload).
	JSON []byte `json:"-"`
	// APIVersion, Kind and Name (metadata.name) identify the object.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
}

// BundleFile is one file of a bundle directory or image.
type BundleFile struct {
	Name string `json:"name"`
	// Data travels after the request's line, as raw bytes, as the
	// objects' JSON does.
	Data []byte `json:"-"`
}

// ProfileChecker runs the bundle-content profiles. validate/profiles
// implements it by running the fbc-profile executable, where
// validate/profile does the checks: neither fbc nor validate links the
// Kubernetes libraries those checks need.
type ProfileChecker interface {
	// CheckBundle checks one bundle. It is called from several goroutines
	// at once, for every bundle of the catalogs and every bundle source.
	CheckBundle(b *BundleContents) []declcfg.Finding
	// CheckCatalog runs the checks that span a catalog's bundles (the
	// upgrade edges of its channels), once, after every CheckBundle call.
	// Its error says that the profiles could not run (then the findings of
	// earlier CheckBundle calls may be missing too).
	CheckCatalog(cat *model.Catalog) ([]declcfg.Finding, error)
}

// Remote is a ProfileChecker that checks bundles in another process
// (fbc-profile). Send hands a catalog bundle over without waiting for its
// findings, so that this process reads on while that one checks; the
// findings come to done later, on another goroutine (nil when the
// profiles could not run: CheckCatalog then says why). Send returns once
// the bundle's manifests are sent on: their bytes are reused for the next
// bundles. It blocks while the other process is busy, which keeps the
// catalog's reading from racing ahead of the checks.
type Remote interface {
	Send(b *BundleContents, done func([]declcfg.Finding))
}

// checkBundleSources reads and checks the bundle directories and images of
// a run, several at once, and applies the repository rules that read
// their folders (plans, by ref) to the bytes read; their diagnostics are
// merged in source order.
func (c *checker) checkBundleSources(ctx context.Context, refs []string, plans map[string]*bundlePlan) error {
	if len(refs) == 0 {
		return nil
	}
	if c.opts.ReadBundle == nil {
		return errors.New("validate: Options.Bundles needs Options.ReadBundle")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := c.opts.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	checks := make([]*fileCheck, len(refs))
	slots := make(chan struct{}, workers)
	c.opts.Progress.Found(len(refs))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for i, ref := range refs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			src, err := c.opts.ReadBundle(ctx, ref)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
				return
			}
			fc := c.newFileCheck()
			fc.bundleSource(src)
			if p := plans[ref]; p != nil {
				fc.bundleFolder(ref, src.Contents, p)
			}
			checks[i] = fc
			c.opts.Progress.Done(1)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, fc := range checks {
		c.merge(fc)
	}
	return nil
}

// bundleSource checks one bundle directory or image: the blob it renders
// to (without the catalog rules: a lone bundle has no package or channel),
// then its contents.
func (c *fileCheck) bundleSource(src *BundleSource) {
	ref := blobRef{}
	for _, msg := range src.Ignored {
		// Render words them "FILE: ignored: why".
		pos := declcfg.Pos{File: src.Source}
		if file, why, ok := strings.Cut(msg, ": ignored: "); ok {
			pos.File, msg = file, "ignored: "+why
		}
		c.add(RuleBundleIgnoredFile, pos, ref, msg)
	}
	if src.Contents == nil {
		pos := src.Pos
		if pos.File == "" {
			pos.File = src.Source
		}
		rule := RuleBundleRead
		if src.Unreadable {
			rule = declcfg.RuleIO
		}
		c.add(rule, pos, ref, src.Problem)
		return
	}
	b := src.Contents
	c.stats.Files += max(len(b.Files), 1)
	blob := declcfg.Blob{Schema: declcfg.SchemaBundle, Bundle: b.Bundle}
	saved := b.Bundle.Pos
	b.Bundle.Pos = b.Pos
	doc, err := declcfg.BlobDocument(blob)
	if err != nil {
		c.add(RuleBundleRead, b.Pos, ref, err.Error())
		return
	}
	c.document(doc, &blob, b)
	b.Bundle.Pos = saved
}

// bundleObjectAt checks the n-th olm.bundle.object of a blob. For a
// bundle directory or image, each is a file of manifests/: its problems
// point at the file, not at a property the user never wrote.
func (c *fileCheck) bundleObjectAt(d *docContext, p propertyNode, where string, n int) (*manifestscan.Manifest, []byte) {
	if d.standalone == nil {
		return c.bundleObject(d, p, where)
	}
	i := manifestOf(d.standalone.Objects, p, n)
	if i < 0 {
		return c.bundleObject(d, p, where)
	}
	saved := d.fixed
	pos := d.standalone.Objects[i].Pos
	d.fixed = &pos
	defer func() { d.fixed = saved }()
	return c.bundleObject(d, p, "the manifest")
}

// manifestOf finds the file of manifests/ an olm.bundle.object property
// holds: the one whose JSON is the property's data. The properties are in
// opm's order (sorted by their encoded value), not the files' order, so
// the n-th property is the n-th file only by chance; -1 when no file has
// the data (it does not decode, or the lists do not match).
func manifestOf(objects []BundleObject, p propertyNode, n int) int {
	dn := field(p.value, "data")
	if dn == nil {
		return -1
	}
	data, err := base64.StdEncoding.DecodeString(dn.Value)
	if err != nil {
		return -1
	}
	if n < len(objects) && bytes.Equal(objects[n].JSON, data) {
		return n
	}
	return slices.IndexFunc(objects, func(o BundleObject) bool { return bytes.Equal(o.JSON, data) })
}

// objectJSON copies a decoded olm.bundle.object's JSON (bundleObject
// converted a YAML one, as opm does) into the bundle's payload buffer when
// it has one.
func (b *BundleContents) objectJSON(data []byte) []byte {
	if b.payload == nil || len(b.payload)+len(data) > cap(b.payload) {
		return bytes.Clone(data)
	}
	start := len(b.payload)
	b.payload = append(b.payload, data...)
	return b.payload[start:len(b.payload):len(b.payload)]
}

// checkBundleProfiles runs the profiles on one bundle; diagnostics that do
// not say which bundle they concern are about this one. A catalog's
// bundles are checked beside the file checks: sent to a Remote checker,
// or each on a goroutine of its own, so that a file with many bundles
// keeps every core busy; diagnostics are sorted in the end, so the outcome
// does not depend on the order they finish in.
func (c *fileCheck) checkBundleProfiles(b *BundleContents, ref blobRef) {
	own := func(ds []declcfg.Finding) []declcfg.Finding {
		for i := range ds {
			if ds[i].Package == "" && ds[i].Bundle == "" {
				ds[i].Package, ds[i].Bundle = ref.pkg, ref.bundle
			}
		}
		return ds
	}
	if !b.FromCatalog {
		c.diags = append(c.diags, own(c.opts.Profiles.CheckBundle(b))...)
		return
	}
	if r, ok := c.opts.Profiles.(Remote); ok {
		c.checker.profiles.send(r, b, own)
		if b.payload != nil {
			c.payloads.Put(b.payload)
			b.payload = nil
			for i := range b.Objects {
				b.Objects[i].JSON = nil
			}
		}
		return
	}
	workers := c.opts.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	c.checker.profiles.start(workers, func() []declcfg.Finding { return own(c.opts.Profiles.CheckBundle(b)) })
}

// profileRunner runs bundle checks a few at a time.
type profileRunner struct {
	once  sync.Once
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	diags []declcfg.Finding
}

// start runs check when a slot is free; it waits for one, which keeps the
// file checks from racing ahead of the bundle checks (and memory bounded).
func (r *profileRunner) start(workers int, check func() []declcfg.Finding) {
	r.once.Do(func() {
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		r.slots = make(chan struct{}, workers)
	})
	r.slots <- struct{}{}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() { <-r.slots }()
		r.add(check())
	}()
}

// send hands a bundle to a Remote checker; its findings, passed through
// own, are added when they come.
func (r *profileRunner) send(remote Remote, b *BundleContents, own func([]declcfg.Finding) []declcfg.Finding) {
	r.wg.Add(1)
	remote.Send(b, func(ds []declcfg.Finding) {
		defer r.wg.Done()
		r.add(own(ds))
	})
}

func (r *profileRunner) add(ds []declcfg.Finding) {
	r.mu.Lock()
	r.diags = append(r.diags, ds...)
	r.mu.Unlock()
}

// wait returns every diagnostic once all checks are done.
func (r *profileRunner) wait() []declcfg.Finding {
	r.wg.Wait()
	return r.diags
}

// checkCatalogProfiles runs the profiles' catalog-wide checks, once every
// bundle's are done. Its error is the profiles' failure to run: the run
// then has no result, rather than one that lacks their findings.
func (c *checker) checkCatalogProfiles() error {
	if c.opts.Profiles == nil {
		return nil
	}
	c.diags = append(c.diags, c.profiles.wait()...)
	ds, err := c.opts.Profiles.CheckCatalog(c.catalog)
	if err != nil {
		return err
	}
	c.diags = append(c.diags, ds...)
	return nil
}
