package profile

import (
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// fieldPos is the position of a field of a manifest: in a bundle
// directory or image, the line of the deepest part of path the manifest's
// file holds; in a catalog, the olm.bundle.object property (whose base64
// hides the lines).
func (b *bundle) fieldPos(o *object, path ...string) declcfg.Pos {
	if o == nil {
		return b.csvPos()
	}
	root := b.fileRoot(o.Pos.File)
	if root == nil || len(path) == 0 {
		return o.Pos
	}
	n := root
	at := o.Pos
	for _, seg := range path {
		next, key := child(n, seg)
		if next == nil {
			break
		}
		if key != nil {
			at = declcfg.Pos{File: o.Pos.File, Line: key.Line, Col: key.Column}
		} else {
			at = declcfg.Pos{File: o.Pos.File, Line: next.Line, Col: next.Column}
		}
		n = next
	}
	return at
}

// fileRoot parses a bundle file once, for positions; nil when the bundle
// has no such file or the file does not parse.
func (b *bundle) fileRoot(name string) *declcfg.Node {
	if b.roots == nil {
		b.roots = map[string]*declcfg.Node{}
	}
	if n, ok := b.roots[name]; ok {
		return n
	}
	var root *declcfg.Node
	if f := b.files[name]; f != nil {
		if docs, err := declcfg.ParseYAML(f.Data); err == nil && len(docs) > 0 {
			root = docs[0].Node
		}
	}
	b.roots[name] = root
	return root
}

// child steps into a mapping key or a sequence index as Kubernetes reads
// a manifest (declcfg.ManifestKeys); it returns the value and, for a
// mapping, the key node.
func child(n *declcfg.Node, seg string) (value, key *declcfg.Node) {
	key, value = declcfg.ManifestKeys.Step(n, seg)
	return value, key
}

// metadataKeyPos finds a top-level annotation of metadata/annotations.yaml
// (or whichever metadata file holds it).
func (b *bundle) metadataKeyPos(key string) (declcfg.Pos, bool) {
	for _, f := range b.in.Files {
		if !strings.Contains(filepath.ToSlash(f.Name), "metadata/") {
			continue
		}
		root := b.fileRoot(f.Name)
		ann, _ := child(root, "annotations")
		if _, k := child(ann, key); k != nil {
			return declcfg.Pos{File: f.Name, Line: k.Line, Col: k.Column}, true
		}
	}
	return declcfg.Pos{}, false
}

// fieldPath splits a Kubernetes field path (spec.versions[0].name) into
// steps.
func fieldPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				break
			}
			out = append(out, part[i+1:i+j])
			part = part[i+j+1:]
		}
	}
	return out
}
