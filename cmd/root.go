// Package cmd is the fbc command line: one file per command. Commands parse
// flags into options, call one library function and format its result; Main
// maps errors to exit codes and prints each error once.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/internal/fault"
)

// Exit codes, documented in `fbc help exit-codes`.
const (
	ExitOK       = 0 // success, nothing to report
	ExitFindings = 1 // the command ran and found problems (invalid catalog, unsafe change, failed resolution)
	ExitTrouble  = 2 // the command could not run: bad usage, unreadable input, network failure
)

// exitError carries an exit code. A nil err means the command already
// reported everything it had to say.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// errFindings ends a command that has already printed its findings.
var errFindings = &exitError{code: ExitFindings}

// findingsError reports a failure that is a finding about the input (exit 1).
func findingsError(err error) error { return &exitError{code: ExitFindings, err: err} }

// nothingThere reports input that holds nothing to work on: a wrong path,
// an ignored tree, an empty pipe, a selection that keeps nothing. It must
// not pass as an empty success, so it is trouble with the run (exit 2); err
// says what was empty.
func nothingThere(err error) error { return &exitError{code: ExitTrouble, err: err} }

// checkEmpty says what to check when paths hold nothing: the command
// feeding standard input, the path, and a directory's .indexignore files
// (which hide only what is found in a directory).
func checkEmpty(paths []string) string {
	var stdin, dir bool
	for _, p := range paths {
		if p == "-" {
			stdin = true
		} else if st, err := os.Stat(p); err == nil && st.IsDir() {
			dir = true
		}
	}
	checks := []string{"the path"}
	if stdin && len(paths) == 1 {
		checks = nil
	}
	if dir {
		checks = append(checks, "its .indexignore files")
	}
	if stdin {
		checks = append(checks, "the command feeding standard input")
	}
	if len(checks) > 1 {
		checks = []string{strings.Join(checks[:len(checks)-1], ", "), checks[len(checks)-1]}
	}
	return "check " + strings.Join(checks, " and ")
}

// usageError reports a command-line mistake (exit 2, with a hint to --help).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

func init() { cobra.EnableTraverseRunHooks = true }

// commands holds the constructors of every subcommand; each command's file
// registers itself so that adding a command touches one file.
var commands []func() *cobra.Command

func register(newCmd func() *cobra.Command) { commands = append(commands, newCmd) }

// NewRootCmd builds the fbc command tree.
func NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fbc",
		Short: "Author, validate and simulate OLM file-based catalogs",
		Long: `fbc works with Operator Lifecycle Manager file-based catalogs (FBC): it renders
bundles and images into catalog blobs, validates catalogs, simulates upgrades
under OLM classic and OLM v1 semantics, and composes and builds catalog images.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE:          func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		// Runs before every command (EnableTraverseRunHooks, set in init,
		// keeps it running when a command has hooks of its own).
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return checkFlagRules(cmd) },
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err: err} })
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	root.AddCommand(newExitCodesTopic())
	return root
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// exactArgs, minArgs and rangeArgs are cobra's validators returning usage
// errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &usageError{err: err}
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return &usageError{err: err}
		}
		return nil
	}
}

func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return &usageError{err: err}
		}
		return nil
	}
}

// Main runs fbc with the process's arguments and streams and returns the exit
// code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run executes one fbc invocation.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	return report(cmd, err, stderr)
}

func report(cmd *cobra.Command, err error, stderr io.Writer) int {
	var ue *usageError
	var ee *exitError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "fbc: %v\n", ue.err)
		path := "fbc"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
		return ExitTrouble
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "fbc: %v\n", ee.err)
		}
		return ee.code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "fbc: interrupted")
		return ExitTrouble
	case strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag"):
		fmt.Fprintf(stderr, "fbc: %v\n", err)
		return ExitTrouble
	default:
		fmt.Fprintf(stderr, "fbc: %v\n", err)
		return ExitTrouble
	}
}

// warnMu keeps warnings from several goroutines on lines of their own.
var warnMu sync.Mutex

// warner is the warning sink of every command: each warning is one line on
// w (standard error) with fbc's one prefix for warnings.
func warner(w io.Writer) fault.Warn {
	return func(msg string) {
		warnMu.Lock()
		defer warnMu.Unlock()
		fmt.Fprintf(w, "fbc: warning: %s\n", msg)
	}
}

func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "Exit codes of fbc commands",
		Long: `Every fbc command exits with one of:

  0  success: the command ran and found nothing wrong (warnings allowed)
  1  findings: the command ran and the input has problems (an invalid catalog,
     an unsafe catalog change, an upgrade that cannot be resolved)
  2  trouble: the command could not run (bad flags or arguments, unreadable
     files, an unreachable registry)

Scripts can rely on 1 meaning "fix the catalog" and 2 meaning "fix the run".`,
	}
}
