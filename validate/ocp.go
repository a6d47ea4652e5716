package validate

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/manifestscan"
	"github.com/fbc-project/fbc/repo"
)

// metadataFormat reports, for a target release that needs olm.csv.metadata,
// a bundle that still carries olm.bundle.object properties, once, at the
// first of them, saying whether render's migration can rewrite it.
func (c *fileCheck) metadataFormat(d *docContext, b *declcfg.Bundle, props []propertyNode, csv *manifestscan.Manifest) {
	target := c.opts.TargetOCP
	if target == nil || !target.AtLeast(repo.CSVMetadataSince) {
		return
	}
	var first *propertyNode
	objects, hasMetadata := 0, false
	for i, p := range props {
		switch p.typ {
		case declcfg.PropertyBundleObject:
			if first == nil {
				first = &props[i]
			}
			objects++
		case declcfg.PropertyCSVMetadata:
			hasMetadata = true
		}
	}
	if objects == 0 {
		return
	}
	const migrate = "fbc render CATALOG --migrate-level " + migrationLevel + " -o yaml"
	var fix string
	switch {
	case hasMetadata:
		fix = "it has olm.csv.metadata already, which the migration takes as done: delete its olm.bundle.object properties"
	case b.Image == "":
		fix = "the migration skips bundles without an image: set the bundle's image, then `" + migrate + "` rewrites them into olm.csv.metadata"
	case csv == nil:
		fix = "none of them is a ClusterServiceVersion, from which the migration derives olm.csv.metadata: re-render the bundle from its image with --migrate-level " + migrationLevel
		if objects == 1 {
			fix = "it is not a ClusterServiceVersion" + strings.TrimPrefix(fix, "none of them is a ClusterServiceVersion")
		}
	default:
		fix = "use olm.csv.metadata: `" + migrate + "` rewrites them into it"
	}
	d.reportf(RuleMetadataFormat, first.item, "%s has %s, which the pipelines refuse in catalogs for OpenShift %s and later (the target is %s): %s",
		bundleLabel(b.Name), countNoun(objects, "olm.bundle.object property", "olm.bundle.object properties"), repo.CSVMetadataSince, target, fix)
}

// migrationLevel is render's migration that turns olm.bundle.object
// properties into olm.csv.metadata (validate does not import render).
const migrationLevel = "bundle-object-to-csv-metadata"

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
