package resolve

import (
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// sortChannel orders entries of one package and channel as OLM's resolver
// does (the model's rule: from the head down the replaces chain, leaving
// out entries another entry skips; no head, several heads or a cycle are
// OLM's errors, which stop the whole resolution). OLM applies it to whole
// channels and to the subsets it forms: a Subscription's startingCSV in
// each channel, the installed CSVs of a package.
func sortChannel(entries []*entry) ([]*entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	ces := make([]declcfg.ChannelEntry, len(entries))
	byName := make(map[string]*entry, len(entries))
	for i, e := range entries {
		ces[i] = declcfg.ChannelEntry{Name: e.name, Replaces: e.replaces, Skips: e.skips}
		if _, ok := byName[e.name]; !ok {
			byName[e.name] = e
		}
	}
	names, err := model.ShapeOf(ces).Order(entries[0].pkg, entries[0].channel)
	if err != nil {
		return nil, err
	}
	out := make([]*entry, len(names))
	for i, n := range names {
		out[i] = byName[n]
	}
	return out, nil
}

// channelChain is sortChannel over a whole channel of a catalog, computed
// once per catalog.
func (c *catalog) channelChain(pkg, channel string) ([]*entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chains == nil {
		c.chains = map[pkgChannel]chainResult{}
		c.groups = map[pkgChannel][]*entry{}
		for _, e := range c.entries {
			k := pkgChannel{e.pkg, e.channel}
			c.groups[k] = append(c.groups[k], e)
		}
	}
	k := pkgChannel{pkg, channel}
	if r, ok := c.chains[k]; ok {
		return r.chain, r.err
	}
	chain, err := sortChannel(c.groups[k])
	c.chains[k] = chainResult{chain, err}
	return chain, err
}
