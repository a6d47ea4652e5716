package review

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/pipeline"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
)

// repoRuns is what fbc validate checks of operator repositories beyond its
// plain arguments: operator folders (validate.Options.Operators: their
// bundles and settings files; pipeline.Inspect: their templates), the
// repository catalogs each checked on its own with its OpenShift release's
// rules and the pipelines' rules for catalog folders, and the problems of
// templates and config.yaml.
type repoRuns struct {
	inspected bool
	// operators are the operator folders given, each once.
	operators []*repo.Folder
	runs      []catalogRun
	// diagnostics and files are what was found and read here: the
	// templates' problems and config.yaml's.
	diagnostics []declcfg.Finding
	files       int
	// configs are the repositories' config.yaml files read, by root.
	configs map[string]*repo.Config
	workDir string
}

// catalogRun is one catalog, or one package's folder of it, checked for
// one OpenShift release. explicit is set when it was named, rather than
// mapped by an operator folder's ci.yaml.
type catalogRun struct {
	path     string
	abs      string
	root     string // the repository's
	target   *declcfg.MinorVersion
	catalog  *validate.RepoCatalog
	explicit bool
	// operator is the operator folder, as given, that maps it when it was
	// not named.
	operator string
}

// rules is the rule catalogue of the run's report: validate's, and the
// repository's when an operator's folder or a repository catalog was read.
func (rp *repoRuns) rules() []validate.Rule {
	if !rp.inspected {
		return validate.Rules()
	}
	return append(validate.Rules(), pipeline.Rules()...)
}

// empty reports whether nothing of a repository is to be checked.
func (rp *repoRuns) empty() bool {
	return len(rp.operators) == 0 && len(rp.runs) == 0 && len(rp.diagnostics) == 0
}

// bundles counts the bundle directories of the operator folders.
func (rp *repoRuns) bundles() int {
	n := 0
	for _, f := range rp.operators {
		n += len(f.Bundles)
	}
	return n
}

// expand takes out of args the paths read as parts of an operator
// repository (repo.Classify): an operator's folder (read once by
// repo.ReadFolder for validate's repository rules and bundle checks; its
// templates rendered and compared by pipeline.Inspect, and the catalogs
// ci.yaml maps checked each with its own release's rules) and a catalog of
// the repository (catalogs/VERSION, a package's folder in it or that
// folder's catalog file: checked with VERSION's rules unless a target is
// given). The repository's config.yaml is read once for the registries its
// catalogs' bundles may come from. No catalog is checked twice: a run
// inside another's folder is left to that one. The other arguments are
// returned.
func (rv *reviewer) expand(ctx context.Context, args []string, rep *Report) (*repoRuns, []string, error) {
	target := rv.opts.TargetOCP
	rp := &repoRuns{configs: map[string]*repo.Config{}, workDir: rv.opts.WorkDir}
	var rest []string
	for _, a := range args {
		p := repo.Classify(a)
		switch p.Kind {
		case repo.KindRepoCatalog:
			rp.inspected = true
			t := targetFor(target, p.Catalog)
			if target == nil && t != nil {
				rep.Implied = append(rep.Implied, ImpliedTarget{Path: a, Catalog: p.Catalog, Repository: showPath(rv.opts.WorkDir, p.Root), Target: *t})
			}
			rp.addRun(a, p.Root, p.Catalog, p.Package, t, true)
		case repo.KindOperator:
			rp.inspected = true
			op := p.Operator
			if slices.ContainsFunc(rp.operators, func(f *repo.Folder) bool { return f.Dir == op.Dir }) {
				continue // named twice
			}
			f, err := repo.ReadFolder(a)
			if err != nil {
				return nil, nil, err
			}
			in, err := pipeline.Inspect(ctx, f, pipeline.Options{Renderer: rv.r, WorkDir: rv.opts.WorkDir, Warn: rv.warn})
			if err != nil {
				return nil, nil, err
			}
			rp.operators = append(rp.operators, f)
			rep.Notes = append(rep.Notes, in.Notes...)
			rp.diagnostics = append(rp.diagnostics, in.Diagnostics...)
			rp.files += in.Files
			for _, c := range in.Catalogs {
				// Each catalog is checked for its own release: the
				// operator's catalogs are for several. One whose name
				// gives none is checked for the release asked for.
				t := targetFor(nil, c.Catalog)
				if t == nil {
					t = target
				}
				rp.addRun(filepath.Dir(c.File), op.Repo.Root, c.Catalog, op.Name, t, false)
				rp.runs[len(rp.runs)-1].operator = a
			}
		default:
			rest = append(rest, a)
		}
	}
	rp.runs = dropCovered(rp.runs)
	if target != nil {
		rep.OwnReleases = ownReleases(rp.runs, target)
	}
	for _, run := range rp.runs {
		if cfg := rp.config(run.root); cfg != nil {
			run.catalog.AllowedRegistries = cfg.AllowedBundleRegistries
		}
	}
	return rp, rest, nil
}

// ownReleases says which catalogs of the operator folders given are
// checked with the rules of their own OpenShift release rather than the
// one asked for: those not also named on the command line.
func ownReleases(runs []catalogRun, target *declcfg.MinorVersion) []OwnReleases {
	var out []OwnReleases
	for _, run := range runs {
		if run.explicit || run.target == nil || *run.target == *target {
			continue
		}
		i := slices.IndexFunc(out, func(o OwnReleases) bool { return o.Operator == run.operator })
		if i < 0 {
			i = len(out)
			out = append(out, OwnReleases{Operator: run.operator})
		}
		out[i].Catalogs = append(out[i].Catalogs, run.catalog.Name)
	}
	return out
}

// addRun adds a catalog run (its registries are filled in later, once
// config.yaml is read).
func (rp *repoRuns) addRun(path, root, catalog, pkg string, target *declcfg.MinorVersion, explicit bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	rp.runs = append(rp.runs, catalogRun{path: path, abs: abs, root: root, target: target, explicit: explicit,
		catalog: &validate.RepoCatalog{Name: catalog, Package: pkg}})
}

// dropCovered leaves out the runs whose path is another run's, or inside
// its folder: that run checks the catalog already. A run named on the
// command line gives its release to the run that covers it, so that a
// catalog an operator folder maps and that was named too is checked once,
// for the release asked for. Of two runs of one path, the one named stays
// (its path is shown as it was given), else the first.
func dropCovered(runs []catalogRun) []catalogRun {
	covers := func(a, b catalogRun) bool { // a's path holds b's
		rel, err := filepath.Rel(a.abs, b.abs)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	// outer reports whether run j is checked by run i rather than itself.
	outer := func(i, j int) bool {
		a, b := runs[i], runs[j]
		if i == j || !covers(a, b) {
			return false
		}
		if a.abs != b.abs {
			return true
		}
		return a.explicit && !b.explicit || a.explicit == b.explicit && i < j
	}
	var out []catalogRun
	for k, run := range runs {
		covered := false
		for i := range runs {
			covered = covered || outer(i, k)
		}
		if covered {
			continue
		}
		// Containment is transitive: a run kept covers every run that
		// is left out inside it.
		for j, other := range runs {
			if other.explicit && !run.explicit && outer(k, j) {
				run.explicit, run.target = true, other.target
			}
		}
		out = append(out, run)
	}
	return out
}

// config reads the config.yaml of the repository at root, once: its
// problems are reported once (rule repo-config), and nil is returned for a
// file that is missing or could not be used.
func (rp *repoRuns) config(root string) *repo.Config {
	if cfg, ok := rp.configs[root]; ok {
		return cfg
	}
	file := filepath.Join(root, repo.ConfigFile)
	s := repo.ReadSettings(file, showPath(rp.workDir, file))
	var cfg *repo.Config
	if !s.Missing {
		rp.files++
		var err error
		if cfg, err = s.Config(); err != nil {
			rp.diagnostics = append(rp.diagnostics, configDiagnostics(err, s.Path)...)
		} else {
			// Keys written twice: the pipelines take the last.
			for _, w := range cfg.Warnings {
				rp.diagnostics = append(rp.diagnostics, *w)
			}
		}
	}
	rp.configs[root] = cfg
	return cfg
}

// targetFor is the OpenShift release a catalog is checked for: the one
// given, else the one its name (vX.Y) says.
func targetFor(given *declcfg.MinorVersion, catalog string) *declcfg.MinorVersion {
	if given != nil {
		return given
	}
	v, ok := repo.CatalogRelease(catalog)
	if !ok {
		return nil
	}
	return &v
}

// configDiagnostics reports a config.yaml that cannot be read.
func configDiagnostics(err error, file string) []declcfg.Finding {
	var ps repo.Problems
	if errors.As(err, &ps) {
		out := make([]declcfg.Finding, 0, len(ps))
		for _, p := range ps {
			out = append(out, *p)
		}
		return out
	}
	return []declcfg.Finding{{Rule: pipeline.RuleRepoConfig, Severity: declcfg.SeverityError, Pos: declcfg.Pos{File: file}, Message: err.Error()}}
}

// validate checks the repository catalogs, with their release's rules and
// the pipelines' rules for catalog folders: those for one release together,
// as one catalog (as the paths of one run are: a package two of them
// define is a conflict), each release on its own. It adds everything to
// res: what validate found of the other paths, of the bundles and of the
// operator folders' settings files.
func (rp *repoRuns) validate(ctx context.Context, res *validate.Result, opts validate.Options, newProfiles func() (validate.ProfileChecker, func(), error)) (*validate.Result, error) {
	out := &validate.Result{Diagnostics: append(slices.Clip(rp.diagnostics), res.Diagnostics...), Stats: res.Stats}
	out.Stats.Files += rp.files
	type group struct {
		target *declcfg.MinorVersion
		paths  []string
		repo   map[string]*validate.RepoCatalog
	}
	var groups []*group
	for _, run := range rp.runs {
		i := slices.IndexFunc(groups, func(g *group) bool {
			return g.target == nil && run.target == nil || g.target != nil && run.target != nil && *g.target == *run.target
		})
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{target: run.target, repo: map[string]*validate.RepoCatalog{}})
		}
		g := groups[i]
		g.paths = append(g.paths, run.path)
		g.repo[run.path] = run.catalog
	}
	for _, g := range groups {
		o := opts
		o.Bundles, o.Operators = nil, nil
		o.TargetOCP, o.RepoCatalogs = g.target, g.repo
		pc, done, err := newProfiles()
		if err != nil {
			return nil, err
		}
		o.Profiles = pc
		r, err := validate.Validate(ctx, g.paths, o)
		done()
		if err != nil {
			return nil, err
		}
		out.Diagnostics = append(out.Diagnostics, r.Diagnostics...)
		out.Stats.Add(r.Stats)
	}
	return out, nil
}

// showPath names a path from the working directory when it is under it.
func showPath(workDir, p string) string {
	if workDir != "" {
		if r, err := filepath.Rel(workDir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
