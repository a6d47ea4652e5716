package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/compose"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
)

// TestReport holds the one mapping from error kinds to exit codes, for the
// errors libraries return as they are.
func TestReport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"no kind", errors.New("disk full"), ExitTrouble, "fbc: disk full\n"},
		{"usage", usageErrorf("--latest must be at least 1"), ExitTrouble, "fbc: --latest must be at least 1\nRun 'fbc --help' for usage.\n"},
		{"findings already printed", errFindings, ExitFindings, ""},
		{"catalog content", declcfg.LoadErrors{{Pos: declcfg.Pos{File: "a.yaml", Line: 2}, Msg: "bad"}}, ExitFindings, "fbc: a.yaml:2: bad\n"},
		{"unreadable catalog file", declcfg.LoadErrors{{Msg: "permission denied", IO: true}}, ExitTrouble, "fbc: permission denied\n"},
		{"selection", &compose.SelectionError{Msg: `package "x" is not in the sources`}, ExitTrouble, "fbc: package \"x\" is not in the sources\nRun 'fbc --help' for usage.\n"},
		{"conflict", &compose.ConflictError{Conflicts: []compose.Conflict{{Package: "p", Sites: []compose.Site{{Source: "a"}, {Source: "b"}}}}}, ExitFindings, "fbc: package \"p\" is defined differently by both a and b\n"},
		{"output in the way", fmt.Errorf("out: %w", atomicfile.ErrDirNotEmpty), ExitTrouble, "fbc: out: directory is not empty\nRun 'fbc --help' for usage.\n"},
		{"bundle content", render.Errors{{Source: "b", Err: errors.New("no CSV"), Invalid: true}}, ExitFindings, "fbc: b: no CSV\n"},
		{"bundle content and a registry", render.Errors{{Source: "b", Err: errors.New("no CSV"), Invalid: true}, {Source: "r", Err: errors.New("down")}}, ExitTrouble, "fbc: b: no CSV\nr: down\n"},
		{"re-classified by a wrapper", fault.Wrap(fault.Run, fmt.Errorf("x: %w", fault.Errorf(fault.Input, "y"))), ExitTrouble, "fbc: x: y\n"},
	} {
		var stderr strings.Builder
		code := report(context.Background(), nil, tc.err, &stderr)
		if code != tc.code || stderr.String() != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tc.name, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}

// An interrupted run says so once, whatever the error it ended with.
func TestReportInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr strings.Builder
	err := render.Errors{{Source: "r", Err: fmt.Errorf("pulling r: %w", context.Canceled)}}
	if code := report(ctx, nil, err, &stderr); code != ExitTrouble || stderr.String() != "fbc: interrupted\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
