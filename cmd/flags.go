package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// enum is a string flag restricted to a fixed set of values; a wrong value is
// a usage error and shell completion offers the allowed ones.
type enum struct {
	value   string
	allowed []string
}

func newEnum(def string, allowed ...string) *enum { return &enum{value: def, allowed: allowed} }

func (e *enum) String() string { return e.value }
func (e *enum) Type() string   { return "string" }
func (e *enum) Set(v string) error {
	if !slices.Contains(e.allowed, v) {
		return fmt.Errorf("must be one of %s", strings.Join(e.allowed, "|"))
	}
	e.value = v
	return nil
}

func (e *enum) register(cmd *cobra.Command, name, short, usage string) {
	cmd.Flags().VarP(e, name, short, fmt.Sprintf("%s (%s)", usage, strings.Join(e.allowed, "|")))
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return e.allowed, cobra.ShellCompDirectiveNoFileComp
	})
}
