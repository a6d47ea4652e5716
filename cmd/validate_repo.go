package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/pipeline"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
)

// repoRuns is what fbc validate checks of operator repositories beyond its
// plain arguments: the bundles of operator folders, catalogs each checked
// on its own with its OpenShift release's rules, and the problems of
// settings files and templates.
type repoRuns struct {
	inspected   bool
	bundles     []string
	runs        []catalogRun
	diagnostics []declcfg.Finding
	// operators are the operator folders given, which validate checks
	// against the pipelines' repository rules (validate.Options.Operators).
	operators []string
}

// catalogRun is one catalog, checked for one OpenShift release.
type catalogRun struct {
	path   string
	target *validate.OCPVersion
}

// rules is the rule catalogue of the run's report: validate's, and the
// repository's when an operator's folder or a repository catalog was read.
func (rp *repoRuns) rules() []validate.Rule {
	if rp.empty() && !rp.inspected {
		return validate.Rules()
	}
	return append(validate.Rules(), pipeline.Rules()...)
}

func (rp *repoRuns) empty() bool {
	return len(rp.bundles) == 0 && len(rp.runs) == 0 && len(rp.diagnostics) == 0
}

// expandRepoArgs takes out of args the paths fbc validate reads as parts
// of an operator repository: an operator's folder (operators/NAME: its
// bundles, ci.yaml, release-config.yaml files, templates and the catalogs
// they map, pipeline.Inspect) and a catalog of the repository
// (catalogs/VERSION or a package in it, found by walking up to the
// repository's root: checked with VERSION's rules unless target is given,
// and the repository's config.yaml read). The other arguments are
// returned.
func expandRepoArgs(cmd *cobra.Command, r *render.Renderer, args []string, target *validate.OCPVersion) (*repoRuns, []string, error) {
	rp := &repoRuns{}
	var rest []string
	configRead := map[string]bool{}
	for _, a := range args {
		st, err := os.Stat(a)
		if a == "-" || err != nil || !st.IsDir() || repo.IsBundleDir(a) {
			rest = append(rest, a)
			continue
		}
		if op, err := repo.OperatorOf(a); err == nil && sameDir(a, op.Dir) {
			in, err := pipeline.Inspect(cmd.Context(), a, pipeline.Options{Renderer: r, WorkDir: workDir(), Warn: warner(cmd.ErrOrStderr())})
			if err != nil {
				return nil, nil, err
			}
			rp.inspected = true
			rp.operators = append(rp.operators, a)
			for _, n := range in.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "fbc: note: %s\n", n)
			}
			rp.bundles = append(rp.bundles, in.Bundles...)
			rp.diagnostics = append(rp.diagnostics, in.Diagnostics...)
			for _, c := range in.Catalogs {
				rp.runs = append(rp.runs, catalogRun{path: c.File, target: targetFor(target, c.Catalog)})
			}
			continue
		}
		if root, catalog, ok := repoCatalog(a); ok {
			rp.inspected = true
			t := targetFor(target, catalog)
			if target == nil && t != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "fbc: note: %s is catalog %s of the operator repository %s: checked with the rules of OpenShift %s (--target-ocp %s)\n", a, catalog, showPath(root), t, t)
			}
			if !configRead[root] {
				configRead[root] = true
				file := filepath.Join(root, repo.ConfigFile)
				if data, err := os.ReadFile(file); err == nil {
					if _, err := repo.ParseConfig(showPath(file), data); err != nil {
						rp.diagnostics = append(rp.diagnostics, configDiagnostics(err, file)...)
					}
				} else if !errors.Is(err, fs.ErrNotExist) {
					rp.diagnostics = append(rp.diagnostics, configDiagnostics(err, file)...)
				}
			}
			rp.runs = append(rp.runs, catalogRun{path: a, target: t})
			continue
		}
		rest = append(rest, a)
	}
	return rp, rest, nil
}

// repoCatalog reports whether dir is a catalog of an operator repository
// (<root>/catalogs/NAME) or a folder in one, and which.
func repoCatalog(dir string) (root, catalog string, ok bool) {
	root, err := repo.FindRoot(dir)
	if err != nil {
		return "", "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", false
	}
	rel, err := filepath.Rel(filepath.Join(root, repo.CatalogsDir), abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", "", false
	}
	return root, strings.SplitN(filepath.ToSlash(rel), "/", 2)[0], true
}

// targetFor is the OpenShift release a catalog is checked for: the one
// given, else the one its name (vX.Y) says.
func targetFor(given *validate.OCPVersion, catalog string) *validate.OCPVersion {
	if given != nil {
		return given
	}
	if _, _, ok := repo.CatalogVersion(catalog); !ok {
		return nil
	}
	v, err := validate.ParseOCPVersion(catalog)
	if err != nil {
		return nil
	}
	return &v
}

// configDiagnostics reports a config.yaml that cannot be read.
func configDiagnostics(err error, file string) []declcfg.Finding {
	var out []declcfg.Finding
	var ps repo.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			out = append(out, *p)
		}
		return out
	}
	return []declcfg.Finding{{Rule: pipeline.RuleRepoConfig, Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: showPath(file)}, Message: err.Error()}}
}

// validate checks each repository catalog on its own and adds everything
// to res.
func (rp *repoRuns) validate(ctx context.Context, res *validate.Result, opts validate.Options, newProfiles func() (validate.ProfileChecker, func(), error)) (*validate.Result, error) {
	out := &validate.Result{Diagnostics: append(rp.diagnostics[:len(rp.diagnostics):len(rp.diagnostics)], res.Diagnostics...), Stats: res.Stats}
	for _, run := range rp.runs {
		o := opts
		o.Bundles, o.TargetOCP = nil, run.target
		pc, done, err := newProfiles()
		if err != nil {
			return nil, err
		}
		o.Profiles = pc
		r, err := validate.Validate(ctx, []string{run.path}, o)
		done()
		if err != nil {
			return nil, err
		}
		out.Diagnostics = append(out.Diagnostics, r.Diagnostics...)
		out.Stats.Files += r.Stats.Files
		out.Stats.Packages += r.Stats.Packages
		out.Stats.Channels += r.Stats.Channels
		out.Stats.Bundles += r.Stats.Bundles
		out.Stats.Blobs += r.Stats.Blobs
	}
	return out, nil
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// showPath names a path from the working directory when it is under it.
func showPath(p string) string {
	if wd := workDir(); wd != "" {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
