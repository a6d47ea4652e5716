package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/graph/page"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/gitrev"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
)

func newDiffCmd() *cobra.Command {
	var (
		semantics = newEnum("both", "classic", "v1", "both")
		output    = newEnum("text", "text", "json", "github", "html")
		outFile   string
		fragment  bool
		all       bool
		prune     string
		base      string
		pull      image.Options
	)
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | --base REV PATH",
		Short: "Show what a catalog change does to upgrades, and fail if it strands users",
		Long: `diff compares two catalogs (directories, files, - for stdin, or catalog
images: registry, oci:, oci-archive:, docker-archive:) the way a
GitOps pull-request check should: what changed (packages, channels, bundles,
entries, edges, channel heads) and whether the change is safe for clusters
running the old catalog.

The change is unsafe when, under the chosen semantics and for a subscription
to each channel:
  - a bundle that could reach the channel's head before no longer can
    (no upgrade, a dead end, or a resolution error);
  - a channel's head moved to a lower version;
  - a bundle was removed and no entry replaces it, skips it or covers its
    version with a skipRange;
  - a package or channel was removed, or a channel no longer resolves.
Bundles that could not reach the head before either are warnings when
the change moved where they stop. diff reports what the change did: a
problem OLD had already and the change left as it was (a bundle that
stops where it stopped, a channel that fails to resolve the same way)
is counted in one line, never listed among the findings nor annotated;
--all lists them.

--fragment compares a catalog fragment (NEW holds only the packages it
changes, as Konflux builds them) with the released catalog (OLD): packages
absent from NEW are out of scope, not removed. It also turns on the pruning
rule of Konflux's check: dropping a released entry (one of OLD) from a channel
is an error (entry-pruned), except in channels whose name matches
--prune-channels (a regular expression, unanchored; default
dev-preview|pre-ga|candidate), which may be pruned: what pruning them breaks
is reported as warnings. --prune-channels without --fragment applies the
pruning rule to whole catalogs.

-o github prints GitHub Actions annotations on the new catalog's files and,
when $GITHUB_STEP_SUMMARY is set, appends a markdown summary to it.

-o html writes one self-contained HTML page (it fetches nothing) for the
change, the artifact a pull-request check attaches: the upgrade graph of
every package the change touched, old and new merged, with the entries,
edges, bundles and channels it added and removed marked, the bundles whose
users it strands highlighted, the findings beside the picture, and each
bundle's upgrade path before and after the change (simulated as diff
simulates them: without resolving dependencies).

OLD or NEW may name a path at a git revision of the repository around the
working directory, as git does (REV:PATH, such as origin/main:catalog or
HEAD~1:catalogs/v4.18; PATH is from the repository's top unless it starts
with ./), and --base REV PATH compares PATH with the same PATH at REV
(PATH named from the working directory, in the repository that holds it):
the revision's files are read into a scratch folder that is removed
afterwards, nothing is checked out. A revision or a path at it that does not exist is exit 2.

Exit status: 0 safe, 1 unsafe, 2 usage, unreadable input, or a catalog that
holds no packages (an empty directory or pipe is a wrong path or a failed
checkout, never a safe change).`,
		Example: `  fbc diff --base origin/main catalog
  fbc diff origin/main:catalogs/v4.18 catalogs/v4.18
  fbc diff old/ new/ --semantics v1 -o json
  fbc diff "$BASE/catalog" catalog -o github
  fbc diff released-index/ fragment/ --fragment
  fbc diff "$BASE/catalog" catalog -o html --output-file upgrade-graph.html`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := screenDiffPaths(args); err != nil {
				return err
			}
			shown, args, done, err := revisionArgs(cmd, base, args)
			if err != nil {
				return err
			}
			defer done()
			if args[0] == "-" && args[1] == "-" {
				return usageErrorf("only one of OLD and NEW can be read from standard input")
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			if outFile != "" && output.String() == "github" {
				return usageErrorf("-o github prints workflow commands for the runner to read: it has no --output-file")
			}
			if err := checkOutputFile(outFile); err != nil {
				return err
			}
			reads := upgradeReads
			if output.String() == "html" {
				reads = diffPageReads
			}
			oldCat, oldOthers, err := loadGraphOthers(cmd, pull, args[0], "compare", reads)
			if err != nil {
				return err
			}
			newCat, newOthers, err := loadGraphOthers(cmd, pull, args[1], "compare", reads)
			endProgress(cmd)
			if err != nil {
				return err
			}
			opts, err := diffOptions(cmd, semantics.String(), fragment, prune)
			if err != nil {
				return err
			}
			report, err := graph.DiffWith(oldCat, newCat, opts)
			if err != nil {
				return err
			}
			report.Old, report.New = shown[0], shown[1]
			report.All, report.ListHint = all, "`--all` lists them"
			if err := writeDiffReport(cmd, output.String(), outFile, report, oldCat, newCat, oldOthers, newOthers); err != nil {
				return err
			}
			if !report.Safe() {
				return fault.Errorf(fault.Input, "the change is unsafe for clusters running %s", shown[0])
			}
			return nil
		},
	}
	semantics.register(cmd, "semantics", "", "upgrade rules to judge the change by")
	output.register(cmd, "output", "o", "output format")
	cmd.Flags().StringVar(&outFile, "output-file", "", "write the report to this `FILE` (whole, or not at all) instead of standard output")
	addPullFlags(cmd.Flags(), &pull)
	cmd.Flags().BoolVar(&all, "all", false, "also list the problems OLD had already, which the change left as they were")
	cmd.Flags().StringVar(&base, "base", "", "compare PATH with PATH at git revision `REV` (origin/main, HEAD~1), read without a checkout")
	cmd.Flags().BoolVar(&fragment, "fragment", false, "NEW is a fragment of OLD: packages absent from NEW are out of scope; released entries may not be pruned")
	cmd.Flags().StringVar(&prune, "prune-channels", graph.DefaultPrunableChannels, "channels (`REGEX`, unanchored) that may drop released entries; applies with --fragment, or when given")
	return withProgress(cmd, "reading")
}

// diffOptions reads --semantics, --fragment and --prune-channels.
func diffOptions(cmd *cobra.Command, semantics string, fragment bool, prune string) (graph.DiffOptions, error) {
	sems := []graph.Semantics{graph.Classic, graph.V1}
	if semantics != "both" {
		sems = []graph.Semantics{graph.Semantics(semantics)}
	}
	opts := graph.DiffOptions{Semantics: sems, Fragment: fragment}
	if fragment || cmd.Flags().Changed("prune-channels") {
		re, err := regexp.Compile(prune)
		if err != nil {
			return opts, usageErrorf("--prune-channels %q is not a regular expression: %v", prune, err)
		}
		opts.Prune = re
	}
	return opts, nil
}

// writeDiffReport writes the report as -o says: GitHub workflow commands,
// the upgrade-graph page of both catalogs, json or text, to standard output
// or --output-file.
func writeDiffReport(cmd *cobra.Command, format, outFile string, report *graph.DiffReport, oldCat, newCat *graph.Catalog, oldOthers, newOthers []declcfg.Meta) error {
	switch format {
	case "github":
		return writeGitHubDiff(report, cmd)
	case "html":
		doc, err := page.BuildDiff(cmd.Context(), oldCat, newCat, report, page.DiffOptions{Old: report.Old, New: report.New,
			OldOthers: oldOthers, NewOthers: newOthers, Warn: warner(cmd.ErrOrStderr())})
		if err != nil {
			return err
		}
		return writeOutput(cmd, outFile, func(w io.Writer) error { return page.WriteHTML(w, doc) })
	case "json":
		return writeOutput(cmd, outFile, report.WriteJSON)
	}
	return writeOutput(cmd, outFile, report.WriteText)
}

// writeGitHubDiff prints the annotations and appends the job summary to
// $GITHUB_STEP_SUMMARY in a single write when the variable is set. The
// summary file is opened first, so a summary that cannot be written stops
// the command before any annotation is printed.
func writeGitHubDiff(report *graph.DiffReport, cmd *cobra.Command) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return report.WriteGitHub(cmd.OutOrStdout(), nil)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("opening the job summary ($GITHUB_STEP_SUMMARY): %w", err)
	}
	var annotations, summary bytes.Buffer
	if err := report.WriteGitHub(&annotations, &summary); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(summary.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing the job summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the job summary %s: %w", path, err)
	}
	_, err = cmd.OutOrStdout().Write(annotations.Bytes())
	return err
}

// revisionArgs reads diff's arguments: OLD NEW, where either may be
// REV:PATH (a path at a git revision of the repository around the working
// directory), or --base REV and one PATH. shown names them as given; a
// revision's files are read into a scratch tree that done removes, and
// load names where they are.
func revisionArgs(cmd *cobra.Command, base string, args []string) (shown, load []string, done func(), err error) {
	switch {
	case base != "" && len(args) != 1:
		return nil, nil, nil, usageErrorf("--base REV compares one PATH with PATH at REV: give one PATH, not %d", len(args))
	case base == "" && len(args) != 2:
		return nil, nil, nil, usageErrorf("diff needs OLD and NEW (or --base REV and one PATH)")
	case base != "":
		args = []string{base + ":" + args[0], args[0]}
	}
	var trees []*gitrev.Tree
	done = func() {
		for _, t := range trees {
			t.Close()
		}
	}
	load = slices.Clone(args)
	for i, a := range args {
		rev, p, ok := gitrev.SplitSpec(a)
		if !ok || (base == "" || i > 0) && (pathExists(a) || render.IsImage(a)) {
			continue
		}
		checkout := gitrev.Checkout
		if base != "" {
			checkout = gitrev.CheckoutPath // PATH is the working tree's
		}
		where, t, err := checkout(cmd.Context(), workDir(), rev, p)
		if err != nil {
			done()
			return nil, nil, nil, err
		}
		trees = append(trees, t)
		load[i] = where
	}
	return args, load, done, nil
}

// screenCatalogsFolder refuses an operator repository's catalogs folder:
// it holds one catalog per OpenShift release, the same packages in each,
// and read as one catalog, each package would be the first release's.
func screenCatalogsFolder(path string) error {
	root, err := repo.FindRoot(path)
	if err != nil {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil || abs != filepath.Join(root, repo.CatalogsDir) {
		return nil
	}
	dir := strings.TrimRight(filepath.ToSlash(path), "/")
	return usageErrorf("%s is the catalogs folder of an operator repository, one catalog per OpenShift release, each with the same packages: compare one catalog at a time, %s/VERSION", path, dir)
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// screenDiffPaths refuses a path of the working tree that fbc diff cannot
// compare as itself, before a revision of it is read into a scratch folder.
func screenDiffPaths(args []string) error {
	for _, a := range args {
		if !pathExists(a) {
			continue
		}
		if err := screenCatalog(a, false); err != nil {
			return err
		}
		if err := screenCatalogsFolder(a); err != nil {
			return err
		}
	}
	return nil
}
