package profile

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"

	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/validate/profiles"
)

// Main is the fbc-profile executable (cmd/fbc-profile): it answers one
// exchange of validate/profiles' protocol on standard input and output,
// for fbc validate --profile, and returns the exit status. With
// --version it prints its build identity, which must be fbc's.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "version"):
		fmt.Fprintf(stdout, "%s %s\n", profiles.Executable, buildinfo.Read().Identity())
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "%s: takes no arguments (%q): fbc validate --profile runs it; `%s --version` prints its version\n", profiles.Executable, args[0], profiles.Executable)
		return 2
	}
	if f, ok := stdin.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintf(stderr, "%s runs the bundle-content profiles for fbc validate --profile, which talks to it over standard input and output; run fbc validate --profile NAME PATH instead\n", profiles.Executable)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f, ok := stdin.(*os.File); ok {
		stdin = pollable(f)
	}
	if f, ok := stdout.(*os.File); ok {
		stdout = pollable(f)
	}
	if err := profiles.Serve(ctx, stdin, stdout, gcPhases(NewChecker)); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", profiles.Executable, err)
		return 2
	}
	return 0
}

// bundleGCPercent is the garbage collector's target while bundles are
// checked. Each bundle's checks allocate several times its manifests and
// keep little of it, and fbc-profile's heap is small (the catalog is in
// fbc): at the default of 100 the collector ran about twice as often as
// it did when the checks ran inside fbc, whose larger heap paced it.
const bundleGCPercent = 200

// gcPhases runs the bundle checks at bundleGCPercent and the catalog's at
// the collector's previous target: the CRD upgrade comparisons hold large
// decoded schemas, and there memory matters more. A target other than the
// default (GOGC set by the user) is left alone.
func gcPhases(newChecker profiles.NewChecker) profiles.NewChecker {
	return func(set profiles.Set, sourcesOnly bool, warn fault.Warn) profiles.Checker {
		prev := debug.SetGCPercent(bundleGCPercent)
		if prev != 100 {
			debug.SetGCPercent(prev)
		}
		return gcPhased{newChecker(set, sourcesOnly, warn), prev}
	}
}

type gcPhased struct {
	profiles.Checker
	prev int
}

func (g gcPhased) CheckCatalog(cat *model.Catalog) []declcfg.Finding {
	debug.SetGCPercent(g.prev)
	return g.Checker.CheckCatalog(cat)
}
