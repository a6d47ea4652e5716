package images

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
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

// csvFromBase64 is csvFromObject of an olm.bundle.object's base64 data.
// Most of a catalog's bytes are CRDs: the start of each object is decoded
// first, and when its top-level kind is there and is not a CSV, the rest is
// not decoded at all.
func csvFromBase64(data string) *csvFacts {
	const prefix = 4096 // base64 characters: 3 KB of JSON
	if len(data) > prefix {
		head := make([]byte, base64.StdEncoding.DecodedLen(prefix))
		n, err := base64.StdEncoding.Decode(head, []byte(data[:prefix]))
		if err != nil {
			return nil
		}
		if kind, ok := topLevelKind(head[:n]); ok && kind != csvKind {
			return nil
		}
	}
	obj, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil
	}
	return csvFromObject(obj)
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
// (JSON): nil if data is another kind of object or not readable. It is
// decoded into what csvFacts needs, the rest of it (descriptions, examples,
// schemas) skipped, not built.
func csvFromObject(data []byte) *csvFacts {
	type container struct {
		Name  string `json:"name"`
		Image string `json:"image"`
		Env   []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"env"`
	}
	var csv struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name        string            `json:"name"`
			Labels      map[string]string `json:"labels"`
			Annotations struct {
				ContainerImage string `json:"containerImage"`
			} `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			RelatedImages []struct {
				Name  string `json:"name"`
				Image string `json:"image"`
			} `json:"relatedImages"`
			Install struct {
				Spec struct {
					Deployments []struct {
						Spec struct {
							Template struct {
								Spec struct {
									InitContainers []container `json:"initContainers"`
									Containers     []container `json:"containers"`
								} `json:"spec"`
							} `json:"template"`
						} `json:"spec"`
					} `json:"deployments"`
				} `json:"spec"`
			} `json:"install"`
		} `json:"spec"`
	}
	if json.Unmarshal(data, &csv) != nil || csv.Kind != csvKind {
		return nil
	}
	c := &csvFacts{name: csv.Metadata.Name, labels: csv.Metadata.Labels}
	add := func(kind Kind, name, image string) {
		if image != "" {
			c.refs = append(c.refs, found{kind: kind, name: name, value: image})
		}
	}
	add(KindOperator, "containerImage", csv.Metadata.Annotations.ContainerImage)
	for _, ri := range csv.Spec.RelatedImages {
		add(KindRelated, ri.Name, ri.Image)
	}
	for _, d := range csv.Spec.Install.Spec.Deployments {
		for _, ctrs := range [][]container{d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers} {
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
