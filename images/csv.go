package images

import (
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/manifestscan"
)

// csvFacts is what a ClusterServiceVersion says about images: its labels
// (the operatorframework.io/arch.* and os.* ones among them) and every
// place it names an image, where the pipelines look for them when they pin
// a bundle (operator-manifest-tools and the Konflux tasks): spec.relatedImages,
// the install strategy's containers and init containers, their
// RELATED_IMAGE_* environment variables, and the containerImage annotation.
type csvFacts struct {
	name   string
	labels map[string]string
	refs   []found
}

// found is an image reference in a document: the scalar holding it, where
// it is and how it is quoted.
type found struct {
	kind   Kind
	name   string
	value  string
	pos    declcfg.Pos
	quoted byte
}

// foundAt makes a found of the string scalar n of file; ok is false when n
// is not a string.
func foundAt(file string, kind Kind, name string, n *declcfg.Node) (found, bool) {
	v, ok := str(n)
	if !ok {
		return found{}, false
	}
	// Values may share the file's bytes (declcfg.WalkOptions.Borrow);
	// what is kept is copied, so that the file can go.
	return found{kind: kind, name: strings.Clone(name), value: strings.Clone(v), pos: at(file, n), quoted: quoteOf(declcfg.Deref(n))}, true
}

// csvKind is the kind of a ClusterServiceVersion.
const csvKind = "ClusterServiceVersion"

// readCSV reads the image references of a CSV document of file; nil when
// root is not a CSV.
func readCSV(file string, root *declcfg.Node) *csvFacts {
	if strValue(field(root, "kind")) != csvKind {
		return nil
	}
	md := field(root, "metadata")
	c := &csvFacts{name: strings.Clone(strValue(field(md, "name"))), labels: stringMap(field(md, "labels"))}
	add := func(kind Kind, name string, n *declcfg.Node) {
		if f, ok := foundAt(file, kind, name, n); ok && f.value != "" {
			c.refs = append(c.refs, f)
		}
	}
	add(KindOperator, "containerImage", field(field(md, "annotations"), "containerImage"))
	spec := field(root, "spec")
	for _, ri := range items(field(spec, "relatedImages")) {
		add(KindRelated, strValue(field(ri, "name")), field(ri, "image"))
	}
	for _, dep := range items(field(field(field(spec, "install"), "spec"), "deployments")) {
		pod := field(field(field(dep, "spec"), "template"), "spec")
		for _, key := range []string{"initContainers", "containers"} {
			for _, ctr := range items(field(pod, key)) {
				add(KindOperator, strValue(field(ctr, "name")), field(ctr, "image"))
				for _, env := range items(field(ctr, "env")) {
					ename := strValue(field(env, "name"))
					if !strings.HasPrefix(ename, "RELATED_IMAGE_") {
						continue
					}
					add(KindRelated, ename, field(env, "value"))
				}
			}
		}
	}
	return c
}

// operatorImages are the images the CSV's deployments run.
func (c *csvFacts) operatorImages() map[string]bool {
	out := map[string]bool{}
	for _, f := range c.refs {
		if f.kind == KindOperator {
			out[f.value] = true
		}
	}
	return out
}

// csvFromObject reads the CSV among a bundle's olm.bundle.object manifests
// (JSON): nil if data is another kind of object or not readable. The kind
// is read without decoding, so that CRDs, most of a catalog's bytes, cost
// one scan.
func csvFromObject(data []byte) *csvFacts {
	m, err := manifestscan.Scan(data)
	if err != nil || m.Kind != csvKind {
		return nil
	}
	f := declcfg.ParseFile("csv.json", data)
	if len(f.Docs) != 1 {
		return nil
	}
	return readCSV("", f.Docs[0].Node)
}
