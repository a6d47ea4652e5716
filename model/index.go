package model

import "github.com/fbc-project/fbc/declcfg"

// The catalog-wide indexes are built together on first use: a command that
// never asks (validate, graph) does not pay for them.
func (c *Catalog) index() {
	c.indexOnce.Do(func() {
		c.provided = map[declcfg.GVK][]*Bundle{}
		c.required = map[declcfg.GVK][]*Bundle{}
		c.replacing = map[string][]*Entry{}
		for _, p := range c.Packages {
			for _, b := range p.Bundles {
				for _, g := range b.Provides() {
					if l := c.provided[g]; len(l) == 0 || l[len(l)-1] != b {
						c.provided[g] = append(l, b)
					}
				}
				for _, r := range b.Requires() {
					if r.GVK == nil {
						continue
					}
					if l := c.required[*r.GVK]; len(l) == 0 || l[len(l)-1] != b {
						c.required[*r.GVK] = append(l, b)
					}
				}
			}
			for _, ch := range p.Channels {
				for _, e := range ch.Entries {
					if e.Replaces != "" {
						c.replacing[e.Replaces] = append(c.replacing[e.Replaces], e)
					}
					for _, s := range e.Skips {
						if s == "" || s == e.Replaces {
							continue
						}
						if l := c.replacing[s]; len(l) == 0 || l[len(l)-1] != e {
							c.replacing[s] = append(l, e)
						}
					}
				}
			}
		}
	})
}

// ProvidedBy returns the bundles with an olm.gvk property for the API, in
// package and bundle order.
func (c *Catalog) ProvidedBy(gvk declcfg.GVK) []*Bundle {
	c.index()
	return c.provided[gvk]
}

// RequiredBy returns the bundles with an olm.gvk.required property for the
// API, in package and bundle order.
func (c *Catalog) RequiredBy(gvk declcfg.GVK) []*Bundle {
	c.index()
	return c.required[gvk]
}

// Replacing returns the entries, in every package and channel, that replace
// or skip the named bundle, each once, in package, channel and entry order.
// skipRange does not count: it names versions, not bundles.
func (c *Catalog) Replacing(name string) []*Entry {
	c.index()
	return c.replacing[name]
}
