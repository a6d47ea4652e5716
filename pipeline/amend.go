package pipeline

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/repo"
)

// The release bot's amendments (operator-pipelines, add_bundle_to_fbc.py),
// made on the template's text so that what the release does not add keeps
// its comments and layout.
//
// A basic template gets, for each channel the release names: the channel
// (schema, name, package, entries) at the end of entries when it has none;
// then the bundle ({schema: olm.bundle, image}) at the end of entries when
// no bundle entry has the image; then, in every channel the release names,
// the channel entry (name from the CSV, then replaces, skips and skipRange
// when release-config.yaml gives them) at the end of its entries, unless an
// equal entry is there. A semver template gets {Image: REF} at the end of
// each named channel's Bundles, the channel at the end of the template when
// it has none. A missing template is created with the bot's defaults: a
// basic one holds the package (defaultChannel: release-config.yaml's, or
// the first channel), the channels and the bundle; a semver one generates
// major and minor channels. Where the bot would write a template that opm
// then refuses (a second entry of the same name with other edges, a semver
// channel opm does not know), fbc stops and says why instead.

// addition is what one catalog_templates item adds to its template.
type addition struct {
	rt      repo.ReleaseTemplate
	pkg     string
	csvName string
	image   string
	// file names the template in problems.
	file string
}

// problem is a fault of the template being amended, at a node.
func (a *addition) problem(n *declcfg.Node, format string, args ...any) error {
	pos := declcfg.Pos{File: a.file}
	if n != nil {
		pos.Line, pos.Col = n.Line, n.Column
	}
	return fault.Wrap(fault.Input, repo.ProblemAt(pos, fmt.Sprintf(format, args...)))
}

// entry is the channel entry the release adds, keys in the bot's order.
func (a *addition) entry() *declcfg.Node {
	e := declcfg.MappingOf(declcfg.StringNode("name"), declcfg.StringNode(a.csvName))
	for _, kv := range []struct {
		key string
		v   *declcfg.Node
	}{{"replaces", a.rt.Replaces}, {"skips", a.rt.Skips}, {"skipRange", a.rt.SkipRange}} {
		if kv.v != nil {
			e.Content = append(e.Content, declcfg.StringNode(kv.key), kv.v)
		}
	}
	return e
}

func (a *addition) bundle() *declcfg.Node {
	return declcfg.MappingOf(declcfg.StringNode("schema"), declcfg.StringNode("olm.bundle"), declcfg.StringNode("image"), declcfg.StringNode(a.image))
}

// written is a string of release-config.yaml's item as it is written
// there (quoted as it is quoted), or a plain string when it is not there.
func (a *addition) written(key, value string) *declcfg.Node {
	_, v := declcfg.PipelineKeys.Lookup(a.rt.Node, key)
	if v != nil && v.Kind == declcfg.SequenceNode {
		for _, it := range v.Content {
			if it = declcfg.Deref(it); it.Kind == declcfg.ScalarNode && it.Value == value {
				return &declcfg.Node{Kind: it.Kind, Style: it.Style, Tag: it.Tag, Value: it.Value}
			}
		}
	} else if v != nil && v.Kind == declcfg.ScalarNode && v.Value == value {
		return &declcfg.Node{Kind: v.Kind, Style: v.Style, Tag: v.Tag, Value: v.Value}
	}
	return declcfg.StringNode(value)
}

func (a *addition) channel(name string, entries ...*declcfg.Node) *declcfg.Node {
	return declcfg.MappingOf(
		declcfg.StringNode("schema"), declcfg.StringNode("olm.channel"),
		declcfg.StringNode("name"), a.written("channels", name),
		declcfg.StringNode("package"), declcfg.StringNode(a.pkg),
		declcfg.StringNode("entries"), declcfg.SequenceOf(entries...))
}

// createBasic is a new basic template as the bot writes it.
func createBasic(a *addition) *declcfg.Node {
	def := a.written("defaultChannel", a.rt.DefaultChannel)
	if a.rt.DefaultChannel == "" {
		def = a.written("channels", a.rt.Channels[0])
	}
	items := []*declcfg.Node{declcfg.MappingOf(
		declcfg.StringNode("schema"), declcfg.StringNode("olm.package"),
		declcfg.StringNode("name"), declcfg.StringNode(a.pkg),
		declcfg.StringNode("defaultChannel"), def)}
	for _, ch := range a.rt.Channels {
		items = append(items, a.channel(ch, a.entry()))
	}
	items = append(items, a.bundle())
	return declcfg.MappingOf(declcfg.StringNode("schema"), declcfg.StringNode(repo.TypeBasic), declcfg.StringNode("entries"), declcfg.SequenceOf(items...))
}

// createSemver is a new semver template as the bot writes it.
func createSemver(a *addition) *declcfg.Node {
	t := declcfg.MappingOf(
		declcfg.StringNode("Schema"), declcfg.StringNode(repo.TypeSemver),
		declcfg.StringNode("GenerateMajorChannels"), declcfg.BoolNode(true),
		declcfg.StringNode("GenerateMinorChannels"), declcfg.BoolNode(true))
	for _, ch := range a.rt.Channels {
		t.Content = append(t.Content, a.written("channels", ch), semverChannel("Bundles", "Image", a.image))
	}
	return t
}

func semverChannel(bundles, image, ref string) *declcfg.Node {
	return declcfg.MappingOf(declcfg.StringNode(bundles), declcfg.SequenceOf(semverBundle(image, ref)))
}

func semverBundle(image, ref string) *declcfg.Node {
	return declcfg.MappingOf(declcfg.StringNode(image), declcfg.StringNode(ref))
}

// strField reads a string field of a mapping; "" when absent or no string.
func strField(m *declcfg.Node, key string) string {
	_, v := declcfg.PipelineKeys.Lookup(m, key)
	if v == nil || v.Kind != declcfg.ScalarNode || v.Tag != "!!str" {
		return ""
	}
	return v.Value
}

// amendBasic amends a basic template; it reports whether anything changed.
func amendBasic(t *declcfg.YAMLText, a *addition) (bool, error) {
	entriesOf := func() (*declcfg.Node, error) {
		root := t.Root()
		if root == nil || root.Kind != declcfg.MappingNode {
			return nil, a.problem(root, "a basic template is a mapping with schema and entries")
		}
		k, v := declcfg.PipelineKeys.Lookup(root, "entries")
		switch {
		case k == nil:
			return nil, a.problem(root, "the template has no entries list to add the bundle to")
		case v.Kind != declcfg.SequenceNode:
			return nil, a.problem(v, "entries must be a list, not %s", declcfg.KindName(v))
		}
		return v, nil
	}
	entries, err := entriesOf()
	if err != nil {
		return false, err
	}
	changed := false
	// Channels the template lacks, each with the new entry in it.
	have := map[string]bool{}
	for _, it := range entries.Content {
		if strField(it, "schema") == "olm.channel" {
			have[strField(it, "name")] = true
		}
	}
	for _, ch := range a.rt.Channels {
		if have[ch] {
			continue
		}
		if err := t.Append(entries, a.channel(ch, a.entry())); err != nil {
			return false, err
		}
		changed = true
		if entries, err = entriesOf(); err != nil {
			return false, err
		}
	}
	// The bundle.
	found := false
	for _, it := range entries.Content {
		if strField(it, "schema") == "olm.bundle" && strField(it, "image") == a.image {
			found = true
			break
		}
	}
	if !found {
		if err := t.Append(entries, a.bundle()); err != nil {
			return false, err
		}
		changed = true
		if entries, err = entriesOf(); err != nil {
			return false, err
		}
	}
	// The entry, in every channel the release names.
	want, err := declcfg.NodeToValue(a.entry())
	if err != nil {
		return false, err
	}
	for i := 0; i < len(entries.Content); i++ {
		it := declcfg.Deref(entries.Content[i])
		if strField(it, "schema") != "olm.channel" || !slices.Contains(a.rt.Channels, strField(it, "name")) {
			continue
		}
		k, list := declcfg.PipelineKeys.Lookup(it, "entries")
		switch {
		case k == nil:
			return false, a.problem(it, "channel %q has no entries list to add %s to", strField(it, "name"), a.csvName)
		case list.Kind != declcfg.SequenceNode:
			return false, a.problem(list, "the entries of channel %q must be a list, not %s", strField(it, "name"), declcfg.KindName(list))
		}
		present := false
		for _, e := range list.Content {
			got, err := declcfg.NodeToValue(e)
			if err == nil && reflect.DeepEqual(got, want) {
				present = true
				break
			}
			if strField(e, "name") == a.csvName {
				return false, a.problem(e, "channel %q already has an entry for %s with other edges than %s gives it: the release would add a second one, which opm refuses; make them agree",
					strField(it, "name"), a.csvName, a.rt.Pos.File)
			}
		}
		if present {
			continue
		}
		if err := t.Append(list, a.entry()); err != nil {
			return false, err
		}
		changed = true
		if entries, err = entriesOf(); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// semverChannels are the channels of a semver template (opm matches them
// without regard to case).
var semverChannels = []string{"Candidate", "Fast", "Stable"}

// amendSemver amends a semver template; it reports whether anything
// changed.
func amendSemver(t *declcfg.YAMLText, a *addition) (bool, error) {
	root := t.Root()
	if root == nil || root.Kind != declcfg.MappingNode {
		return false, a.problem(root, "a semver template is a mapping with Schema and its channels")
	}
	// New keys are spelled as the template spells its schema key.
	bundlesKey, imageKey := "Bundles", "Image"
	if k, _ := declcfg.CatalogKeys.Lookup(root, "schema"); k != nil && k.Value == "schema" {
		bundlesKey, imageKey = "bundles", "image"
	}
	changed := false
	for _, ch := range a.rt.Channels {
		root = t.Root()
		k, v := declcfg.CatalogKeys.Lookup(root, ch)
		if k == nil {
			if err := t.AddKey(root, ch, semverChannel(bundlesKey, imageKey, a.image)); err != nil {
				return false, err
			}
			changed = true
			continue
		}
		if v.Kind != declcfg.MappingNode {
			return false, a.problem(v, "channel %s must be a mapping with Bundles, not %s", k.Value, declcfg.KindName(v))
		}
		bk, list := declcfg.CatalogKeys.Lookup(v, "bundles")
		if bk == nil {
			if err := t.AddKey(v, bundlesKey, declcfg.SequenceOf(semverBundle(imageKey, a.image))); err != nil {
				return false, err
			}
			changed = true
			continue
		}
		if list.Kind != declcfg.SequenceNode {
			return false, a.problem(list, "the Bundles of channel %s must be a list, not %s", k.Value, declcfg.KindName(list))
		}
		present := false
		for _, b := range list.Content {
			if _, img := declcfg.CatalogKeys.Lookup(b, "image"); img != nil && img.Value == a.image {
				present = true
				break
			}
		}
		if present {
			continue
		}
		if err := t.Append(list, semverBundle(imageKey, a.image)); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// checkSemverChannel refuses a channel a semver template does not have.
func checkSemverChannel(a *addition) error {
	for i, ch := range a.rt.Channels {
		if !slices.ContainsFunc(semverChannels, func(s string) bool { return strings.EqualFold(s, ch) }) {
			return fault.Wrap(fault.Input, repo.ProblemAt(a.rt.ChannelPos[i],
				fmt.Sprintf("channel %q is not a semver template's: it has %s (opm would leave the bundle out of the catalog)", ch, strings.Join(semverChannels, ", "))))
		}
	}
	return nil
}
