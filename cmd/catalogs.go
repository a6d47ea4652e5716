package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/textout"
	"github.com/fbc-project/fbc/pipeline"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newCatalogsCmd() *cobra.Command {
	var opts pipeline.Options
	var pull image.Options
	cmd := &cobra.Command{
		Use:   "catalogs OPERATOR_DIR",
		Short: "Render every catalog an operator's ci.yaml maps, as make catalogs does",
		Long: `Catalogs renders the catalogs of one operator of an operator repository
(community-operators-prod, certified-operators, or any repository laid out
for operator-pipelines), in place of the operator's Makefile (make catalogs).

It reads OPERATOR_DIR/ci.yaml: for each item of fbc.catalog_mapping it
renders catalog-templates/TEMPLATE (olm.template.basic or olm.semver) into
<repository>/catalogs/CATALOG/<package>/catalog.yaml for each of its
catalog_names, as YAML, the way the pipelines write it. Catalogs named v4.17
or later, and every 5.x, are rendered with --migrate-level
bundle-object-to-csv-metadata, as the pipelines render them. The repository
is the nearest folder above OPERATOR_DIR that holds operators/; OPERATOR_DIR
may be any folder inside the operator's (its bundle directories, its
catalog-templates/). Like the Makefile, which empties every
catalogs/*/<package>/ first, it removes the package from catalogs ci.yaml no
longer maps.

Each template is rendered once per migrate level its catalogs need, and each
bundle image is read once however many catalogs use it. Bundle images come
from --image-map first, then the image cache, then the repository itself:
the catalogs already rendered (a bundle is found by its image) and the
bundle directory of the image's version (operators/<package>/VERSION);
registries are asked last, never with --offline. An image found nowhere is
an error that says where fbc looked.

Every catalog is validated (with the rules of the OpenShift release its
name gives) before anything is written; the catalogs land together or not
at all. With --check nothing is written: the files that differ from what
would be written are listed on standard output, and the exit status is 1
when there are any.

One run at a time changes a repository: fbc catalogs and fbc release hold
the lock file .fbc-lock at the repository's root while they read and write
it, and a second run waits for the first (--lock-wait, a minute by
default), then reads what the first wrote.

Exit status: 0 when the catalogs were written (or, with --check, are up to
date), 1 when a catalog is not valid (diagnostics on standard error) or is
out of date, 2 when the catalogs could not be rendered: ci.yaml missing or
unusable, a template it maps missing, an image found nowhere, a catalog
folder that cannot be written.`,
		Example: `  fbc catalogs operators/my-operator
  fbc catalogs . --offline
  fbc catalogs operators/my-operator --check
  fbc catalogs operators/my-operator --image-map images.yaml --offline`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := pipelineSetup(cmd, pull, &opts)
			if err != nil {
				return err
			}
			opts.Renderer = r
			res, err := pipeline.Catalogs(cmd.Context(), args[0], opts)
			if err := pipelineError(cmd, res, err); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			if opts.Check {
				listStale(cmd, res)
				printStats(stderr, res)
				if res.Interrupted != "" {
					return fault.Errorf(fault.Input, "the repository is half-written by a killed run: fbc catalogs %s finishes it", args[0])
				}
				if len(res.Stale) > 0 {
					return fault.Errorf(fault.Input, "%d %s out of date: fbc catalogs %s writes them", len(res.Stale), plural(len(res.Stale), "file is", "files are"), args[0])
				}
				return nil
			}
			printChanges(stderr, res)
			printStats(stderr, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.ImageMap, "image-map", "", "YAML or JSON `FILE` mapping image references to local bundle sources")
	cmd.Flags().BoolVar(&opts.Check, "check", false, "write nothing: list the files that differ from what would be written, exit 1 if any")
	cmd.Flags().BoolVar(&opts.NoValidate, "no-validate", false, "write the catalogs without validating them")
	addLockFlag(cmd, &opts)
	addPullFlags(cmd.Flags(), &pull)
	_ = cmd.MarkFlagFilename("image-map", "yaml", "yml", "json")
	return cmd
}

// pipelineSetup checks the pull flags and fills what fbc catalogs and fbc
// release share: the warning sink and the working directory; it returns
// the command's Renderer.
func pipelineSetup(cmd *cobra.Command, pull image.Options, opts *pipeline.Options) (*render.Renderer, error) {
	if err := checkPullFlags(pull); err != nil {
		return nil, err
	}
	r, err := newRenderer(cmd, pull, 0)
	if err != nil {
		return nil, err
	}
	opts.Warn = warner(cmd.ErrOrStderr())
	stderr := cmd.ErrOrStderr()
	opts.Note = func(msg string) { fmt.Fprintf(stderr, "fbc: note: %s\n", msg) }
	opts.WorkDir = workDir()
	return r, nil
}

// addLockFlag adds --lock-wait, how long fbc catalogs and fbc release wait
// for another run in the repository.
func addLockFlag(cmd *cobra.Command, opts *pipeline.Options) {
	cmd.Flags().DurationVar(&opts.LockWait, "lock-wait", time.Minute, "how long to wait for another fbc catalogs or fbc release in the repository to finish (0: not at all)")
}

// pipelineError prints the reports of catalogs that are not valid and
// turns pipeline errors into the command's.
func pipelineError(cmd *cobra.Command, res *pipeline.Result, err error) error {
	var invalid *pipeline.InvalidError
	if errors.As(err, &invalid) {
		if werr := printInvalid(cmd.ErrOrStderr(), res); werr != nil {
			return werr
		}
		return fault.Errorf(fault.Input, "%v (use --no-validate to write them anyway)", err)
	}
	return err
}

// printInvalid writes the findings of the catalogs that are not valid,
// each once under the catalogs that have it: one mistake in a template
// mapped to seven catalogs is one finding of the seven. Findings of the
// same catalogs go together, under a line naming them.
func printInvalid(w io.Writer, res *pipeline.Result) error {
	var groups [][]pipeline.CatalogFinding
	for _, f := range res.InvalidFindings() {
		i := slices.IndexFunc(groups, func(g []pipeline.CatalogFinding) bool { return slices.Equal(g[0].Catalogs, f.Catalogs) })
		if i < 0 {
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], f)
	}
	for _, g := range groups {
		files, cats := catalogFiles(g[0].Files, g[0].Catalogs), g[0].Catalogs
		if len(cats) == 1 {
			fmt.Fprintf(w, "%s (catalog %s):\n", files, cats[0])
		} else {
			fmt.Fprintf(w, "%s (catalogs %s):\n", files, textout.JoinAnd(cats))
		}
		r := &validate.Result{}
		for _, f := range g {
			d := f.Finding
			if f.InCatalog {
				d.File = files
			}
			r.Diagnostics = append(r.Diagnostics, d)
		}
		if err := vreport.Write(w, "text", r, vreport.Options{}); err != nil {
			return err
		}
	}
	return nil
}

// catalogFiles names the files of several catalogs at once, the part
// that differs in braces: catalogs/{v4.16,v4.17}/op/catalog.yaml.
func catalogFiles(files, catalogs []string) string {
	if len(files) == 1 {
		return files[0]
	}
	sep := string(filepath.Separator)
	prefix, suffix := sep+catalogs[0]+sep, ""
	if i := strings.Index(files[0], prefix); i >= 0 {
		prefix, suffix = files[0][:i+1], files[0][i+len(prefix)-1:]
		same := true
		for k, f := range files {
			same = same && f == prefix+catalogs[k]+suffix
		}
		if same {
			return prefix + "{" + strings.Join(catalogs, ",") + "}" + suffix
		}
	}
	return strings.Join(files, ", ")
}

// listStale lists on standard output the files a run would change.
func listStale(cmd *cobra.Command, res *pipeline.Result) {
	for _, s := range res.Stale {
		fmt.Fprintln(cmd.OutOrStdout(), s)
	}
}

// printChanges says on w what was written and removed.
func printChanges(w io.Writer, res *pipeline.Result) {
	for _, t := range res.Templates {
		switch {
		case t.Created:
			fmt.Fprintf(w, "created %s\n", t.File)
		case t.Changed && t.Rewritten:
			fmt.Fprintf(w, "amended %s (written again: its layout could not be kept, its comments were)\n", t.File)
		case t.Changed:
			fmt.Fprintf(w, "amended %s\n", t.File)
		default:
			fmt.Fprintf(w, "%s already holds the bundle\n", t.File)
		}
	}
	for _, f := range res.Written {
		if !isTemplate(res, f) {
			fmt.Fprintf(w, "wrote %s\n", f)
		}
	}
	for _, f := range res.Removed {
		fmt.Fprintf(w, "removed %s\n", f)
	}
}

func isTemplate(res *pipeline.Result, f string) bool {
	for _, t := range res.Templates {
		if t.File == f {
			return true
		}
	}
	return false
}

// printStats says how much work the run took.
func printStats(w io.Writer, res *pipeline.Result) {
	s := res.Stats
	fmt.Fprintf(w, "%s: %d %s rendered (%d %s), %d bundle %s and %d published catalog %s read, %d %s (%d unchanged)\n",
		res.Operator, s.Templates, plural(s.Templates, "template", "templates"), s.Renders, plural(s.Renders, "render", "renders"),
		s.SourcesRead, plural(s.SourcesRead, "source", "sources"), s.CatalogFilesRead, plural(s.CatalogFilesRead, "file", "files"),
		s.Catalogs, plural(s.Catalogs, "catalog", "catalogs"), countCatalogs(res.Unchanged, res))
}

func countCatalogs(files []string, res *pipeline.Result) int {
	n := 0
	for _, f := range files {
		if !isTemplate(res, f) {
			n++
		}
	}
	return n
}

// workDir is the working directory, for showing paths from it ("" when it
// cannot be known: paths are then shown whole).
func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}
