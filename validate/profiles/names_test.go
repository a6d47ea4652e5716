package profiles

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
		err  string
	}{
		{in: nil, want: ""},
		{in: []string{"olmv1"}, want: "olmv1"},
		{in: []string{"operatorhub,operatorframework", "k8s-version=1.25"}, want: "operatorframework,operatorhub,k8s-version=1.25"},
		{in: []string{" good-practices , "}, want: "good-practices"},
		{in: []string{"operatorhub,operatorhub"}, err: "given twice"},
		{in: []string{"operator-framework"}, err: `unknown profile "operator-framework"`},
		{in: []string{"k8s-version"}, err: "needs the target version"},
		{in: []string{"k8s-version=latest"}, err: "not a Kubernetes version"},
		{in: []string{"olmv1=yes"}, err: "takes no value"},
	} {
		s, err := Parse(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Parse(%q) = %v, want error %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", c.in, err)
		case c.err == "" && s.String() != c.want:
			t.Errorf("Parse(%q) = %q, want %q", c.in, s.String(), c.want)
		}
	}
}

func TestParseKubeVersion(t *testing.T) {
	for in, want := range map[string]string{"1.33": "1.33", "v1.25": "1.25", "1.25.3": "1.25", " 1.9 ": "1.9"} {
		got, err := ParseKubeVersion(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "1.x", "1.2.3.4", "01.2", "1.-2", "latest"} {
		if _, err := ParseKubeVersion(in); err == nil {
			t.Errorf("ParseKubeVersion(%q) accepted", in)
		}
	}
}
