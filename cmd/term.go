package cmd

import (
	"io"
	"os"
)

// isTerminal reports whether w is a character device (a terminal). A
// writer that wraps another (Run's standard output) is looked through.
func isTerminal(w io.Writer) bool {
	f, ok := rawWriter(w).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// useColor follows the NO_COLOR convention and never colours pipes or dumb
// terminals.
func useColor(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}
