package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/model"
)

func newListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a catalog's packages, channels or bundles",
		Long: `list prints what a catalog holds, as opm alpha list does: its packages, the
channels of each with their heads, or every channel entry with its edges and
bundle image. SOURCE is a catalog directory, a file, - for standard input, or
a catalog image (registry, oci:, oci-archive:, docker-archive:), pulled as
fbc render pulls it. A bundle directory or bundle image is listed as the
one-bundle catalog 'fbc render SOURCE --with-channels' makes of it.

-o text (the default) prints opm's table; -o json prints one JSON object per
row, with the same fields, for scripts. Rows are sorted by package, channel
and bundle. Unlike opm, a catalog that breaks OLM's rules is listed too: a
channel without a single head says why in its HEAD column (headError in
JSON), and a package's display name also comes from olm.csv.metadata (opm
reads it only from olm.bundle.object manifests).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newListKindCmd("packages", "List packages: name, display name, default channel",
			"NAME\tDISPLAY NAME\tDEFAULT CHANNEL",
			func(cat *model.Catalog, pkg string) ([]any, error) {
				rows, err := cat.ListPackages(pkg)
				return rowsOf(rows, func(r model.PackageRow) []string { return []string{r.Name, r.DisplayName, r.DefaultChannel} }), err
			}),
		newListKindCmd("channels", "List channels and their heads",
			"PACKAGE\tCHANNEL\tHEAD",
			func(cat *model.Catalog, pkg string) ([]any, error) {
				rows, err := cat.ListChannels(pkg)
				return rowsOf(rows, func(r model.ChannelRow) []string {
					head := r.Head
					if r.HeadError != "" {
						head = "ERROR: " + r.HeadError
					}
					return []string{r.Package, r.Channel, head}
				}), err
			}),
		newListKindCmd("bundles", "List channel entries: bundle, edges and image",
			"PACKAGE\tCHANNEL\tBUNDLE\tREPLACES\tSKIPS\tSKIP RANGE\tIMAGE",
			func(cat *model.Catalog, pkg string) ([]any, error) {
				rows, err := cat.ListBundles(pkg)
				return rowsOf(rows, func(r model.BundleRow) []string {
					return []string{r.Package, r.Channel, r.Bundle, r.Replaces, strings.Join(r.Skips, ","), r.SkipRange, r.Image}
				}), err
			}),
	)
	return cmd
}

// listRow is a row as JSON (the row itself) and as table cells.
type listRow struct {
	value any
	cells []string
}

func rowsOf[T any](rows []T, cells func(T) []string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = listRow{value: r, cells: cells(r)}
	}
	return out
}

func newListKindCmd(what, short, header string, list func(*model.Catalog, string) ([]any, error)) *cobra.Command {
	var (
		pkg    string
		pull   image.Options
		output = newEnum("text", "text", "json")
	)
	use, nargs := what+" SOURCE", exactArgs(1)
	if what != "packages" {
		// opm alpha list channels and bundles take the package as a
		// second argument.
		use, nargs = what+" SOURCE [PACKAGE]", rangeArgs(1, 2)
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Example: fmt.Sprintf(`  fbc list %s catalog/
  fbc list %s registry.redhat.io/redhat/redhat-operator-index:v4.18 --package foo -o json`, what, what),
		Args: nargs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if len(args) == 2 {
				if cmd.Flags().Changed("package") && pkg != args[1] {
					return usageErrorf("the package is %q as an argument and %q with --package: give one", args[1], pkg)
				}
				pkg = args[1]
			}
			cfg, err := loadCatalogFor(cmd, pull, args[0], "list", true, catalogReads{})
			if err != nil {
				return err
			}
			rows, err := list(model.New(cfg), pkg)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if output.String() == "json" {
				err = writeJSONRows(&buf, rows)
			} else {
				err = writeTable(&buf, header, rows)
			}
			if err != nil {
				return err
			}
			_, err = buf.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVarP(&pkg, "package", "p", "", "list only this package")
	completeNames(cmd, firstArg, packageNames, "package")
	output.register(cmd, "output", "o", "output format")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "reading")
}

// writeTable writes opm's table: columns two spaces apart.
func writeTable(w io.Writer, header string, rows []any) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.(listRow).cells, "\t"))
	}
	return tw.Flush()
}

// writeJSONRows writes one compact JSON object per line.
func writeJSONRows(w io.Writer, rows []any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r.(listRow).value); err != nil {
			return err
		}
	}
	return nil
}
