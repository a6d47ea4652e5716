// Command docgen writes fbc's generated documentation: the command-line
// reference in docs/cli/, one Markdown page per command of the cobra command
// tree, and the rule reference in docs/validate.md, from validate.Rules().
// `make docs` runs it; `make lint` runs it with -check, which fails when the
// files on disk differ from what the code says.
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
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/validate"
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
	files, err := generate(*root)
	if err != nil {
		fmt.Fprintf(stderr, "docgen: %v\n", err)
		return 2
	}
	stale, extra, err := compare(*root, files)
	if err != nil {
		fmt.Fprintf(stderr, "docgen: %v\n", err)
		return 2
	}
	if *check {
		for _, name := range stale {
			fmt.Fprintf(stderr, "docgen: %s is out of date\n", filepath.Join(*root, name))
		}
		for _, name := range extra {
			fmt.Fprintf(stderr, "docgen: %s documents no command\n", filepath.Join(*root, name))
		}
		if len(stale)+len(extra) > 0 {
			fmt.Fprintln(stderr, "docgen: run `make docs` and commit the result")
			return 1
		}
		return 0
	}
	for _, name := range stale {
		path := filepath.Join(*root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintf(stderr, "docgen: %v\n", err)
			return 2
		}
		if err := atomicfile.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintf(stderr, "docgen: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	for _, name := range extra {
		path := filepath.Join(*root, name)
		if err := os.Remove(path); err != nil {
			fmt.Fprintf(stderr, "docgen: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "removed %s\n", path)
	}
	return 0
}

// cliDir holds the command pages, relative to the repository root.
var cliDir = filepath.Join("docs", "cli")

// validateDoc is the guide whose rule reference is generated.
var validateDoc = filepath.Join("docs", "validate.md")

// generate returns every generated file by its path relative to root.
// docs/validate.md is read from root and gets its rule block replaced.
func generate(root string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, page := range CLIPages(cmd.NewRootCmd()) {
		files[filepath.Join(cliDir, name)] = page
	}
	doc, err := os.ReadFile(filepath.Join(root, validateDoc))
	if err != nil {
		return nil, err
	}
	updated, err := replaceBlock(string(doc), RulesSection(validate.Rules()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, validateDoc), err)
	}
	files[validateDoc] = []byte(updated)
	return files, nil
}

// compare returns the files that are missing or differ (stale) and the
// pages in docs/cli that no command produces (extra), both sorted and
// relative to root.
func compare(root string, files map[string][]byte) (stale, extra []string, err error) {
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if !bytes.Equal(got, want) || err != nil {
			stale = append(stale, name)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, cliDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	for _, e := range entries {
		name := filepath.Join(cliDir, e.Name())
		if _, ok := files[name]; !ok && !e.IsDir() && strings.HasPrefix(e.Name(), "fbc") && strings.HasSuffix(e.Name(), ".md") {
			extra = append(extra, name)
		}
	}
	slices.Sort(stale)
	slices.Sort(extra)
	return stale, extra, nil
}
