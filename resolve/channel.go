package resolve

import (
	"fmt"
	"strings"
)

// sortChannel orders the entries of one channel as OLM's resolver does:
// from the head (the entry no other entry replaces or skips) down the
// replaces chain, leaving out every entry another entry skips. Semantic
// versions play no part. Several heads, no head, or a replaces cycle are
// OLM's errors, which stop the whole resolution.
func sortChannel(entries []*entry) ([]*entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	pkg, channel := entries[0].pkg, entries[0].channel
	byName := make(map[string]*entry, len(entries))
	for _, e := range entries {
		byName[e.name] = e
	}
	replacedBy := make(map[*entry]bool, len(entries))
	replaces := make(map[*entry]*entry, len(entries))
	skipped := make(map[string]bool)
	for _, e := range entries {
		if r, ok := byName[e.replaces]; ok && e.replaces != "" {
			replacedBy[r] = true
			replaces[e] = r
		}
		for _, s := range e.skips {
			if r, ok := byName[s]; ok {
				replacedBy[r] = true
				skipped[s] = true
			}
		}
	}
	var heads []*entry
	for _, e := range entries {
		if !replacedBy[e] {
			heads = append(heads, e)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	chains := make([][]*entry, 0, len(heads))
	for _, head := range heads {
		var chain []*entry
		seen := map[*entry]bool{}
		for cur := head; ; {
			seen[cur] = true
			if !skipped[cur.name] {
				chain = append(chain, cur)
			}
			next, ok := replaces[cur]
			if !ok {
				break
			}
			if seen[next] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", head.name, channel, pkg)
			}
			cur = next
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		names := make([]string, len(chains))
		for i, chain := range chains {
			switch len(chain) {
			case 0:
				names[i] = "[]"
			case 1:
				names[i] = chain[0].name
			default:
				names[i] = chain[0].name + "..." + chain[len(chain)-1].name
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s", len(names), channel, pkg, strings.Join(names, ", "))
	}
	return chains[0], nil
}

// channelChain is sortChannel over a whole channel of a catalog, computed
// once per catalog.
func (c *catalog) channelChain(pkg, channel string) ([]*entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := pkgChannel{pkg, channel}
	if r, ok := c.chains[k]; ok {
		return r.chain, r.err
	}
	var members []*entry
	for _, e := range c.entries {
		if e.pkg == pkg && e.channel == channel {
			members = append(members, e)
		}
	}
	chain, err := sortChannel(members)
	if c.chains == nil {
		c.chains = map[pkgChannel]chainResult{}
	}
	c.chains[k] = chainResult{chain, err}
	return chain, err
}
