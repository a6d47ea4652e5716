package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/repo"
)

// The rules only Konflux applies to an FBC fragment (Options.Konflux):
// validate-fbc's (the configs directory's layout, at least one package,
// the bundle metadata a release needs, bundle images pinned by digest on
// the Red Hat registries), run-opm-command's conversion of image tags to
// digests, Conforma's release policy on related images, and the lifecycle
// injection of OpenShift 5. Each message starts with what the pipeline
// prints.

// Konflux's own patterns for a pinned bundle image and a trusted registry.
var (
	konfluxDigestPinned = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@sha256:[a-fA-F0-9]{64}$`) })
	konfluxTrusted      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^registry\.(stage\.)?redhat\.io/`) })
)

// lifecycleInjectedSince is the first release for which Konflux injects a
// package's lifecycle.json into the fragment.
var lifecycleInjectedSince = declcfg.MinorVersion{Major: 5}

// konfluxLayout checks the configs directory of a fragment: every entry
// that is a directory is a package folder, there must be one, none may be
// empty, and, from OpenShift 5.0 on, none may hold lifecycle.json already.
// Paths that are not local directories (files, standard input, images)
// have no layout to check.
func (c *checker) konfluxLayout(path string) {
	if path == "-" {
		return
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return // the walk reports it
	}
	found := false
	for _, e := range entries {
		dir := filepath.Join(path, e.Name())
		if !e.IsDir() {
			continue
		}
		found = true
		inside, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		if len(inside) == 0 {
			c.add(RuleKonfluxEmptyPackageDir, declcfg.Pos{File: dir}, blobRef{},
				"Package directory is empty: FBC package directories must not be empty; remove it or put the package's catalog in it")
			continue
		}
		if t := c.opts.TargetOCP; t != nil && t.AtLeast(lifecycleInjectedSince) {
			lc := filepath.Join(dir, lifecycleFile)
			if _, err := os.Lstat(lc); err == nil {
				c.add(RuleKonfluxLifecycleFile, declcfg.Pos{File: lc}, blobRef{pkg: e.Name()},
					fmt.Sprintf("lifecycle.json already exists for package %q, refusing to overwrite: from OpenShift %s on (the target is %s) Konflux injects the package's lifecycle.json itself; delete this one", e.Name(), lifecycleInjectedSince, t))
			}
		}
	}
	if !found {
		c.add(RuleKonfluxPackageDirs, declcfg.Pos{File: path}, blobRef{},
			fmt.Sprintf("No package subdirectories found inside the catalog directory. At least one is required: move the catalog files into %s/<package-name>/", strings.TrimRight(filepath.ToSlash(path), "/")))
	}
}

// lifecycleFile is the name Konflux injects a package's lifecycle blob as.
const lifecycleFile = "lifecycle.json"

// konfluxFragment reports a fragment without an olm.package blob, once
// every file has been read.
func (c *checker) konfluxFragment() {
	if !c.opts.Konflux || c.stats.Packages > 0 {
		return
	}
	var at declcfg.Pos
	if len(c.paths) > 0 {
		at.File = c.paths[0]
	}
	c.add(RuleKonfluxNoPackage, at, blobRef{},
		"There are no olm package entries defined in this FBC fragment: Konflux needs at least one olm.package blob")
}

// konfluxBundle applies Konflux's rules to one bundle of a fragment.
func (c *fileCheck) konfluxBundle(d *docContext, root *declcfg.Node, b *declcfg.Bundle, props []propertyNode) {
	c.konfluxMetadataFormat(d, root, b, props)
	imageNode := field(root, "image")
	if imageNode != nil && isString(imageNode) && b.Image == "" {
		d.reportf(RuleKonfluxEmptyImage, imageNode,
			"Found empty image reference in catalog. This indicates a malformed catalog entry: %s has image \"\"", bundleLabel(b.Name))
	}
	unpinned := false
	if b.Image != "" {
		if !konfluxDigestPinned().MatchString(b.Image) {
			unpinned = true
			d.reportf(RuleKonfluxDigestPin, imageNode,
				"The following olm.bundle image references are not digest-pinned: %s; reference the bundle image by @sha256 digest", b.Image)
		}
		if !konfluxTrusted().MatchString(b.Image) {
			d.reportf(RuleKonfluxTrustedRegistry, imageNode,
				"The following olm.bundle image references are not from registry.redhat.io or registry.stage.redhat.io: %s", b.Image)
		}
	}
	for i, ri := range items(field(root, "relatedImages")) {
		img := field(ri, "image")
		s := strValue(img)
		if s == "" || unpinned && s == b.Image {
			// Empty images are empty-value's; the bundle's own image,
			// when unpinned, is reported once above.
			continue
		}
		ref, err := imageref.Parse(s)
		switch {
		case err != nil || ref.Digest != "":
			// An invalid reference is image-reference's.
		case ref.Tag == "":
			d.reportf(RuleKonfluxImageTag, img,
				"Image '%s' has no tag. Cannot convert to digest (relatedImages[%d]): pin it by digest", s, i)
		default:
			d.reportf(RuleKonfluxRelatedDigest, img,
				"relatedImages[%d] %s: related images are not pinned with a digest (Conforma olm.unpinned_related_images); reference it by @sha256 digest", i, s)
		}
	}
}

// konfluxMetadataFormat applies validate-fbc's rule on bundle metadata:
// below the release that moved to olm.csv.metadata every bundle carries
// olm.bundle.object and none olm.csv.metadata; from that release on every
// bundle carries olm.csv.metadata (olm.bundle.object there is
// metadata-format's, which every pipeline applies).
func (c *fileCheck) konfluxMetadataFormat(d *docContext, root *declcfg.Node, b *declcfg.Bundle, props []propertyNode) {
	target := c.opts.TargetOCP
	if target == nil {
		return
	}
	var csvMeta *propertyNode
	objects := 0
	for i, p := range props {
		switch p.typ {
		case declcfg.PropertyCSVMetadata:
			if csvMeta == nil {
				csvMeta = &props[i]
			}
		case declcfg.PropertyBundleObject:
			objects++
		}
	}
	if target.AtLeast(repo.CSVMetadataSince) {
		if csvMeta == nil {
			d.reportf(RuleKonfluxMetadataFormat, root,
				"every olm.bundle object in the fragment must have a corresponding olm.csv.metadata bundle property: %s has none (the target is %s); render it with --migrate-level %s", bundleLabel(b.Name), target, migrationLevel)
		}
		return
	}
	if csvMeta != nil {
		d.reportf(RuleKonfluxMetadataFormat, csvMeta.item,
			"olm.csv.metadata bundle properties are not permitted in a FBC fragment for OCP version %s. Fragments must only use olm.bundle.object bundle metadata: render %s without --migrate-level", target, bundleLabel(b.Name))
	}
	if objects == 0 {
		d.reportf(RuleKonfluxMetadataFormat, root,
			"every olm.bundle object in the fragment must have at least one olm.bundle.object bundle property: %s has none (the target is %s, before %s); render it from its image without --migrate-level", bundleLabel(b.Name), target, repo.CSVMetadataSince)
	}
}
