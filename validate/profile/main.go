package profile

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fbc-project/fbc/internal/buildinfo"
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
	if err := profiles.Serve(ctx, stdin, stdout, NewChecker); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", profiles.Executable, err)
		return 2
	}
	return 0
}
