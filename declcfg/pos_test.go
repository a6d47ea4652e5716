package declcfg

import "testing"

func TestPosStringAndPrefix(t *testing.T) {
	for _, tc := range []struct {
		pos        Pos
		str, error string
	}{
		{Pos{}, "", "boom"},
		{Pos{File: "-"}, "-", "-: boom"},
		{Pos{File: "a.yaml", Col: 3}, "a.yaml", "a.yaml: boom"},
		{Pos{File: "a.yaml", Line: 2}, "a.yaml:2", "a.yaml:2: boom"},
		{Pos{File: "a.yaml", Line: 2, Col: 3}, "a.yaml:2:3", "a.yaml:2:3: boom"},
		{Pos{Line: 2, Col: 3}, "", "boom"},
	} {
		if got := tc.pos.String(); got != tc.str {
			t.Errorf("%#v.String() = %q, want %q", tc.pos, got, tc.str)
		}
		if got := tc.pos.Prefix("boom"); got != tc.error {
			t.Errorf("%#v.Prefix = %q, want %q", tc.pos, got, tc.error)
		}
	}
}
