package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/pipeline"
	"github.com/fbc-project/fbc/template"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newTemplateCmd() *cobra.Command {
	output := newEnum("json", "json", "yaml", "mermaid")
	migrate := newEnum("none", template.MigrateLevels...)
	var opts template.FileOptions
	var pull image.Options
	var explain, noValidate bool
	cmd := &cobra.Command{
		Use:   "template [basic|semver|substitutes] [FILE|-]",
		Short: "Render a basic, semver or substitutes catalog template into a file-based catalog",
		Long: `Template renders a catalog template into FBC on standard output.

A basic template (schema: olm.template.basic) lists FBC blobs; each bundle entry
is a stub {schema: olm.bundle, image: REF} that is replaced by the rendered
bundle, and everything else passes through as written.

A semver template (schema: olm.semver) lists bundle images under candidate,
fast and stable; fbc generates the package, its channels (<archetype>-vX for
major channels, <archetype>-vX.Y for minor ones) and their edges: the highest Z
of each Y-stream replaces the previous Y-stream's head and skips every other
lower version, exactly as opm does. With --skip-range every entry instead
replaces the next lower version and each Y-stream head carries a skipRange over
its own Y-stream (see docs/templates.md for what that means for upgrades from
older Y-streams). --explain prints, for each generated channel, the edges of
every entry and why, to standard error; the catalog still goes to standard
output.

A substitutes template (schema: olm.template.substitutes) holds a whole
catalog under entries and a list of substitutions {name: IMAGE, base: BUNDLE}:
the bundle IMAGE renders to takes the place of bundle BUNDLE in every channel
(it gets the base's edges and skips the base; entries that replaced or skipped
the base now lead to it), as opm does. The entries must be a valid catalog, a
bundle is substituted once, an image substitutes for one bundle, and the
substitute must have a higher version, or the same version and a higher
release. Only the substitutes are migrated by --migrate-level.

The template type is read from its schema unless TYPE is given. With one
argument, "basic", "semver" or "substitutes" is taken as TYPE and the
template is read from standard input (write ./basic for a file of that name);
FILE "-" or no FILE also reads standard input.

Bundle references are rendered through --image-map FILE first: a YAML or JSON
object from image references, exactly as the template writes them, to local
sources: a bundle directory (relative paths are taken from the map file's
folder), an oci: or docker-archive: reference, or a catalog file or directory
holding that one bundle. The bundle keeps the template's reference as its
image. Other references are pulled from their registry through the image
cache, as fbc render pulls them (--use-http, --skip-tls-verify, --cache-dir,
--platform). A template inside an operator repository
(operators/<package>/catalog-templates/) takes an image that is neither in
the map nor in the cache from the repository first: the bundle with that
image in the catalogs already rendered (catalogs/*/<package>/), or the bundle
directory of the image's version (operators/<package>/VERSION), as fbc
catalogs does. With --offline no registry is asked, and an image found
nowhere is an error saying where fbc looked.

The result is validated like fbc validate before anything is written; on
errors the diagnostics go to standard error, nothing goes to standard output,
and the exit status is 1. Exit status 2 means the template could not be
rendered for reasons outside it (unreadable files, a registry that cannot be
reached, a bundle image found nowhere, as fbc render of it) or holds nothing
to render (an empty file, a basic template without entries, a semver template
without bundles).`,
		Example: `  fbc template catalog-templates/basic.yaml -o yaml
  fbc template semver semver.yaml --image-map images.yaml --offline
  fbc template semver.yaml --explain > catalog.json
  fbc template semver.yaml --skip-range --migrate-level bundle-object-to-csv-metadata
  fbc template semver.yaml -o mermaid
  fbc template substitutes.yaml --image-map images.yaml -o yaml`,
		Args: rangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, file, err := templateArgs(args)
			if err != nil {
				return err
			}
			opts.Kind = kind
			if explain && kind != "" && kind != template.KindSemver {
				return usageErrorf("--explain describes generated channels: it applies to semver templates only")
			}
			if opts.SkipRange && kind != "" && kind != template.KindSemver {
				return usageErrorf("--skip-range changes generated channels: it applies to semver templates only")
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if opts.Renderer, err = newRenderer(cmd, pull, 0); err != nil {
				return err
			}
			opts.MigrateLevel, opts.Stdin, opts.NoValidate = migrate.String(), cmd.InOrStdin(), noValidate
			stderr := cmd.ErrOrStderr()
			res, err := pipeline.RenderTemplate(cmd.Context(), file, pipeline.TemplateOptions{FileOptions: opts, WorkDir: workDir(), Warn: warner(stderr)})
			endProgress(cmd)
			var empty *template.EmptyError
			switch {
			case errors.As(err, &empty):
				return fmt.Errorf("nothing to render: %w", err)
			case res == nil:
				return err
			case opts.SkipRange && res.Kind != template.KindSemver:
				return usageErrorf("--skip-range changes generated channels: it applies to semver templates only")
			}
			if err := printTemplateNotes(stderr, res, explain); err != nil {
				return err
			}
			if err != nil {
				return err // the validation could not run
			}
			if v := res.Validation; v != nil && !v.Valid() {
				if err := vreport.Write(stderr, "text", v, vreport.Options{}); err != nil {
					return err
				}
				return fault.Errorf(fault.Input, "the rendered catalog of %s is not valid (use --no-validate to write it anyway)", declcfg.ShowPath(file))
			}
			return writeTemplateOutput(cmd, res.Config, output.String())
		},
	}
	output.register(cmd, "output", "o", "output format")
	migrate.register(cmd, "migrate-level", "", "migrate rendered bundles up to this level")
	cmd.Flags().StringVar(&opts.ImageMap, "image-map", "", "YAML or JSON `FILE` mapping image references to local bundle sources")
	addPullFlags(cmd.Flags(), &pull)
	cmd.Flags().BoolVar(&opts.SkipRange, "skip-range", false, "semver: give each Y-stream head a skipRange over its Y-stream instead of a skips list")
	cmd.Flags().BoolVar(&explain, "explain", false, "semver: print each generated entry's edges and the reason to standard error")
	cmd.Flags().BoolVar(&noValidate, "no-validate", false, "write the catalog without validating it")
	_ = cmd.MarkFlagFilename("image-map", "yaml", "yml", "json")
	cmd.AddCommand(newTemplateConvertCmd())
	return withProgress(cmd, "rendering")
}

// templateArgs reads fbc template's arguments: [TYPE] [FILE], TYPE one of
// the template kinds ("" to read it from the template), FILE "-" for
// standard input. A lone argument that names a kind is the kind.
func templateArgs(args []string) (template.Kind, string, error) {
	switch len(args) {
	case 1:
		if slices.Contains(template.Kinds, template.Kind(args[0])) {
			return template.Kind(args[0]), "-", nil
		}
		return "", args[0], nil
	case 2:
		if !slices.Contains(template.Kinds, template.Kind(args[0])) {
			return "", "", usageErrorf("unknown template type %q: use basic, semver or substitutes (or leave it out to read the template's schema)", args[0])
		}
		return template.Kind(args[0]), args[1], nil
	}
	return "", "-", nil
}

// printTemplateNotes prints a rendered template's warnings and, with
// --explain, why each generated entry has its edges.
func printTemplateNotes(stderr io.Writer, res *template.Result, explain bool) error {
	for _, w := range res.Warnings {
		warner(stderr)(fmt.Sprint(w))
	}
	if !explain {
		return nil
	}
	if res.Explanation == nil {
		return usageErrorf("--explain describes generated channels: it applies to semver templates only")
	}
	return res.Explanation.WriteText(stderr)
}

// writeTemplateOutput writes the rendered catalog to standard output as
// -o says: json or yaml, or mermaid, drawn with classic (v0) semantics like
// opm's render-template.
func writeTemplateOutput(cmd *cobra.Command, cfg *declcfg.DeclarativeConfig, format string) error {
	var buf bytes.Buffer
	var err error
	switch format {
	case "mermaid":
		var pic *graph.Picture
		// The rendered catalog's own problems are its validation's findings.
		cat := graph.New(cfg, nil)
		if pic, err = graph.Draw(cat, graph.PictureOptions{V0Semantics: true, Warn: warner(cmd.ErrOrStderr())}); err == nil {
			err = pic.WriteMermaid(&buf)
		}
	default:
		err = declcfg.Write(cfg, declcfg.Format(format), &buf)
	}
	if err != nil {
		return fmt.Errorf("writing catalog: %w", err)
	}
	_, err = cmd.OutOrStdout().Write(buf.Bytes())
	return err
}
