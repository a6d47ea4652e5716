package validate

import "testing"

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestCheckRelease(t *testing.T) {
	for r, want := range map[string]string{
		"1":                     "",
		"2.alpha-1":             "",
		"01":                    "leading zeroes",
		"a..b":                  "segment 1",
		"123456789012345678901": "longer than 20",
		"a_b":                   "segment 0",
	} {
		err := checkRelease(r)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", r, err)
		case want != "" && (err == nil || !contains(err.Error(), want)):
			t.Errorf("%q: got %v, want %q", r, err, want)
		}
	}
}
