package template

import (
	"context"
	"slices"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
)

// MigrateLevels are the migration levels FileOptions.MigrateLevel accepts:
// render's, since render runs them.
var MigrateLevels = render.MigrationLevels

// bundleSources renders the bundles a template names through one
// Renderer, shared by all of them (connections, tokens and the cache).
type bundleSources struct {
	r    *render.Renderer
	memo *Memo // nil: nothing kept
	// cache marks the sources of a Renderer that only reads the cache, so
	// that what it misses is not remembered as the registry's answer.
	cache bool
}

// render renders a bundle directory or a bundle image (registry, oci:,
// oci-archive:, docker-archive:) under the template's reference. No
// migration: the semver template reads the CSV from olm.bundle.object, so
// migrations run on the finished catalog (Options.Migrate).
func (s *bundleSources) render(ctx context.Context, source, ref string) ([]declcfg.Bundle, error) {
	key := "render\x00"
	if s.cache {
		key = "cache\x00"
	}
	return s.memo.do(key+source+"\x00"+ref, func() ([]declcfg.Bundle, error) {
		b, err := s.r.RenderBundle(ctx, source, ref, render.Request{Allowed: render.KindBundles})
		if err != nil {
			return nil, err
		}
		return []declcfg.Bundle{*b}, nil
	})
}

// Memo keeps what each bundle source gave (a bundle directory, an image
// from the cache or a registry, a catalog file), so that renders sharing it
// (one template at several migrate levels, several templates of a
// package) read each source once. It is safe for concurrent use.
type Memo struct {
	mu    sync.Mutex
	calls map[string]*memoCall
	reads int
}

type memoCall struct {
	once sync.Once
	bs   []declcfg.Bundle
	err  error
}

// Reads is the number of sources read (each once), not counting those
// that had nothing (an image the cache lacks).
func (m *Memo) Reads() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads
}

// do runs fn once per key; a nil Memo runs it every time. Each caller gets
// its own copy of the bundles, so that what one render does with them does
// not reach another.
func (m *Memo) do(key string, fn func() ([]declcfg.Bundle, error)) ([]declcfg.Bundle, error) {
	if m == nil {
		return fn()
	}
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[string]*memoCall{}
	}
	c, ok := m.calls[key]
	if !ok {
		c = &memoCall{}
		m.calls[key] = c
	}
	m.mu.Unlock()
	c.once.Do(func() {
		c.bs, c.err = fn()
		if c.err == nil {
			m.mu.Lock()
			m.reads++
			m.mu.Unlock()
		}
	})
	if c.err != nil {
		return nil, c.err
	}
	return slices.Clone(c.bs), nil
}

// pull renders a reference the image map does not hold from its registry
// (or the image cache, offline).
func (s *bundleSources) pull(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
	return s.render(ctx, ref, ref)
}

// migrate runs render's migrations up to level on a finished catalog.
func migrate(cfg *declcfg.DeclarativeConfig, level string) error {
	return render.Migrate(cfg, level)
}
