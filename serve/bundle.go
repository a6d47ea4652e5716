package serve

import (
	"container/list"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/serve/api"
)

// manifests are a bundle's csvJson and objects, as opm serves them.
type manifests struct {
	csvJSON string
	objects []string
}

func (m *manifests) size() int64 {
	n := int64(len(m.csvJSON)) + 64
	for _, o := range m.objects {
		n += int64(len(o)) + 16
	}
	return n
}

// manifestsOf reads a bundle's blob back from the spill and converts its
// manifests: olm.bundle.object data decoded (YAML to JSON, JSON as it is),
// the ClusterServiceVersion among them as csvJson, or one made from
// olm.csv.metadata when there is none.
func (c *Catalog) manifestsOf(b *model.Bundle, info *bundleInfo) (*manifests, error) {
	if !info.hasObjects && !info.hasCSVMetadata {
		return &manifests{}, nil
	}
	return c.cache.get(bundleKey{b.Package.Name, b.Name}, func() (*manifests, error) {
		line, err := c.readBlob(info.blob)
		if err != nil {
			return nil, err
		}
		var blob struct {
			Properties    []declcfg.Property     `json:"properties"`
			RelatedImages []declcfg.RelatedImage `json:"relatedImages"`
		}
		if err := json.Unmarshal(line, &blob); err != nil {
			return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		full := &model.Bundle{Name: b.Name, Blob: &declcfg.Bundle{Name: b.Name, Properties: blob.Properties}}
		objs, err := full.Objects()
		if err != nil {
			return nil, err
		}
		m := &manifests{objects: make([]string, len(objs))}
		for i, o := range objs {
			m.objects[i] = string(o)
		}
		if i := slices.IndexFunc(objs, declcfg.IsCSV); i >= 0 {
			m.csvJSON = string(objs[i])
		}
		if m.csvJSON == "" && info.hasCSVMetadata {
			csv, err := makeCSV(csvMetadataOf(blob.Properties), b.Name, info.version, c.packages[b.Package.Name], blob.RelatedImages)
			if err != nil {
				return nil, fmt.Errorf("bundle %q: olm.csv.metadata: %w", b.Name, err)
			}
			m.csvJSON = csv
			if len(m.objects) == 0 {
				m.objects = []string{csv}
			}
		}
		return m, nil
	})
}

// csvMetadataOf is the first olm.csv.metadata value of props.
func csvMetadataOf(props []declcfg.Property) json.RawMessage {
	for _, p := range props {
		if p.Type == declcfg.PropertyCSVMetadata {
			return p.Value
		}
	}
	return nil
}

// apiBundle is a bundle as listed in one channel. trimmed drops replaces
// and skips, as opm does for every call but ListBundles; listed drops the
// manifests of bundles that have an image, as ListBundles does.
func (c *Catalog) apiBundle(e *model.Entry, trimmed, listed bool) (*api.Bundle, error) {
	b := e.Bundle
	info := c.bundles[bundleKey{b.Package.Name, b.Name}]
	out := &api.Bundle{
		CsvName:      b.Name,
		PackageName:  b.Package.Name,
		ChannelName:  e.Channel.Name,
		BundlePath:   b.Image,
		ProvidedApis: info.provided,
		RequiredApis: info.required,
		Version:      info.version,
		SkipRange:    e.SkipRange,
		Dependencies: info.deps,
		Properties:   info.properties,
	}
	if !trimmed {
		out.Replaces, out.Skips = e.Replaces, e.Skips
	}
	if b.Deprecation != nil {
		out.Deprecation = &api.Deprecation{Message: b.Deprecation.Message}
	}
	if listed && b.Image != "" {
		return out, nil
	}
	m, err := c.manifestsOf(b, info)
	if err != nil {
		return nil, err
	}
	out.CsvJson, out.Object = m.csvJSON, m.objects
	return out, nil
}

// manifestCache keeps converted manifests, least recently used first out,
// within a byte budget. Concurrent calls for the same bundle convert it
// once.
type manifestCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	items  map[bundleKey]*cacheItem
	lru    *list.List // of *cacheItem, most recent at the front
	// onLoad, when set, is called for every conversion (tests count them).
	onLoad func()
	// slots bounds the conversions running at once: they use the CPU and
	// a few times a bundle's size in memory, so more at once would only
	// add memory.
	slots chan struct{}
}

type cacheItem struct {
	key  bundleKey
	done chan struct{}
	val  *manifests
	err  error
	elem *list.Element
}

func newManifestCache(budget int64) *manifestCache {
	if budget <= 0 {
		budget = 32 << 20
	}
	return &manifestCache{budget: budget, items: map[bundleKey]*cacheItem{}, lru: list.New(),
		slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
}

func (mc *manifestCache) get(k bundleKey, load func() (*manifests, error)) (*manifests, error) {
	mc.mu.Lock()
	if it, ok := mc.items[k]; ok {
		if it.elem != nil {
			mc.lru.MoveToFront(it.elem)
		}
		mc.mu.Unlock()
		<-it.done
		return it.val, it.err
	}
	it := &cacheItem{key: k, done: make(chan struct{})}
	mc.items[k] = it
	mc.mu.Unlock()

	if mc.onLoad != nil {
		mc.onLoad()
	}
	mc.slots <- struct{}{}
	it.val, it.err = load()
	<-mc.slots
	close(it.done)

	mc.mu.Lock()
	defer mc.mu.Unlock()
	if it.err != nil {
		delete(mc.items, k)
		return it.val, it.err
	}
	size := it.val.size()
	if size > mc.budget {
		delete(mc.items, k)
		return it.val, nil
	}
	it.elem = mc.lru.PushFront(it)
	mc.used += size
	for mc.used > mc.budget {
		old := mc.lru.Back().Value.(*cacheItem)
		mc.lru.Remove(old.elem)
		delete(mc.items, old.key)
		mc.used -= old.val.size()
	}
	return it.val, nil
}
