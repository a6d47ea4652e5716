package validate

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/manifestscan"
	"github.com/fbc-project/fbc/model"
)

// bundleBlob applies the rules about one bundle: its olm.package property
// (exactly one, matching the package, strict semver version, valid release
// and normalized name), image references, inline objects, the CSV they
// carry, and leaves a slim copy for the model.
func (c *fileCheck) bundleBlob(d *docContext, root *declcfg.Node, b *declcfg.Bundle, props []propertyNode) {
	where := func(p propertyNode) string { return fmt.Sprintf("properties[%d]", p.index) }

	var pkgProps []propertyNode
	objects, csvMetadatas := 0, 0
	var csv *manifestscan.Manifest
	var contents *BundleContents
	if c.opts.Profiles != nil && d.standalone == nil {
		contents = &BundleContents{Bundle: b, Pos: d.pos(root), FromCatalog: true}
		if n := payloadSize(props); n > 0 && c.payloads != nil {
			contents.payload = c.payloads.Get(n)
		}
	}
	for _, p := range props {
		switch p.typ {
		case declcfg.PropertyPackage:
			pkgProps = append(pkgProps, p)
		case declcfg.PropertyCSVMetadata:
			csvMetadatas++
			csvMetadataCount(d, b.Name, p, csvMetadatas)
			if contents != nil {
				contents.CSVMetadataPos = d.pos(p.item)
			}
		case declcfg.PropertyBundleObject:
			objects++
			id, data := c.bundleObjectAt(d, p, where(p), objects-1)
			if id != nil && csv == nil && id.Kind == "ClusterServiceVersion" {
				csv = id
			}
			if contents != nil && id != nil {
				// data is the scratch buffer, reused for the next object.
				contents.Objects = append(contents.Objects, BundleObject{Pos: d.pos(field(p.value, "data")), JSON: contents.objectJSON(data),
					APIVersion: id.APIVersion, Kind: id.Kind, Name: id.Name})
			}
		}
	}

	version, hasRelease := c.packageProperties(d, root, b, pkgProps)

	if b.Image != "" {
		if err := c.imageReference(b.Image); err != nil {
			d.reportf(RuleImageReference, field(root, "image"), "image %q is not a valid image reference: %v%s", b.Image, err, referenceHint(err))
		}
	} else if objects == 0 {
		at := field(root, "image")
		if at == nil {
			at = root
		}
		d.reportf(RuleBundleImage, at, "%s has no image and no olm.bundle.object properties; set image to the bundle image reference", bundleLabel(b.Name))
	}
	for i, ri := range items(field(root, "relatedImages")) {
		img := field(ri, "image")
		if s := strValue(img); s != "" {
			if err := c.imageReference(s); err != nil {
				d.reportf(RuleImageReference, img, "relatedImages[%d].image %q is not a valid image reference: %v%s", i, s, err, referenceHint(err))
			}
		}
	}

	c.csvMismatch(d, root, b, version, hasRelease, csv)
	if d.standalone != nil {
		// A lone bundle is not part of a catalog: the model does not see
		// it, and the catalog's format rules do not apply.
		contents = d.standalone
	} else {
		c.metadataFormat(d, b, props, csv)
		if c.opts.Konflux {
			c.konfluxBundle(d, root, b, props)
		}
		if len(c.registries) > 0 {
			c.bundleRegistry(d, root, b)
		}
		c.bundleRecord(b)
	}
	if contents != nil && c.opts.Profiles != nil {
		c.checkBundleProfiles(contents, blobRef{pkg: b.Package, bundle: b.Name})
	}
}

// payloadSize is how many bytes a bundle's olm.bundle.object properties
// decode to at most.
func payloadSize(props []propertyNode) int {
	n := 0
	for _, p := range props {
		if p.typ == declcfg.PropertyBundleObject {
			n += base64.StdEncoding.DecodedLen(len(strValue(field(p.value, "data"))))
		}
	}
	return n
}

// packageProperties applies the rules about a bundle's olm.package
// properties: exactly one, naming the bundle's package, with a strict
// semver version (and a valid release). It returns the parsed version and
// whether the bundle has a release.
func (c *fileCheck) packageProperties(d *docContext, root *declcfg.Node, b *declcfg.Bundle, pkgProps []propertyNode) (*semver.Version, bool) {
	switch len(pkgProps) {
	case 0:
		d.reportf(RulePackageProperty, root, "%s has no olm.package property; add one: {type: olm.package, value: {packageName: %s, version: ...}}", bundleLabel(b.Name), orPlaceholder(b.Package, "<package>"))
	case 1:
		return c.packageProperty(d, root, b, pkgProps[0])
	default:
		for _, p := range pkgProps[1:] {
			d.reportf(RulePackageProperty, p.item, "%s has %d olm.package properties (properties[%d] is one more); keep exactly one", bundleLabel(b.Name), len(pkgProps), p.index)
		}
	}
	return nil, false
}

// csvMetadataCount reports the n-th olm.csv.metadata property of a bundle
// when it is not the first: opm refuses a bundle with more than one.
func csvMetadataCount(d *docContext, bundle string, p propertyNode, n int) {
	if n > 1 {
		d.reportf(RuleInvalidValue, p.item, "%s has more than one olm.csv.metadata property (properties[%d] is one more); opm serves at most one: keep one", bundleLabel(bundle), p.index)
	}
}

// bundleLabel names a bundle in messages, also when its name is missing.
func bundleLabel(name string) string {
	if name == "" {
		return "the bundle"
	}
	return fmt.Sprintf("bundle %q", name)
}

func orPlaceholder(s, placeholder string) string {
	if s == "" {
		return placeholder
	}
	return s
}

// imageReference parses a reference once per run: bundles of a package list
// mostly the same related images.
func (c *fileCheck) imageReference(s string) error {
	if err, ok := c.refs[s]; ok {
		return err
	}
	_, err := imageref.Parse(s)
	if c.refs == nil {
		c.refs = map[string]error{}
	}
	c.refs[s] = err
	return err
}

// packageProperty checks the olm.package value and returns the parsed
// version and whether it has a release.
func (c *fileCheck) packageProperty(d *docContext, root *declcfg.Node, b *declcfg.Bundle, p propertyNode) (*semver.Version, bool) {
	v := p.value
	if v == nil || v.Kind != declcfg.MappingNode {
		return nil, false // the shape walk reports it
	}
	pn := field(v, "packageName")
	if name := strValue(pn); b.Package != "" && name != "" && name != b.Package {
		d.reportf(RulePackageProperty, pn, "olm.package packageName %q does not match the bundle's package %q", name, b.Package)
	}
	vn := field(v, "version")
	raw := strValue(vn)
	if raw == "" {
		return nil, false
	}
	ver, err := semver.Parse(raw)
	if err != nil {
		hint := ""
		if t, terr := semver.ParseTolerant(raw); terr == nil {
			hint = fmt.Sprintf("; write %q", t.String())
		}
		d.reportf(RuleBundleVersion, vn, "bundle %q: version %q is not strict semver: %v%s", b.Name, raw, err, hint)
		return nil, false
	}
	rn := field(v, "release")
	release := releaseText(rn)
	if release != "" {
		if err := checkRelease(release); err != nil {
			d.reportf(RuleBundleRelease, rn, "bundle %q: %v", b.Name, err)
			return &ver, true
		}
		if len(ver.Build) > 0 {
			d.reportf(RuleBundleRelease, vn, "bundle %q: version %q has build metadata and a release (%q); drop the build metadata, the release tells rebuilds apart", b.Name, raw, release)
		}
		if want := fmt.Sprintf("%s-v%s-%s", b.Package, ver.String(), release); b.Name != want && b.Package != "" {
			d.reportf(RuleBundleRelease, field(root, "name"), "bundle %q has a release, so its name must be %q (<package>-v<version>-<release>)", b.Name, want)
		}
	}
	return &ver, release != ""
}

// releaseText reads release as opm does: a string, or a number written as
// one.
func releaseText(n *declcfg.Node) string {
	if n == nil || n.Kind != declcfg.ScalarNode {
		return ""
	}
	switch n.Tag {
	case "!!str", "!!int", "!!float":
		return n.Value
	}
	return ""
}

// checkRelease applies opm's release rules: at most 20 characters of
// dot-separated semver prerelease identifiers.
func checkRelease(r string) error {
	_, err := declcfg.ParseRelease(r)
	return err
}

// bundleObject checks that an olm.bundle.object holds base64 of a Kubernetes
// object and returns its identity and the object as JSON (a JSON object
// as decoded, in a buffer the next call reuses; a YAML one converted).
func (c *fileCheck) bundleObject(d *docContext, p propertyNode, where string) (*manifestscan.Manifest, []byte) {
	return c.checkBundleObject(d, p, where, false)
}

// checkBundleObject is bundleObject; asOPM checks only what makes opm refuse
// to load the object (LoadCheck): data that is not base64, or YAML that does
// not convert to JSON. opm takes data that starts as a JSON object as it is,
// and an object without apiVersion, kind or name too. It then returns no
// identity.
func (c *fileCheck) checkBundleObject(d *docContext, p propertyNode, where string, asOPM bool) (*manifestscan.Manifest, []byte) {
	dn := field(p.value, "data")
	data := strValue(dn)
	if data == "" {
		return nil, nil // the shape walk reports it
	}
	n := base64.StdEncoding.DecodedLen(len(data))
	if cap(c.scratch) < n {
		c.scratch = make([]byte, n)
	}
	buf := c.scratch[:n]
	// data is read, never written: viewing it as bytes saves copying
	// megabytes per bundle.
	n, err := base64.StdEncoding.Decode(buf, unsafe.Slice(unsafe.StringData(data), len(data)))
	if err != nil {
		d.reportf(RuleBundleObject, dn, "%s: olm.bundle.object data is not base64: %v", where, err)
		return nil, nil
	}
	buf = buf[:n]
	// opm converts YAML manifests to JSON when it loads them.
	j, err := declcfg.ObjectJSON(buf)
	if asOPM {
		if err != nil {
			d.reportf(RuleBundleObject, dn, "%s: olm.bundle.object data decodes to %s, which is not a JSON or YAML object", where, preview(buf))
		}
		return nil, j
	}
	var m manifestscan.Manifest
	if err == nil {
		m, err = manifestscan.Scan(j)
	}
	if err != nil {
		d.reportf(RuleBundleObject, dn, "%s: olm.bundle.object data decodes to %s, which is not a JSON or YAML object", where, preview(buf))
		return nil, nil
	}
	var missing []string
	for _, f := range []struct{ name, value string }{{"apiVersion", m.APIVersion}, {"kind", m.Kind}, {"metadata.name", m.Name}} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		d.reportf(RuleBundleObject, dn, "%s: olm.bundle.object data is not a Kubernetes object: it has no %s", where, strings.Join(missing, ", "))
		return nil, nil
	}
	return &m, j
}

// preview quotes the start of decoded data for a message.
func preview(b []byte) string {
	const max = 40
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// csvMismatch warns when a bundle's name or version disagrees with its CSV,
// or, without an inline CSV, with the version its own name ends with.
// A bundle with a release is named <package>-v<version>-<release>
// (rule bundle-release), so its name is not compared with the version.
func (c *fileCheck) csvMismatch(d *docContext, root *declcfg.Node, b *declcfg.Bundle, version *semver.Version, hasRelease bool, csv *manifestscan.Manifest) {
	if b.Name == "" {
		return
	}
	nameNode := field(root, "name")
	if csv != nil {
		if csv.Name != b.Name {
			d.reportf(RuleCSVMismatch, nameNode, "bundle %q holds ClusterServiceVersion %q; name the bundle after its CSV (opm render does)", b.Name, csv.Name)
		}
		if version != nil && csv.Version != "" {
			if cv, err := semver.ParseTolerant(csv.Version); err == nil && !cv.Equals(*version) {
				d.reportf(RuleCSVMismatch, nameNode, "bundle %q has olm.package version %s, but its ClusterServiceVersion's spec.version is %s", b.Name, version, csv.Version)
			}
		}
		return
	}
	if version == nil || hasRelease {
		return
	}
	if nv, ok := model.NameVersion(b.Name); ok && !nv.Equals(*version) {
		d.reportf(RuleCSVMismatch, nameNode, "bundle %q has olm.package version %s, but its name says %s; one of them is wrong", b.Name, version, nv)
	}
}

// referenceHint says what a reference looks like when the grammar's error
// does not say what is wrong.
func referenceHint(err error) string {
	if errors.Is(err, imageref.ErrFormat) {
		return "; write [registry/]repository[:tag][@sha256:digest], for example quay.io/acme/op:v1.0.0"
	}
	return ""
}
