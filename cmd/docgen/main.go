// Command docgen writes fbc's generated documentation: the command-line
// reference in docs/cli/, one Markdown page per command of the cobra command
// tree. `make docs` runs it; `make lint` runs it with -check, which fails when
// the pages on disk differ from what the command tree says.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/cmd"
	"github.com/fbc-project/fbc/declcfg"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("docgen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	check := flags.Bool("check", false, "report stale or missing pages instead of writing them (exit 1 if any)")
	root := flags.String("root", ".", "repository root (the pages go to ROOT/docs/cli)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "docgen: unexpected arguments %q\n", flags.Args())
		return 2
	}
	dir := filepath.Join(*root, "docs", "cli")
	pages := CLIPages(cmd.NewRootCmd())
	stale, extra, err := compare(dir, pages)
	if err != nil {
		fmt.Fprintf(stderr, "docgen: %v\n", err)
		return 2
	}
	if *check {
		for _, name := range stale {
			fmt.Fprintf(stderr, "docgen: %s is out of date\n", filepath.Join(dir, name))
		}
		for _, name := range extra {
			fmt.Fprintf(stderr, "docgen: %s documents no command\n", filepath.Join(dir, name))
		}
		if len(stale)+len(extra) > 0 {
			fmt.Fprintln(stderr, "docgen: run `make docs` and commit the result")
			return 1
		}
		return 0
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "docgen: %v\n", err)
		return 2
	}
	for _, name := range stale {
		if err := declcfg.WriteFileAtomic(filepath.Join(dir, name), pages[name], 0o644); err != nil {
			fmt.Fprintf(stderr, "docgen: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, name))
	}
	for _, name := range extra {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			fmt.Fprintf(stderr, "docgen: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "removed %s\n", filepath.Join(dir, name))
	}
	return 0
}

// compare returns the pages whose file is missing or differs (stale) and the
// generated-looking files in dir that no page produces (extra), both sorted.
func compare(dir string, pages map[string][]byte) (stale, extra []string, err error) {
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if !bytes.Equal(got, want) || err != nil {
			stale = append(stale, name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if _, ok := pages[name]; !ok && !e.IsDir() && strings.HasPrefix(name, "fbc") && strings.HasSuffix(name, ".md") {
			extra = append(extra, name)
		}
	}
	slices.Sort(stale)
	slices.Sort(extra)
	return stale, extra, nil
}
