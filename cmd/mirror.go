package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/mirror"
)

func newMirrorCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirror",
		Short: "Plan the mirror of operator catalogs for a disconnected cluster",
		Long: `mirror works from an oc-mirror v2 ImageSetConfiguration.

  plan   cuts each catalog of mirror.operators exactly as oc-mirror v2 does
         (a valid catalog where oc-mirror's is not), and writes the catalogs,
         the images to copy and the cluster resources that point a cluster at
         them

See docs/mirror.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMirrorPlanCmd())
	return cmd
}

func newMirrorPlanCmd() *cobra.Command {
	var (
		opts  mirror.Options
		pull  image.Options
		force bool
	)
	output := newEnum(string(declcfg.FormatJSON), string(declcfg.FormatJSON), string(declcfg.FormatYAML))
	cmd := &cobra.Command{
		Use:   "plan CONFIG -o DIR [--to REGISTRY/NAMESPACE]",
		Short: "Cut catalogs as oc-mirror v2 does and plan what to copy",
		Long: `plan reads an oc-mirror v2 ImageSetConfiguration (apiVersion
mirror.openshift.io/v2alpha1) and, for each entry of mirror.operators, reads
its catalog (a registry image, oc-mirror's oci://PATH, oci:, oci-archive:,
docker-archive: or a catalog directory) and keeps of it exactly what oc-mirror
v2 keeps: the packages listed, the channels listed (or all), the head of each
channel, or with minVersion/maxVersion the stretch of its upgrade graph the
range covers, or with full: true whole channels. The configuration is refused
where oc-mirror refuses it, in oc-mirror's words, at the line at fault.

Where oc-mirror writes a catalog that opm and OLM reject (a channel with no
entries, a default channel it dropped, a bundle in no channel), plan keeps the
same bundles in a catalog that validates, and a note says what oc-mirror would
have written. --with-dependencies adds what the kept bundles require from the
same catalog. Each catalog is checked with fbc validate's rules, and a summary
says, per package, whether every kept bundle still upgrades to its channel
head under OLM classic and under OLM v1.

DIR gets catalogs/<name>/ for each entry; with --to, also images.txt (one
SOURCE=DESTINATION line per image of the kept bundles, for oc image mirror -f
or skopeo) and cluster-resources/ (ImageDigestMirrorSet, ImageTagMirrorSet,
CatalogSource and ClusterCatalog, named and shaped as oc-mirror v2 writes
them). No image is copied. plan prints the fbc build command that makes each
catalog image. DIR is written whole or not at all; a DIR that is not empty is
refused unless --force. See docs/mirror.md.`,
		Example: `  fbc mirror plan imageset.yaml -o plan/
  fbc mirror plan imageset.yaml -o plan/ --to mirror.example.com:5000/olm --with-dependencies
  oc image mirror -f plan/images.txt
  fbc build plan/catalogs/redhat-operator-index --tag mirror.example.com:5000/olm/redhat/redhat-operator-index:v4.20 --push`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if opts.Dir == "" {
				return usageErrorf("-o names no folder: give the plan's folder")
			}
			if err := atomicfile.CheckDir(opts.Dir, force); err != nil {
				return composeHint(fmt.Errorf("-o %w", err))
			}
			cfg, err := mirror.ReadConfig(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if opts.Renderer, err = newRenderer(cmd, pull, 0); err != nil {
				return err
			}
			opts.Config, opts.Replace, opts.Format = cfg, force, declcfg.Format(output.String())
			plan, err := mirror.MakePlan(cmd.Context(), opts)
			endProgress(cmd)
			if err != nil {
				return err
			}
			return writePlan(cmd.OutOrStdout(), cmd.ErrOrStderr(), plan)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Dir, "output", "o", "", "the plan's folder (written whole, or not at all)")
	requiredFlag(cmd, "output")
	_ = cmd.MarkFlagDirname("output")
	f.StringVar(&opts.To, "to", "", "mirror registry and namespace (REGISTRY[:PORT][/NAMESPACE]): write images.txt and cluster-resources/")
	f.BoolVar(&opts.WithDependencies, "with-dependencies", false, "add the bundles that kept bundles require, from the same catalog")
	f.BoolVar(&force, "force", false, "replace DIR if it is not empty")
	output.register(cmd, "catalog-format", "", "format of the catalog files")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}

// writePlan prints the notes (standard error) and the plan: per catalog,
// where it went and each package's upgrade summary, then what to copy and
// how to build each catalog image (standard output).
func writePlan(out, errOut io.Writer, p *mirror.Plan) error {
	for _, ig := range p.Ignored {
		fmt.Fprintf(errOut, "note: %s (%s) is left alone: %s\n", ig.Field, ig.Pos, ig.Why)
	}
	for _, c := range p.Catalogs {
		printNotes(errOut, c.Notes)
	}
	w := &planWriter{w: out}
	for _, c := range p.Catalogs {
		w.printf("catalog %s: %s, %s, %s -> %s\n", c.Operator.Catalog, counted(len(c.Packages), "package", "packages"),
			counted(c.Channels, "channel", "channels"), counted(c.Bundles, "bundle", "bundles"), filepath.Join(p.Dir, mirror.CatalogsDir, c.Name))
		for _, s := range c.Packages {
			w.printf("  %s: %s, %s\n", s.Name, counted(s.Channels, "channel", "channels"), counted(s.Bundles, "bundle", "bundles"))
			w.upgrades("OLM classic", s.Classic)
			w.upgrades("OLM v1", s.V1)
		}
	}
	if p.To != "" {
		w.printf("images: %s to copy, in %s (oc image mirror -f %[2]s)\n", counted(len(p.Images), "image", "images"), filepath.Join(p.Dir, mirror.ImagesFile))
		w.printf("cluster resources: %s\n", strings.Join(prefixed(p.Dir, p.Resources), ", "))
	} else {
		w.printf("no --to: no images.txt or cluster-resources/ (give --to REGISTRY/NAMESPACE to plan the copy)\n")
	}
	w.printf("build each catalog image:\n")
	for _, c := range p.Catalogs {
		ref := c.Image
		if ref == "" {
			ref = "MIRROR/" + c.Repository + ":" + c.Tag
		}
		w.printf("  fbc build %s --tag %s --push\n", filepath.Join(p.Dir, mirror.CatalogsDir, c.Name), ref)
	}
	return w.err
}

type planWriter struct {
	w   io.Writer
	err error
}

func (pw *planWriter) printf(format string, args ...any) {
	if pw.err == nil {
		_, pw.err = fmt.Fprintf(pw.w, format, args...)
	}
}

// upgrades says whether every kept bundle upgrades to its channel head, or
// names those that do not.
func (pw *planWriter) upgrades(who string, stuck []mirror.Stuck) {
	if len(stuck) == 0 {
		pw.printf("    %s: every bundle upgrades to its channel head\n", who)
		return
	}
	pw.printf("    %s: %s not reach %s channel head:\n", who, counted(len(stuck), "bundle does", "bundles do"), plural(len(stuck), "its", "their"))
	for _, s := range stuck {
		if s.Bundle == "" {
			pw.printf("      channel %s: %s\n", s.Channel, s.Why)
			continue
		}
		pw.printf("      %s (channel %s): %s\n", s.Bundle, s.Channel, s.Why)
	}
}

func prefixed(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, filepath.FromSlash(n))
	}
	return out
}
