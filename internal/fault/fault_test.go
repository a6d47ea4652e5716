package fault

import (
	"errors"
	"fmt"
	"testing"
)

type list []error

func (l list) Error() string   { return "list" }
func (l list) Unwrap() []error { return l }
func (l list) FaultKind() Kind { return Input }

func TestKindOf(t *testing.T) {
	base := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want Kind
	}{
		{"no kind", base, Run},
		{"wrapped", Wrap(Input, base), Input},
		{"Errorf", Errorf(Usage, "bad %s", "flag"), Usage},
		{"inside fmt.Errorf", fmt.Errorf("reading: %w", Wrap(Input, base)), Input},
		{"outermost wins", Wrap(Usage, fmt.Errorf("x: %w", Wrap(Input, base))), Usage},
		{"own kind before its members", list{Wrap(Run, base)}, Input},
		{"nil", nil, Run},
	} {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("%s: KindOf = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Wrap(Input, nil) != nil {
		t.Error("Wrap(k, nil) must be nil")
	}
	if err := Wrap(Input, base); !errors.Is(err, base) || err.Error() != "boom" {
		t.Errorf("Wrap must keep the message and the chain: %v", err)
	}
}

func TestWarnPrintf(t *testing.T) {
	var got []string
	w := Warn(func(msg string) { got = append(got, msg) })
	w.Printf("%d files ignored", 2)
	Warn(nil).Printf("dropped")
	if len(got) != 1 || got[0] != "2 files ignored" {
		t.Errorf("got %q", got)
	}
}
