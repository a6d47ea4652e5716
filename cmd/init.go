package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/safefs"
)

func newInitCmd() *cobra.Command {
	var defaultChannel, descriptionFile, iconFile string
	output := newEnum(string(declcfg.FormatJSON), string(declcfg.FormatJSON), string(declcfg.FormatYAML))
	cmd := &cobra.Command{
		Use:   "init PACKAGE --default-channel CHANNEL",
		Short: "Print a new package's olm.package blob",
		Long: `Init prints the olm.package blob that starts a package's catalog, as opm init
does: its name, default channel, and optionally a description (the file's
content, verbatim: it must be text, like a README) and an icon.

PACKAGE must be a lowercase RFC 1123 label, as OLM requires. The icon's media
type is read from its content: PNG, JPEG, GIF, SVG, WebP, BMP, ICO and AVIF
are accepted (opm does not recognise SVG, the second most common icon type in
real catalogs); anything else, including image formats consoles cannot show,
is refused. - reads the description or the icon from standard input.`,
		Example: `  fbc init my-operator --default-channel stable --description README.md --icon icon.svg > catalog/my-operator/package.json
  fbc init my-operator -c stable -o yaml`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := declcfg.CheckPackageName(args[0]); err != nil {
				return usageErrorf("%v", err)
			}
			if defaultChannel == "" {
				return usageErrorf("--default-channel must name a channel")
			}
			if descriptionFile == "-" && iconFile == "-" {
				return usageErrorf("standard input (-) can be read only once: give --description or --icon as a file")
			}
			var description string
			if descriptionFile != "" {
				data, err := readInput(cmd, descriptionFile)
				if err != nil {
					return usageErrorf("--description: %v", err)
				}
				description = string(data)
				if err := declcfg.CheckDescription(description); err != nil {
					return usageErrorf("--description %s: %v", descriptionFile, err)
				}
			}
			var icon []byte
			if iconFile != "" {
				data, err := readInput(cmd, iconFile)
				if err != nil {
					return usageErrorf("--icon: %v", err)
				}
				icon = data
			}
			pkg, err := declcfg.NewPackage(args[0], defaultChannel, description, icon)
			if err != nil {
				return usageErrorf("--icon %s: %v", iconFile, err)
			}
			cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{*pkg}}
			return declcfg.Write(cfg, declcfg.Format(output.String()), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVarP(&defaultChannel, "default-channel", "c", "", "the channel OLM installs from when a subscription names none (required)")
	cmd.Flags().StringVarP(&descriptionFile, "description", "d", "", "file whose content is the package description")
	cmd.Flags().StringVarP(&iconFile, "icon", "i", "", "image file for the package icon")
	output.register(cmd, "output", "o", "output format")
	requiredFlag(cmd, "default-channel")
	return cmd
}

// readInput reads a file named on the command line, or standard input for
// "-".
func readInput(cmd *cobra.Command, name string) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return data, nil
	}
	return safefs.ReadInput(cmd.Context(), name, 0)
}
