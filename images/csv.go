package images

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/borrow"
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

// csvFromBase64 is csvFromObject of an olm.bundle.object's base64 data,
// decoded in buf (grown when it is too small; nothing read is kept in it).
// Most of a catalog's bytes are CRDs: the start of each object is decoded
// first, and when its top-level kind is there and is not a CSV, the rest is
// not decoded at all.
func csvFromBase64(data string, buf *[]byte) *csvFacts {
	const prefix = 4096 // base64 characters: 3 KB of JSON
	enc := base64.StdEncoding
	if n := enc.DecodedLen(len(data)); cap(*buf) < n {
		*buf = make([]byte, n)
	}
	out := (*buf)[:cap(*buf)]
	if len(data) > prefix {
		n, err := enc.Decode(out, borrow.Bytes(data[:prefix]))
		if err != nil {
			return nil
		}
		if kind, ok := topLevelKind(out[:n]); ok && kind != csvKind {
			return nil
		}
	}
	n, err := enc.Decode(out, borrow.Bytes(data))
	if err != nil {
		return nil
	}
	return csvFromObject(out[:n])
}

// topLevelKind reads the "kind" member of the JSON object that data starts
// with (data may be cut short): ok is false when the start does not reach
// it, or is not an object.
func topLevelKind(data []byte) (string, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return "", false
		}
		key, next, ok := readString(data, i)
		if !ok {
			return "", false
		}
		i = skipSpace(data, next)
		if i >= len(data) || data[i] != ':' {
			return "", false
		}
		i = skipSpace(data, i+1)
		if key == "kind" {
			if i < len(data) && data[i] == '"' {
				v, _, ok := readString(data, i)
				return v, ok
			}
			return "", ok
		}
		if i, ok = skipValue(data, i); !ok {
			return "", false
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return "", false
		}
		i++
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// readString reads the JSON string at data[i] (a quote); escaped strings
// are read as written, which is enough to compare plain keys and kinds.
func readString(data []byte, i int) (string, int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return string(data[i+1 : j]), j + 1, true
		}
	}
	return "", 0, false
}

// skipValue skips the JSON value at data[i]: a string, or anything up to
// the matching close of its brackets, or a scalar.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		_, next, ok := readString(data, i)
		return next, ok
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				_, next, ok := readString(data, i)
				if !ok {
					return 0, false
				}
				i = next - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, true
		}
	}
	return 0, false
}

// csvFromObject reads the CSV among a bundle's olm.bundle.object manifests
// (JSON): nil if data is another kind of object or not readable. It reads
// what csvFacts needs in one pass (readFast); encoding/json decides the
// rare documents that pass cannot answer for exactly as encoding/json
// would.
func csvFromObject(data []byte) *csvFacts {
	var doc csvDoc
	switch ok, valid := doc.readFast(data); {
	case !valid:
		return nil
	case !ok:
		doc = csvDoc{}
		if json.Unmarshal(data, &doc) != nil {
			return nil
		}
	}
	if doc.Kind != csvKind {
		return nil
	}
	c := &csvFacts{name: doc.Metadata.Name, labels: doc.Metadata.Labels}
	add := func(kind Kind, name, image string) {
		if image != "" {
			c.refs = append(c.refs, found{kind: kind, name: name, value: image})
		}
	}
	add(KindOperator, "containerImage", doc.Metadata.Annotations.ContainerImage)
	for _, ri := range doc.Spec.RelatedImages {
		add(KindRelated, ri.Name, ri.Image)
	}
	for _, d := range doc.Spec.Install.Spec.Deployments {
		for _, ctrs := range [][]csvContainer{d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers} {
			for _, ctr := range ctrs {
				add(KindOperator, ctr.Name, ctr.Image)
				for _, e := range ctr.Env {
					if strings.HasPrefix(e.Name, "RELATED_IMAGE_") {
						add(KindRelated, e.Name, e.Value)
					}
				}
			}
		}
	}
	return c
}

// csvDoc is what csvFacts needs of a CSV; the rest of it (descriptions,
// examples, schemas) is skipped, not built.
type csvDoc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations struct {
			ContainerImage string `json:"containerImage"`
		} `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		RelatedImages []csvPair `json:"relatedImages"`
		Install       struct {
			Spec struct {
				Deployments []csvDeployment `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
	} `json:"spec"`
}

type csvDeployment struct {
	Spec struct {
		Template struct {
			Spec struct {
				InitContainers []csvContainer `json:"initContainers"`
				Containers     []csvContainer `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

type csvContainer struct {
	Name  string   `json:"name"`
	Image string   `json:"image"`
	Env   []csvEnv `json:"env"`
}

// csvPair is a relatedImages entry.
type csvPair struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type csvEnv struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// readFast reads data into doc in one pass that builds nothing it does not
// keep (internal/manifestscan). valid is false when data is not JSON (for
// encoding/json neither). ok is false when encoding/json could read it
// otherwise, and so must: a key spelt in another case or repeated, a value
// of another type or null, a string holding invalid UTF-8 (which
// encoding/json repairs).
func (doc *csvDoc) readFast(data []byte) (ok, valid bool) {
	r := &fastCSV{}
	str := r.str
	m := &doc.Metadata
	spec := &doc.Spec
	top := r.object(map[string]func() manifestscan.Capture{
		"kind": str(&doc.Kind),
		"metadata": r.nested(map[string]func() manifestscan.Capture{
			"name":   str(&m.Name),
			"labels": r.stringMap(&m.Labels),
			"annotations": r.nested(map[string]func() manifestscan.Capture{
				"containerImage": str(&m.Annotations.ContainerImage),
			}),
		}),
		"spec": r.nested(map[string]func() manifestscan.Capture{
			"relatedImages": func() manifestscan.Capture {
				return fastSlice(r, &spec.RelatedImages, func(p *csvPair) manifestscan.Capture {
					return r.object(map[string]func() manifestscan.Capture{"name": str(&p.Name), "image": str(&p.Image)})
				})
			},
			"install": r.nested(map[string]func() manifestscan.Capture{
				"spec": r.nested(map[string]func() manifestscan.Capture{
					"deployments": func() manifestscan.Capture {
						return fastSlice(r, &spec.Install.Spec.Deployments, r.deployment)
					},
				}),
			}),
		}),
	})
	if manifestscan.Read(data, top) != nil {
		return false, false
	}
	r.finish()
	return !r.unsure, true
}

// fastCSV builds the captures of csvDoc.readFast, noting what makes its
// reading unsure.
type fastCSV struct {
	unsure bool
	// strs are the strings read, whose UTF-8 is checked at the end.
	strs  []*string
	pairs []mapPair
}

// object captures an object's members by their exact keys. A key that
// only folds to one of them (encoding/json would take it), or one that
// comes twice, makes the reading unsure.
func (r *fastCSV) object(fields map[string]func() manifestscan.Capture) manifestscan.Capture {
	var seen map[string]bool
	return manifestscan.Capture{Mismatch: &r.unsure, Member: func(key string) manifestscan.Capture {
		f, ok := fields[key]
		if !ok {
			for k := range fields {
				if strings.EqualFold(k, key) {
					r.unsure = true
				}
			}
			return manifestscan.Capture{}
		}
		if seen[key] {
			r.unsure = true
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[key] = true
		return f()
	}}
}

// nested is object, made when its key is met.
func (r *fastCSV) nested(fields map[string]func() manifestscan.Capture) func() manifestscan.Capture {
	return func() manifestscan.Capture { return r.object(fields) }
}

// str captures a string into dst.
func (r *fastCSV) str(dst *string) func() manifestscan.Capture {
	return func() manifestscan.Capture {
		r.strs = append(r.strs, dst)
		return manifestscan.Capture{Str: dst, Mismatch: &r.unsure}
	}
}

// stringMap captures an object of strings into a new map (as
// encoding/json makes one, even for {}); the values are put in when the
// reading ends (finish), later duplicates over earlier ones.
func (r *fastCSV) stringMap(dst *map[string]string) func() manifestscan.Capture {
	return func() manifestscan.Capture {
		m := map[string]string{}
		*dst = m
		return manifestscan.Capture{Mismatch: &r.unsure, Member: func(key string) manifestscan.Capture {
			v := new(string)
			r.pairs = append(r.pairs, mapPair{m, key, v})
			r.strs = append(r.strs, v)
			return manifestscan.Capture{Str: v, Mismatch: &r.unsure}
		}}
	}
}

// mapPair is a member of a stringMap, put in by finish.
type mapPair struct {
	m   map[string]string
	key string
	v   *string
}

// finish puts the maps' values in and checks the strings read: invalid
// UTF-8 (in a value or a map's key) is repaired by encoding/json, and so
// makes the reading unsure.
func (r *fastCSV) finish() {
	for _, p := range r.pairs {
		p.m[p.key] = *p.v
		if !utf8.ValidString(p.key) {
			r.unsure = true
		}
	}
	for _, s := range r.strs {
		if !utf8.ValidString(*s) {
			r.unsure = true
		}
	}
}

func (r *fastCSV) deployment(d *csvDeployment) manifestscan.Capture {
	pod := &d.Spec.Template.Spec
	return r.object(map[string]func() manifestscan.Capture{
		"spec": r.nested(map[string]func() manifestscan.Capture{
			"template": r.nested(map[string]func() manifestscan.Capture{
				"spec": r.nested(map[string]func() manifestscan.Capture{
					"initContainers": func() manifestscan.Capture { return fastSlice(r, &pod.InitContainers, r.container) },
					"containers":     func() manifestscan.Capture { return fastSlice(r, &pod.Containers, r.container) },
				}),
			}),
		}),
	})
}

func (r *fastCSV) container(c *csvContainer) manifestscan.Capture {
	return r.object(map[string]func() manifestscan.Capture{
		"name":  r.str(&c.Name),
		"image": r.str(&c.Image),
		"env": func() manifestscan.Capture {
			return fastSlice(r, &c.Env, func(e *csvEnv) manifestscan.Capture {
				return r.object(map[string]func() manifestscan.Capture{"name": r.str(&e.Name), "value": r.str(&e.Value)})
			})
		},
	})
}

// fastSlice captures an array into a new slice (empty, not nil, for [] as
// encoding/json makes it), each element read by elem.
func fastSlice[T any](r *fastCSV, dst *[]T, elem func(*T) manifestscan.Capture) manifestscan.Capture {
	*dst = []T{}
	return manifestscan.Capture{Mismatch: &r.unsure, Elem: func(int) manifestscan.Capture {
		*dst = append(*dst, *new(T))
		return elem(&(*dst)[len(*dst)-1])
	}}
}
