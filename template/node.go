package template

import (
	"context"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/safefs"
)

// Templates are read as yaml.v3 nodes so that every problem can name its
// line. Keys match case-insensitively, as opm's JSON decoding does (older
// semver templates write Schema, GenerateMajorChannels, Bundles, Image).

// readFile reads a file a user named: a regular file, or a pipe this
// process was handed (<(...)); a FIFO on disk is refused rather than
// waited on.
func readFile(ctx context.Context, name string) ([]byte, error) {
	data, err := safefs.ReadInput(ctx, name, 0)
	if err != nil {
		return nil, fmt.Errorf("reading template: %w", err)
	}
	return data, nil
}

// field is one key of a mapping.
type field struct {
	name  string // the key as written
	key   *declcfg.Node
	value *declcfg.Node
}

// fields lists a mapping's keys, rejecting keys that repeat (also when they
// differ only in case, since they would land in the same field).
func (d *document) fields(n *declcfg.Node) ([]field, Problems) {
	var out []field
	var ps Problems
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], declcfg.Deref(n.Content[i+1])
		if k.Kind != declcfg.ScalarNode {
			ps = append(ps, d.problem(k, "keys must be strings"))
			continue
		}
		dup := false
		for _, f := range out {
			if strings.EqualFold(f.name, k.Value) {
				ps = append(ps, d.problem(k, "duplicate key %q (first defined at line %d)", k.Value, f.key.Line))
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, field{name: k.Value, key: k, value: v})
		}
	}
	return out, ps
}

// str reads a string scalar; null reads as "".
func (d *document) str(n *declcfg.Node, what string) (string, *declcfg.Finding) {
	if declcfg.IsNull(n) {
		return "", nil
	}
	if n.Kind != declcfg.ScalarNode || n.Tag != "!!str" {
		return "", d.problem(n, "%s must be a string, not %s", what, declcfg.KindName(n))
	}
	return n.Value, nil
}

// boolean reads a boolean scalar; null reads as false.
func (d *document) boolean(n *declcfg.Node, what string) (bool, *declcfg.Finding) {
	if declcfg.IsNull(n) {
		return false, nil
	}
	if n.Kind == declcfg.ScalarNode && n.Tag == "!!bool" {
		switch strings.ToLower(n.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, d.problem(n, "%s must be true or false, not %s", what, declcfg.KindName(n))
}
