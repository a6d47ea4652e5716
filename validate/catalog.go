package validate

import (
	"regexp"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// The rules about packages, channels, bundles and deprecations that need
// the whole catalog are the model's (model.Catalog.Problems): each file
// check leaves a slim copy of its blobs (names, edges, versions,
// positions; no manifests, icons or other properties), the checker feeds
// them to a model.Builder in file order, and finish reports what the model
// finds.

var dns1123Label = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

func (c *fileCheck) packageBlob(d *docContext, root *declcfg.Node, p *declcfg.Package) {
	if p.Name == "" {
		return // missing-field or empty-value already
	}
	nameNode := field(root, "name")
	switch {
	case len(p.Name) > 63:
		d.reportf(RulePackageName, nameNode, "package name %q is longer than 63 characters; package names are DNS-1123 labels", p.Name)
	case !dns1123Label().MatchString(p.Name):
		d.reportf(RulePackageName, nameNode, "package name %q is not a DNS-1123 label: use lowercase letters, digits and '-', starting and ending with a letter or digit", p.Name)
	}
	slim := *p
	slim.Icon, slim.Description, slim.Properties = nil, "", nil
	c.records = append(c.records, declcfg.Blob{Schema: declcfg.SchemaPackage, Package: &slim})
}

func (c *fileCheck) channelBlob(ch *declcfg.Channel) {
	if len(ch.Properties) > 0 {
		slim := *ch
		slim.Properties = nil
		ch = &slim
	}
	c.records = append(c.records, declcfg.Blob{Schema: declcfg.SchemaChannel, Channel: ch})
}

// bundleRecord keeps what the model's rules read of a bundle: its names,
// position and olm.package property (a bundle has one; more are reported,
// and the model only needs to know there are several).
func (c *fileCheck) bundleRecord(b *declcfg.Bundle) {
	// One allocation holds the copy and its property.
	slim := &struct {
		declcfg.Bundle
		props [2]declcfg.Property
	}{Bundle: declcfg.Bundle{Schema: b.Schema, Name: b.Name, Package: b.Package, Image: b.Image, Pos: b.Pos}}
	n := 0
	for _, p := range b.Properties {
		if p.Type == declcfg.PropertyPackage && n < len(slim.props) {
			slim.props[n] = p
			n++
		}
	}
	slim.Properties = slim.props[:n:n]
	c.records = append(c.records, declcfg.Blob{Schema: declcfg.SchemaBundle, Bundle: &slim.Bundle})
}

func (c *fileCheck) deprecationBlob(dep *declcfg.Deprecation) {
	c.records = append(c.records, declcfg.Blob{Schema: declcfg.SchemaDeprecations, Deprecation: dep})
}

// finish reports what the model finds in the whole catalog. A problem at a
// value the loader could not read (a defaultChannel that is a number) is
// left out: the loader already said so there.
func (c *checker) finish() {
	c.catalog = c.builder.Build()
	var upper map[declcfg.Pos]bool
	if c.opts.TargetOCP != nil {
		upper = c.skipRangesUpper()
	}
	for _, p := range c.catalog.Problems() {
		if c.unreadable[p.Pos] {
			continue
		}
		if p.Rule == RuleDowngradeEdge && upper[p.Pos] {
			continue // the pipeline's skip-range-upper error says it of this skipRange
		}
		c.add(p.Rule, p.Pos, blobRef{pkg: p.Package, channel: p.Channel, bundle: p.Bundle}, p.Message)
	}
	c.lifecyclePackages()
}
