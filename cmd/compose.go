package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/compose"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newComposeCmd() *cobra.Command {
	var (
		sel        compose.Selection
		configFile string
		force      bool
		noValidate bool
		pull       image.Options
		jobs       int
	)
	migrateLevel := newEnum(render.MigrateNone, render.MigrationLevels...)
	onConflict := newEnum(string(compose.OnConflictError), string(compose.OnConflictError), string(compose.OnConflictFirst), string(compose.OnConflictLast))
	output := newEnum(string(declcfg.FormatJSON), string(declcfg.FormatJSON), string(declcfg.FormatYAML))
	cmd := &cobra.Command{
		Use:   "compose OUTDIR [SOURCE...]",
		Short: "Merge catalogs, or extract part of one, into a catalog directory",
		Long: `Compose writes a catalog directory laid out one folder per package
(OUTDIR/<package>/catalog.json, and OUTDIR/catalog.json for blobs that belong
to no package) from one or more SOURCEs: catalog directories, catalog files,
- for standard input, or catalog images (a SOURCE that is not an existing path
is an image reference: REGISTRY/REPO:TAG, REGISTRY/REPO@sha256:..., oci:DIR,
oci-archive:FILE or docker-archive:FILE, read as fbc render reads them).

Merging: a package belongs to one source. When two sources define the same
package differently, compose stops and names both definitions (file:line);
--on-conflict first or last keeps the first or last source's package instead.
Identical definitions are kept once.

Selecting: --package, --channel, --version, --heads-only and --latest keep part
of the catalog. The channels that remain are re-drawn so that the result is
still a valid catalog: replaces edges are re-pointed to the nearest kept entry,
and deprecations of anything dropped are dropped. --with-dependencies adds the
bundles that kept bundles require (olm.package.required, olm.gvk.required);
a requirement no source satisfies is a warning, since OLM can find it in
another catalog on the cluster.

--config reads a catalog config (name, repo, tag, references: [{name, image}])
and writes each reference's catalog into its own folder, OUTDIR/<name>/.

The result is validated (fbc validate's rules) before anything is written;
its errors are reported with the source file and line of the blob at fault,
and nothing is written. --no-validate skips this. --migrate-level
bundle-object-to-csv-metadata replaces olm.bundle.object properties with
olm.csv.metadata, as fbc render does.

OUTDIR is written in a temporary directory next to it and renamed into place:
it never holds a partial tree. A non-empty OUTDIR is refused unless --force,
which replaces it (in one step on Linux). See docs/compose.md.`,
		Example: `  fbc compose out/ certified/ community/
  fbc compose out/ catalog/ --package etcd --channel stable --heads-only
  fbc compose out/ catalog/ --package etcd --version '>=0.9.0 <1.0.0' --with-dependencies
  fbc compose out/ quay.io/acme/etcd-catalog:v1 oci:layout:prometheus --on-conflict first
  fbc compose out/ --config catalog.yaml --force`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			outDir, sources := args[0], args[1:]
			if len(sources) == 0 && configFile == "" {
				return usageErrorf("give at least one SOURCE or --config FILE")
			}
			if n := countStdin(sources); n > 1 {
				return usageErrorf("standard input (-) can be read only once, got it %d times", n)
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			for _, src := range sources {
				if err := screenCatalog(src, false); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("latest") && sel.Latest < 1 {
				return usageErrorf("--latest must be at least 1, got %d", sel.Latest)
			}
			if err := atomicfile.CheckDir(outDir, force); err != nil {
				return composeHint(err)
			}
			r, err := newRenderer(cmd, pull, jobs)
			if err != nil {
				return err
			}
			opts := compose.Options{
				Sources:      sources,
				Selection:    sel,
				OnConflict:   compose.ConflictPolicy(onConflict.String()),
				MigrateLevel: migrateLevel.String(),
				Renderer:     r,
			}
			if configFile != "" {
				if opts.Config, err = compose.ReadConfig(configFile); err != nil {
					return err
				}
			}
			res, err := compose.ToDir(cmd.Context(), opts, compose.OutDir{Dir: outDir, Format: declcfg.Format(output.String()), Replace: force, NoValidate: noValidate})
			endProgress(cmd)
			if res == nil {
				return composeHint(err)
			}
			stderr := cmd.ErrOrStderr()
			printNotes(stderr, res.Notes)
			if err := reportComposed(stderr, res.Validation, outDir); err != nil {
				return err
			}
			if err != nil {
				return composeHint(err)
			}
			fmt.Fprintf(stderr, "wrote %s, %s to %s\n", counted(countPackages(res.Config), "package", "packages"), counted(len(res.Config.Bundles), "bundle", "bundles"), outDir)
			if opts.Config != nil && opts.Config.ImageRef() != "" {
				fmt.Fprintf(stderr, "catalog %s is published as %s: fbc build %s --tag %s\n", opts.Config.Name, opts.Config.ImageRef(), outDir, opts.Config.ImageRef())
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&sel.Packages, "package", "p", nil, "keep only this package (repeatable)")
	f.StringArrayVarP(&sel.Channels, "channel", "c", nil, "keep only channels with this name (repeatable)")
	f.StringVar(&sel.VersionRange, "version", "", `keep only bundle versions in this range, written like skipRange (">=1.2.0 <2.0.0")`)
	completeNames(cmd, afterFirstArg, packageNames, "package")
	completeNames(cmd, afterFirstArg, channelNames, "channel")
	f.BoolVar(&sel.HeadsOnly, "heads-only", false, "keep only the head of each channel")
	f.IntVar(&sel.Latest, "latest", 0, "keep only the N highest versions of each channel")
	f.BoolVar(&sel.WithDependencies, "with-dependencies", false, "add the bundles that kept bundles require")
	onConflict.register(cmd, "on-conflict", "", "what to do when sources define the same package differently")
	output.register(cmd, "output", "o", "format of the catalog files")
	f.BoolVar(&force, "force", false, "replace OUTDIR if it is not empty")
	f.StringVar(&configFile, "config", "", "catalog config: name, repo, tag and references [{name, image}]")
	migrateLevel.register(cmd, "migrate-level", "", "run the catalog migrations up to this one on the result")
	f.BoolVar(&noValidate, "no-validate", false, "write the result without validating it first")
	exclusiveFlags(cmd, "heads-only", "latest")
	_ = cmd.MarkFlagFilename("config", "yaml", "yml", "json")
	f.IntVar(&jobs, "jobs", 0, "sources read (images pulled) at once (default: 4 per CPU)")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}

// composeHint adds to compose's errors the flags that get past them.
func composeHint(err error) error {
	var conflict *compose.ConflictError
	switch {
	case errors.Is(err, atomicfile.ErrDirNotEmpty):
		return fmt.Errorf("%w: use --force to replace its content", err)
	case errors.As(err, &conflict):
		return fmt.Errorf("%w\nuse --on-conflict first or --on-conflict last to keep one source's package", err)
	}
	return err
}

// reportComposed shows the composed catalog's validation (nil when it was
// not validated): its errors, which stopped the write (exit 1), or a count
// of its warnings.
func reportComposed(stderr io.Writer, res *validate.Result, outDir string) error {
	if res == nil {
		return nil
	}
	if errs, warns := res.Count(); errs > 0 {
		if err := vreport.WriteText(stderr, res, vreport.Options{Color: useColor(stderr)}); err != nil {
			return err
		}
		return fault.Errorf(fault.Input, "not writing %s: the composed catalog is not valid (%s, %s); --no-validate writes it anyway", outDir, counted(errs, "error", "errors"), counted(warns, "warning", "warnings"))
	} else if warns > 0 {
		fmt.Fprintf(stderr, "note: the composed catalog is valid, with %s; fbc validate %s lists them\n", counted(warns, "warning", "warnings"), outDir)
	}
	return nil
}

func printNotes(w io.Writer, notes []compose.Note) {
	warn := warner(w)
	for _, n := range notes {
		if n.Warning {
			warn(n.String())
		} else {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
}

func countPackages(cfg *declcfg.DeclarativeConfig) int {
	n := 0
	for _, p := range cfg.PackageNames() {
		if p != "" {
			n++
		}
	}
	return n
}
