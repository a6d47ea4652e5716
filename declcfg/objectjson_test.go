package declcfg

import "testing"

// TestObjectJSON: JSON (by Kubernetes' sniffing rule, which counts every
// Unicode space) passes as it is; YAML is converted as sigs.k8s.io/yaml
// converts it.
func TestObjectJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		json, err      bool
	}{
		{name: "json", in: `{"kind": "A", "b": 1}`, want: `{"kind": "A", "b": 1}`, json: true},
		{name: "json after spaces", in: " \t\r\n{\"a\":1}", want: " \t\r\n{\"a\":1}", json: true},
		{name: "json after a form feed", in: "\f{\"a\":1}", want: "\f{\"a\":1}", json: true},
		{name: "json after a no-break space", in: "\u00a0{\"a\":1}", want: "\u00a0{\"a\":1}", json: true},
		{name: "invalid json is not checked", in: "{a", want: "{a", json: true},
		{name: "yaml", in: "kind: A\nb: 1\n", want: `{"b":1,"kind":"A"}`},
		{name: "yaml 1.1 booleans", in: "a: yes\nb: off\n", want: `{"a":true,"b":false}`},
		{name: "yaml flow mapping after a marker", in: "---\n{\"b\": 1, \"a\": 2}\n", want: `{"a":2,"b":1}`},
		{name: "yaml list", in: "- 1\n", want: `[1]`},
		{name: "empty", in: "", want: "null"},
		{name: "byte order mark is not space", in: "\ufeff{\"a\":1}", want: `{"a":1}`},
		{name: "broken yaml", in: "a: [1\n", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LooksJSON([]byte(tc.in)); got != tc.json {
				t.Errorf("LooksJSON(%q) = %v, want %v", tc.in, got, tc.json)
			}
			got, err := ObjectJSON([]byte(tc.in))
			if tc.err {
				if err == nil {
					t.Fatalf("ObjectJSON(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("ObjectJSON(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
