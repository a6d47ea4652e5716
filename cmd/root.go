// Package cmd is the fbc command line: one file per command. Commands parse
// flags into options, call one library function and format its result;
// report, under Main, maps the kinds of errors (internal/fault) to exit
// codes and prints each error once.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/ctxio"
	"github.com/fbc-project/fbc/internal/fault"
)

// Exit codes, documented in `fbc help exit-codes`.
const (
	ExitOK       = 0 // success, nothing to report
	ExitFindings = 1 // the command ran and found problems (invalid catalog, unsafe change, failed resolution)
	ExitTrouble  = 2 // the command could not run: bad usage, unreadable input, network failure
)

// errReported ends a command that has printed its findings itself: Main
// prints nothing more.
var errReported = errors.New("findings reported")

// errFindings is the error of a command whose findings are printed (exit 1).
var errFindings = fault.Wrap(fault.Input, errReported)

// nothingThere reports input that holds nothing to work on: a wrong path,
// an ignored tree, an empty pipe, a selection that keeps nothing. It must
// not pass as an empty success, so it is trouble with the run (a Run error,
// exit 2) whatever err's own kind; err says what was empty.
func nothingThere(err error) error { return fault.Wrap(fault.Run, err) }

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

// usageErrorf reports a command-line mistake (exit 2, with a hint to --help).
func usageErrorf(format string, args ...any) error {
	return fault.Errorf(fault.Usage, format, args...)
}

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
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFlagRules(cmd); err != nil {
				return err
			}
			startProgress(cmd)
			return nil
		},
	}
	root.PersistentFlags().BoolP("quiet", "q", false, "show no progress on the terminal")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return fault.Wrap(fault.Usage, err) })
	// fbc's commands (help lists them by name).
	for _, newCmd := range []func() *cobra.Command{
		newRenderCmd, newValidateCmd, newCatalogsCmd, newReleaseCmd, newBuildCmd, newTemplateCmd,
		newGenerateCmd, newInitCmd, newComposeCmd, newUpgradePathCmd, newResolveCmd, newGraphCmd,
		newDiffCmd, newServeCmd, newImagesCmd, newListCmd, newMirrorCmd, newVersionCmd,
	} {
		root.AddCommand(newCmd())
	}
	root.AddCommand(newExitCodesTopic())
	return root
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := suggestCommand(cmd, args[0]); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return usageErrorf("%s", msg)
	}
	return nil
}

// suggestCommand is the subcommand of cmd that word most likely means: the
// nearest name or alias (declcfg.Suggest, which every "did you mean" of
// fbc uses), else the one name it begins. Cobra suggests only for commands
// that leave their arguments unchecked, and fbc checks them all (noArgs).
func suggestCommand(cmd *cobra.Command, word string) string {
	byName := map[string]string{}
	var names, prefixed []string
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			byName[n] = c.Name()
			names = append(names, n)
		}
		if strings.HasPrefix(strings.ToLower(c.Name()), strings.ToLower(word)) {
			prefixed = append(prefixed, c.Name())
		}
	}
	if s := declcfg.Suggest(word, names); s != "" {
		return byName[s]
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// exactArgs, minArgs and rangeArgs are cobra's validators returning usage
// errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return fault.Wrap(fault.Usage, err)
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return fault.Wrap(fault.Usage, err)
		}
		return nil
	}
}

func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return fault.Wrap(fault.Usage, err)
		}
		return nil
	}
}

// Main runs fbc with the process's arguments and streams and returns the exit
// code.
func Main() int {
	if filepath.Base(os.Args[0]) == HealthProbeName {
		return HealthProbe(os.Args[1:], os.Stdout, os.Stderr)
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }()
	return awaitRun(done, signals, cancel, os.Stderr)
}

// interruptGrace is how long a command may take to stop once interrupted,
// in nanoseconds. Commands stop at once: they check their context between
// pieces of work and their output stops with it. A command blocked where
// no context reaches (a write to a pipe nobody reads, a file system that
// hangs) is ended after the grace; a server that drains its calls on
// SIGTERM lengthens it.
var interruptGrace atomic.Int64

func init() { interruptGrace.Store(int64(time.Second)) }

// awaitRun waits for the command that reports on done. The first SIGINT or
// SIGTERM cancels its context (cancel); when it has not returned within
// the grace, or at a second signal, the writes still under way are
// abandoned (atomicfile.Abandon: their temporary files and trees removed,
// every target left as it was) and fbc exits as interrupted.
func awaitRun(done <-chan int, signals <-chan os.Signal, cancel func(), stderr io.Writer) int {
	select {
	case code := <-done:
		return code
	case <-signals:
		cancel()
	}
	grace := time.NewTimer(time.Duration(interruptGrace.Load()))
	defer grace.Stop()
	select {
	case code := <-done:
		return code
	case <-grace.C:
	case <-signals:
	}
	atomicfile.Abandon()
	fmt.Fprintln(stderr, "fbc: interrupted")
	return ExitTrouble
}

// Run executes one fbc invocation. Standard output stops when ctx ends: a
// command interrupted while it streams its output writes no more of it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(ctxio.Writer(ctx, &besideProgress{w: stdout, ends: isTerminal(stdout)}))
	root.SetErr(&besideProgress{w: stderr})
	cmd, err := root.ExecuteContextC(ctx)
	endProgress(cmd)
	if err == nil {
		return ExitOK
	}
	return report(ctx, cmd, err, stderr)
}

// report prints a command's error once and decides the exit code: this is
// the one place where fbc's exit codes are chosen, from the kind of the
// error (internal/fault). Input is a finding about the input (1); Usage
// (with a hint to --help, unless the message names its remedy) and Run are
// trouble with the run (2). A command
// that fails once interrupted was stopped by the interrupt, whatever its
// error says.
func report(ctx context.Context, cmd *cobra.Command, err error, stderr io.Writer) int {
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "fbc: interrupted")
		return ExitTrouble
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "fbc: %v\n", err)
	}
	switch fault.KindOf(err) {
	case fault.Input:
		return ExitFindings
	case fault.Usage:
		if errors.As(err, new(remedied)) {
			break
		}
		path := "fbc"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
	}
	return ExitTrouble
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
     files, an unreachable registry), or it was interrupted (SIGINT or
     SIGTERM: it stops within about a second, says "fbc: interrupted", and
     leaves the files it was writing as they were)

Scripts can rely on 1 meaning "fix the catalog" and 2 meaning "fix the run".`,
	}
}
