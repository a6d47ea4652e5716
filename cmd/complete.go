package cmd

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
)

// Shell completion of package, channel and bundle names read from the
// catalog the command line names, so that a maintainer can tab through a
// real catalog: `fbc upgrade-path catalog/ -p <TAB>`.

// catalogArgs picks, from a command's positional arguments, the catalogs
// its name flags refer to.
type catalogArgs func(args []string) []string

// firstArg: the catalog is the first argument (upgrade-path, graph, list).
func firstArg(args []string) []string { return args[:min(len(args), 1)] }

// afterFirstArg: the catalogs follow an output argument (compose).
func afterFirstArg(args []string) []string { return args[min(len(args), 1):] }

// completeNames registers the completion of each named flag with the
// names that list finds in the catalogs.
func completeNames(cmd *cobra.Command, paths catalogArgs, list func(cmd *cobra.Command, cfg *declcfg.DeclarativeConfig) []string, flags ...string) {
	fn := func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		cfg := completionCatalog(cmd, paths(args))
		if cfg == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, n := range list(cmd, cfg) {
			if n != "" && strings.HasPrefix(n, toComplete) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, f := range flags {
		_ = cmd.RegisterFlagCompletionFunc(f, fn)
	}
}

// completionCatalog loads the local catalogs named (not standard input,
// which completion must not read, nor images, which it must not pull);
// what fails to load is left out. nil when there is nothing to read.
func completionCatalog(cmd *cobra.Command, paths []string) *declcfg.DeclarativeConfig {
	var local []string
	for _, p := range paths {
		if _, err := os.Stat(p); p != "-" && err == nil {
			local = append(local, p)
		}
	}
	if len(local) == 0 {
		return nil
	}
	cfg, _ := declcfg.Load(cmd.Context(), local, declcfg.LoadOptions{Stdin: strings.NewReader("")})
	return cfg
}

// flagValues reads a string or string-array flag as a list ("" for none).
func flagValues(cmd *cobra.Command, name string) []string {
	f := cmd.Flags().Lookup(name)
	if f == nil || !f.Changed {
		return nil
	}
	if sv, ok := f.Value.(interface{ GetSlice() []string }); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
}

// packageNames lists the catalog's packages.
func packageNames(_ *cobra.Command, cfg *declcfg.DeclarativeConfig) []string {
	return cfg.PackageNames()
}

// channelNames lists the channels of the packages given with --package,
// or of every package.
func channelNames(cmd *cobra.Command, cfg *declcfg.DeclarativeConfig) []string {
	pkgs := flagValues(cmd, "package")
	var out []string
	for _, ch := range cfg.Channels {
		if len(pkgs) == 0 || slices.Contains(pkgs, ch.Package) {
			out = append(out, ch.Name)
		}
	}
	return out
}

// bundleNames lists the bundles of the packages given with --package (or
// of every package) and, when --channel is given, only those that are
// entries of those channels.
func bundleNames(cmd *cobra.Command, cfg *declcfg.DeclarativeConfig) []string {
	pkgs, chans := flagValues(cmd, "package"), flagValues(cmd, "channel")
	var out []string
	if len(chans) > 0 {
		for _, ch := range cfg.Channels {
			if slices.Contains(chans, ch.Name) && (len(pkgs) == 0 || slices.Contains(pkgs, ch.Package)) {
				for _, e := range ch.Entries {
					out = append(out, e.Name)
				}
			}
		}
		return out
	}
	for _, b := range cfg.Bundles {
		if len(pkgs) == 0 || slices.Contains(pkgs, b.Package) {
			out = append(out, b.Name)
		}
	}
	return out
}
