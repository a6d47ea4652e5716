package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// sampleTree has what pages must render: nested commands, aliases,
// examples, a long text with an indented block and markup characters,
// local, persistent and hidden flags, and commands that must be left out.
func sampleTree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A sample tool", Long: "Tool does <things>.\n", Run: func(*cobra.Command, []string) {}}
	root.PersistentFlags().BoolP("quiet", "q", false, "say less")
	sub := &cobra.Command{
		Use:     "check PATH...",
		Aliases: []string{"c"},
		Short:   "Check things | quickly",
		Long:    "Check reads PATH.\n\nExit status:\n  0  fine\n  1  not fine\n\nThat is all.",
		Example: "  tool check .\n",
		Run:     func(*cobra.Command, []string) {},
	}
	sub.Flags().StringP("output", "o", "text", "output `FORMAT` (text|json)")
	sub.Flags().StringArray("include", nil, "also read `DIR`")
	sub.Flags().Int("jobs", 4, "parallel jobs")
	sub.Flags().String("secret", "", "hidden")
	_ = sub.Flags().MarkHidden("secret")
	group := &cobra.Command{Use: "group", Short: "Commands in a group"}
	group.AddCommand(&cobra.Command{Use: "leaf", Short: "A leaf", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(sub, group,
		&cobra.Command{Use: "secret", Hidden: true, Run: func(*cobra.Command, []string) {}},
		&cobra.Command{Use: "old", Deprecated: "use check", Run: func(*cobra.Command, []string) {}})
	return root
}

func TestCLIPagesGolden(t *testing.T) {
	pages := CLIPages(sampleTree())
	var names []string
	for name := range pages {
		names = append(names, name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{
		"tool.md", "tool_check.md", "tool_completion.md", "tool_completion_bash.md", "tool_completion_fish.md",
		"tool_completion_powershell.md", "tool_completion_zsh.md", "tool_group.md", "tool_group_leaf.md",
	}, names)
	for _, name := range []string{"tool.md", "tool_check.md", "tool_group.md"} {
		path := filepath.Join("testdata", name)
		if *update {
			require.NoError(t, os.WriteFile(path, pages[name], 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(pages[name]), "%s differs (go test ./cmd/docgen -update rewrites it)", path)
	}
	// Deterministic: a second tree renders the same bytes.
	again := CLIPages(sampleTree())
	for name := range pages {
		assert.Equal(t, pages[name], again[name], name)
	}
}

// run writes the pages, -check then passes; an edited, a missing and an
// extra page each make -check fail and name the file; a second run repairs
// everything.
func TestRunCheckAndWrite(t *testing.T) {
	root := t.TempDir()
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "validate.md"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "validate.md"), guide, 0o644))
	var out, errb bytes.Buffer
	check := func() (int, string) {
		errb.Reset()
		return run([]string{"-check", "-root", root}, &out, &errb), errb.String()
	}
	code, msg := check()
	assert.Equal(t, 1, code)
	assert.Contains(t, msg, filepath.Join(root, "docs", "cli", "fbc_validate.md")+" is out of date")

	require.Equal(t, 0, run([]string{"-root", root}, &out, &errb), errb.String())
	code, msg = check()
	assert.Equal(t, 0, code, msg)

	dir := filepath.Join(root, "docs", "cli")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fbc_version.md"), []byte("edited\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "fbc.md")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fbc_gone.md"), []byte("old\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("kept\n"), 0o644))
	code, msg = check()
	assert.Equal(t, 1, code)
	for _, want := range []string{"fbc_version.md is out of date", "fbc.md is out of date", "fbc_gone.md documents no command"} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "notes.txt")

	require.Equal(t, 0, run([]string{"-root", root}, &out, &errb), errb.String())
	code, msg = check()
	assert.Equal(t, 0, code, msg)
	_, err = os.Stat(filepath.Join(dir, "fbc_gone.md"))
	assert.True(t, os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(dir, "notes.txt"))
	assert.NoError(t, err)

	assert.Equal(t, 2, run([]string{"-nosuch"}, &out, &errb))
	assert.Equal(t, 2, run([]string{"extra"}, &out, &errb))
	assert.True(t, strings.Contains(errb.String(), "unexpected arguments"))
}

// docs/validate.md lists exactly the rules validate.Rules() has, as
// RulesSection renders them: a rule added without `make docs` fails here.
func TestValidateGuideListsEveryRule(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := generate(root)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(root, validateDoc))
	require.NoError(t, err)
	assert.Equal(t, string(files[validateDoc]), string(got), "docs/validate.md's rule reference is out of date: run make docs")
}

func TestRulesSection(t *testing.T) {
	rules := []validate.Rule{
		{ID: "syntax", Severity: declcfg.SeverityError, Summary: "A file is not valid JSON or YAML.", Help: "Fix the syntax."},
		{ID: "unknown-field", Severity: declcfg.SeverityWarning, Summary: "A field | not in the <schema>."},
	}
	doc := "# Guide\n\n" + rulesBegin + "old\n" + rulesEnd + "after\n"
	got, err := replaceBlock(doc, RulesSection(rules))
	require.NoError(t, err)
	path := filepath.Join("testdata", "rules.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
	again, err := replaceBlock(got, RulesSection(rules))
	require.NoError(t, err)
	assert.Equal(t, got, again, "regenerating must be a no-op")

	_, err = replaceBlock("# no markers\n", RulesSection(rules))
	assert.ErrorContains(t, err, "rules:begin")
}
