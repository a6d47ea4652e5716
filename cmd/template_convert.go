package cmd

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/template"
)

func newTemplateConvertCmd() *cobra.Command {
	output := newEnum("json", "json", "yaml")
	var opts template.ConvertOptions
	var pull image.Options
	cmd := &cobra.Command{
		Use:   "convert basic|substitutes [SOURCE|-]",
		Short: "Make a basic or substitutes template from an existing catalog",
		Long: `Convert makes a catalog template from an existing catalog, as opm alpha
convert-template does, and prints it on standard output.

A basic template keeps every blob and reduces each bundle to the stub
{schema: olm.bundle, image: REF} that fbc template renders back into it; a
substitutes template keeps every blob as an entry and has no substitutions
yet. Blobs are written as opm writes them: keys sorted, numbers as opm reads
them.

SOURCE is a catalog file (or - or nothing for standard input), converted blob
by blob in the order written: the output equals opm's for the same file. A
catalog directory or catalog image (registry, oci:, oci-archive:,
docker-archive:) is rendered first and converted in the order fbc render
writes it, as opm render SOURCE | opm alpha convert-template would.`,
		Example: `  fbc template convert basic catalogs/v4.18/my-operator/catalog.yaml -o yaml > catalog-templates/v4.18.yaml
  fbc render quay.io/acme/catalog:v4.18 | fbc template convert basic
  fbc template convert substitutes catalog/ -o yaml`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := template.Kind(args[0])
			if kind != template.KindBasic && kind != template.KindSubstitutes {
				return usageErrorf("unknown template type %q: convert makes basic or substitutes templates", args[0])
			}
			source := "-"
			if len(args) == 2 {
				source = args[1]
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			r, err := newRenderer(cmd, pull, 0)
			if err != nil {
				return err
			}
			opts.Stdin = cmd.InOrStdin()
			opts.Renderer = r
			conv, err := template.ConvertSource(cmd.Context(), kind, source, opts)
			var empty *template.EmptyError
			if errors.As(err, &empty) {
				return fmt.Errorf("nothing to convert: %w", err)
			} else if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := conv.Write(&buf, declcfg.Format(output.String())); err != nil {
				return fmt.Errorf("writing the template: %w", err)
			}
			_, err = buf.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	output.register(cmd, "output", "o", "output format")
	addPullFlags(cmd.Flags(), &pull)
	return withProgress(cmd, "reading")
}
