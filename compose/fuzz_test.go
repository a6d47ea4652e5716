package compose

import "testing"

// FuzzParseConfig parses arbitrary catalog configs: errors, never panics,
// and an accepted config has a name and references with names and images.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"name: c\nrepo: quay.io/a/c\ntag: v1\nreferences:\n- {name: a, image: quay.io/a/a:1}\n- name: b\n  image: ./b\n",
		"{\"name\": \"c\", \"references\": [{\"name\": \"a\", \"image\": \"x\"}]}",
		"name: &n c\nreferences:\n- &r {name: a, image: x}\n- *r\n",
		"name: c\nname: d\n",
		"name: c\nrepo: a/b:c\nreferences: []\n",
		"- a\n",
		"",
		"name: c\nreferences: [{name: a, image: x}]\n---\nname: d\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseConfig("c.yaml", []byte(src))
		if err != nil {
			return
		}
		if c.Name == "" || len(c.References) == 0 {
			t.Fatalf("accepted a config without name or references: %+v", c)
		}
		for _, r := range c.References {
			if r.Name == "" || r.Image == "" {
				t.Fatalf("accepted a reference without name or image: %+v", r)
			}
		}
	})
}
