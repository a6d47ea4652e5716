package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fbc-project/fbc/internal/atomicfile"
)

// forceHint points an output that is in the way to --force. The message
// then says what to do, so report adds no pointer to --help.
func forceHint(err error, verb string) error {
	var exists *atomicfile.ExistsError
	if errors.As(err, &exists) {
		return remedied{fmt.Errorf("%w (use --force to %s it)", err, verb)}
	}
	return err
}

// remedied is a usage error whose message names the flag that gets past
// it: the generic "Run 'fbc CMD --help' for usage" would only distract.
type remedied struct{ error }

func (e remedied) Unwrap() error { return e.error }

// opmNames makes opm's names for flags that do the same job as fbc's work
// as hidden aliases (alias -> fbc's name): pflag reads --package-name=etcd
// as --package=etcd, and help, completion and the CLI reference show only
// fbc's name. docs/opm.md lists every alias.
func opmNames(f *pflag.FlagSet, aliases map[string]string) {
	prev := f.GetNormalizeFunc()
	f.SetNormalizeFunc(func(fs *pflag.FlagSet, name string) pflag.NormalizedName {
		if to, ok := aliases[name]; ok {
			name = to
		}
		return prev(fs, name)
	})
}

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

// Flag rules that cobra would check with messages of its own ("if any flags
// in the group [...]"): they are kept in the command's annotations and
// checked before it runs, so the error names the flags in our words. The
// cobra marks stay, for shell completion.
const (
	annotationExclusive = "fbc/exclusive-flags"
	annotationRequired  = "fbc/required-flags"
)

// exclusiveFlags declares flags that cannot be given together.
func exclusiveFlags(cmd *cobra.Command, names ...string) {
	cmd.MarkFlagsMutuallyExclusive(names...)
	annotate(cmd, annotationExclusive, strings.Join(names, ","))
}

// requiredFlag declares a flag the command cannot run without.
func requiredFlag(cmd *cobra.Command, name string) {
	_ = cmd.MarkFlagRequired(name)
	annotate(cmd, annotationRequired, name)
}

func annotate(cmd *cobra.Command, key, value string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	if old := cmd.Annotations[key]; old != "" {
		value = old + ";" + value
	}
	cmd.Annotations[key] = value
}

// checkFlagRules is a usage error naming the first required flag missing,
// or the first two flags given together that conflict.
func checkFlagRules(cmd *cobra.Command) error {
	for _, name := range splitAnnotation(cmd, annotationRequired) {
		if !cmd.Flags().Changed(name) {
			return usageErrorf("--%s is required", name)
		}
	}
	for _, group := range splitAnnotation(cmd, annotationExclusive) {
		var set []string
		for _, name := range strings.Split(group, ",") {
			if cmd.Flags().Changed(name) {
				set = append(set, "--"+name)
			}
		}
		if len(set) > 1 {
			return usageErrorf("%s and %s cannot be used together: give one of them", set[0], set[1])
		}
	}
	return nil
}

func splitAnnotation(cmd *cobra.Command, key string) []string {
	if v := cmd.Annotations[key]; v != "" {
		return strings.Split(v, ";")
	}
	return nil
}
