package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/gitrev"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profiles"
)

// A review with a base (Options.Base) judges the change between the base
// and the working tree of an operator repository, as the pipelines judge a
// pull request: the rules apply to what the change adds or modifies (the
// operator folders, bundles and catalogs it touches), and a finding the
// base had already is counted, not failed on; what makes a touched catalog
// unservable (an error of opm's and OLM's rules) fails wherever it is in
// that catalog, as the pipelines' opm validate of the whole catalog does;
// and fbc diff's upgrade check runs on every catalog package the change
// touches.

// change is what the change between a base and the working tree touches.
type change struct {
	// root is the operator repository's root in the working tree, and
	// base the folder that stands for it at the base.
	root, base string
	// rev names the base as given, for messages.
	rev string
	// files are the files that differ, from root, with slashes.
	files map[string]bool
	// operators are the packages whose operator folder or catalogs
	// changed, in order; catalogs the catalog folders of packages that
	// changed (catalogs/<catalog>/<package>), in order.
	operators []string
	catalogs  [][2]string
	close     func()
	// catalogBundles holds, per catalog file read for the shape of the
	// change, the names of its olm.bundle blobs.
	catalogBundles map[string]map[string]bool
}

// rel names a file of the working tree or of the base from the root, with
// slashes; "" for one outside both.
func (c *change) rel(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	for _, dir := range []string{c.root, c.base} {
		if r, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return ""
}

// BaseError is a base that cannot be used.
type BaseError struct{ msg string }

func (e *BaseError) Error() string { return e.msg }

// FaultKind is Usage.
func (e *BaseError) FaultKind() fault.Kind { return fault.Usage }

// readChange finds what changed between the base and the working tree,
// below paths (none: the repository around the working directory), and
// reads the base's files of what changed: from a git revision into a
// scratch folder, or where a directory given as the base has them.
func readChange(ctx context.Context, base string, paths []string) (*change, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var root string
	for _, p := range paths {
		r, err := repo.FindRoot(p)
		if err != nil {
			return nil, &BaseError{msg: fmt.Sprintf("%s is not in an operator repository (a folder holding operators/): a base judges a change of one; to compare a catalog with a revision of it, use fbc diff --base", p)}
		}
		if root != "" && r != root {
			return nil, &BaseError{msg: fmt.Sprintf("%s and %s are in two operator repositories: a base judges a change of one", root, r)}
		}
		root = r
	}
	c := &change{root: root, rev: base, files: map[string]bool{}, close: func() {}}
	var rels []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		r, err := filepath.Rel(root, abs)
		if err != nil || strings.HasPrefix(r, "..") {
			return nil, &BaseError{msg: fmt.Sprintf("%s is outside the operator repository %s", p, root)}
		}
		rels = append(rels, filepath.ToSlash(r))
	}
	if st, err := os.Stat(base); err == nil && st.IsDir() {
		if err := c.compareDirs(ctx, base, rels); err != nil {
			return nil, err
		}
	} else if err := c.compareRevision(ctx, base, rels); err != nil {
		return nil, err
	}
	c.touched()
	return c, nil
}

// compareRevision reads the change against a git revision: the files git
// says differ, and the base's files of the packages they touch.
func (c *change) compareRevision(ctx context.Context, rev string, rels []string) error {
	g, err := gitrev.Open(ctx, c.root)
	if err != nil {
		return err
	}
	commit, err := g.Commit(ctx, rev)
	if err != nil {
		return err
	}
	// The operator repository may be a folder of the git repository.
	prefix, err := g.Rel(c.root, c.root)
	if err != nil {
		return err
	}
	if prefix == "." {
		prefix = ""
	} else {
		prefix += "/"
	}
	top := func(r string) string {
		if r == "." || r == "" {
			if prefix == "" {
				return "."
			}
			return strings.TrimSuffix(prefix, "/")
		}
		return prefix + r
	}
	var specs []string
	for _, r := range rels {
		specs = append(specs, top(r))
		if pkg, ok := operatorFolder(r); ok {
			// Its catalogs, those the base has and the working tree lacks
			// too.
			specs = append(specs, ":(glob)"+top(repo.CatalogsDir)+"/*/"+pkg+"/**")
		}
	}
	files, err := g.Changed(ctx, commit, specs...)
	if err != nil {
		return err
	}
	for _, f := range files {
		if r, ok := strings.CutPrefix(f, prefix); ok {
			c.files[r] = true
		}
	}
	// The base's files of every package the change touches: its operator
	// folder, its catalogs, the repository's settings.
	c.touched()
	want := []string{top(repo.ConfigFile)}
	for _, pkg := range c.operators {
		want = append(want, top(pathJoin(repo.OperatorsDir, pkg)))
		for _, cat := range (&repo.Repo{Root: c.root}).CatalogNames() {
			want = append(want, top(pathJoin(repo.CatalogsDir, cat+"/"+pkg)))
		}
	}
	for _, cp := range c.catalogs {
		if p := top(pathJoin(repo.CatalogsDir, cp[0]+"/"+cp[1])); !slices.Contains(want, p) {
			want = append(want, p)
		}
	}
	t, err := g.Extract(ctx, commit, want)
	if err != nil {
		return err
	}
	c.base, c.close = filepath.Join(t.Dir, filepath.FromSlash(prefix)), t.Close
	if err := os.MkdirAll(filepath.Join(c.base, repo.OperatorsDir), 0o755); err != nil {
		t.Close()
		return err
	}
	return nil
}

// compareDirs reads the change against a directory holding the base (a
// checkout of it): the files under rels that differ in content, or that
// one of the two lacks.
func (c *change) compareDirs(ctx context.Context, base string, rels []string) error {
	abs, err := filepath.Abs(base)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if abs == c.root {
		return &BaseError{msg: fmt.Sprintf("the base %s is the working tree itself", base)}
	}
	if !isDir(filepath.Join(abs, repo.OperatorsDir)) {
		return &BaseError{msg: fmt.Sprintf("the base %s is not an operator repository (it has no %s folder): give the folder that holds the repository as it was", base, repo.OperatorsDir)}
	}
	c.base = abs
	for _, r := range slices.Clone(rels) {
		if pkg, ok := operatorFolder(r); ok {
			for _, cat := range append((&repo.Repo{Root: c.root}).CatalogNames(), (&repo.Repo{Root: c.base}).CatalogNames()...) {
				if p := pathJoin(repo.CatalogsDir, cat+"/"+pkg); !slices.Contains(rels, p) {
					rels = append(rels, p)
				}
			}
		}
	}
	for _, r := range rels {
		for _, dir := range []string{c.root, c.base} {
			err := filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(r)), func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						return nil
					}
					return err
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				if d.Name() == ".git" {
					return nil // a worktree's or submodule's pointer to its repository
				}
				if !d.Type().IsRegular() {
					return nil
				}
				rel, _ := filepath.Rel(dir, p)
				rel = filepath.ToSlash(rel)
				if !c.files[rel] && !sameFile(filepath.Join(c.root, rel), filepath.Join(c.base, rel)) {
					c.files[rel] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// sameFile reports whether two files hold the same bytes.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	da, err1 := os.ReadFile(a)
	db, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(da, db)
}

// operatorFolder reports whether a path from the root is an operator's
// folder (operators/NAME), which the operator's catalogs
// (catalogs/*/NAME) belong with, as fbc validate operators/NAME reads them.
func operatorFolder(rel string) (pkg string, ok bool) {
	parts := strings.Split(rel, "/")
	if len(parts) == 2 && parts[0] == repo.OperatorsDir && parts[1] != "" {
		return parts[1], true
	}
	return "", false
}

func pathJoin(a, b string) string {
	if a == "" || a == "." {
		return b
	}
	return a + "/" + b
}

// sortedFiles are the changed files in order.
func (c *change) sortedFiles() []string {
	files := make([]string, 0, len(c.files))
	for f := range c.files {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}

// touched derives the packages and catalog folders the changed files are in.
func (c *change) touched() {
	c.operators, c.catalogs = nil, nil
	for _, f := range c.sortedFiles() {
		parts := strings.Split(f, "/")
		switch {
		case len(parts) >= 3 && parts[0] == repo.OperatorsDir:
			if !slices.Contains(c.operators, parts[1]) {
				c.operators = append(c.operators, parts[1])
			}
		case len(parts) >= 4 && parts[0] == repo.CatalogsDir:
			if !slices.Contains(c.operators, parts[2]) {
				c.operators = append(c.operators, parts[2])
			}
			if !slices.Contains(c.catalogs, [2]string{parts[1], parts[2]}) {
				c.catalogs = append(c.catalogs, [2]string{parts[1], parts[2]})
			}
		}
	}
}

// paths are what a review of the change checks in a tree (the working
// tree's root or the base's): the operator folders and catalog folders
// the change touches that the tree has, named from workDir where they are
// below it.
func (c *change) paths(tree, workDir string) []string {
	var out []string
	add := func(p string) {
		if isDir(p) {
			out = append(out, showPath(workDir, p))
		}
	}
	for _, pkg := range c.operators {
		add(filepath.Join(tree, repo.OperatorsDir, pkg))
	}
	for _, cp := range c.catalogs {
		add(filepath.Join(tree, repo.CatalogsDir, cp[0], cp[1]))
	}
	return out
}

// runBase is Run with a base: it reviews what the change touches in the
// working tree and in the base, keeps what the change brought, counts what
// was there already, adds what makes a touched catalog unservable and what
// the change does to upgrades.
func (rv *reviewer) runBase(ctx context.Context, paths []string, warnings *sink) (*Report, error) {
	c, err := readChange(ctx, rv.opts.Base, paths)
	if err != nil {
		return nil, err
	}
	defer c.close()
	rep := &Report{Result: &validate.Result{}, Change: &Change{Base: rv.opts.Base}}
	rep.Change.Files = c.sortedFiles()
	rep.Change.Operators = slices.Clone(c.operators)
	newPaths := c.paths(c.root, rv.opts.WorkDir)
	if len(newPaths) == 0 {
		// Nothing the pipelines check: the change removes packages (the
		// diff says what that does), or touches other files only.
		rep.Rules = validate.Rules()
		rv.addShape(c, rep)
		return rep, rv.diffs(ctx, c, rep)
	}
	rv.publishedRoot = map[string]string{c.root: c.base}
	rv.changed = c.holdsChange
	now, err := rv.run(ctx, newPaths)
	if err != nil {
		var empty *EmptyError
		if !errors.As(err, &empty) {
			return nil, err
		}
	}
	if now != nil {
		// The catalogs named here are each checked for their own
		// release: no note says so.
		rep.Notes, rep.Skipped, rep.OwnReleases, rep.Pipeline = now.Notes, now.Skipped, now.OwnReleases, now.Pipeline
		rep.Rules = now.Rules
	}
	if now == nil || now.Result == nil {
		rv.addShape(c, rep)
		return rep, rv.diffs(ctx, c, rep)
	}
	*rep.Result = *now.Result
	// The base, reviewed the same way but for the profiles, whose findings
	// are about a bundle's own files: those of a file the change did not
	// touch were there already.
	was, wasAt := map[string]int{}, map[string]int{}
	if basePaths := c.paths(c.base, ""); len(basePaths) > 0 {
		baseRV := &reviewer{opts: rv.opts, r: rv.r, warn: func(string) {}, stdin: rv.stdin, publishedRoot: rv.publishedRoot, changed: c.holdsChange}
		// No profiles, and bundle directories get no default either.
		baseRV.opts.Profiles, baseRV.opts.FindProfiles = profiles.Set{}, nil
		then, err := baseRV.run(ctx, basePaths)
		var empty *EmptyError
		if err != nil && !errors.As(err, &empty) {
			return nil, err
		}
		if then != nil && then.Result != nil {
			for _, d := range then.Diagnostics {
				was[c.key(d)]++
				wasAt[c.place(d)]++
			}
		}
	}
	// A finding is matched with one of the base's by rule, place and
	// message first; then what is left by rule and place alone, since a
	// message may name what the change moved (a channel's new head).
	var there []declcfg.Finding
	left := map[int]bool{}
	for i, d := range rep.Diagnostics {
		k := c.key(d)
		switch {
		case validate.IsProfileRule(d.Rule) && !c.files[c.rel(d.File)]:
			there = append(there, d)
		case was[k] > 0:
			was[k]--
			wasAt[c.place(d)]--
			there = append(there, d)
		default:
			left[i] = true
		}
	}
	var kept []declcfg.Finding
	for i, d := range rep.Diagnostics {
		if !left[i] {
			continue
		}
		if at := c.place(d); wasAt[at] > 0 {
			wasAt[at]--
			there = append(there, d)
			continue
		}
		kept = append(kept, d)
	}
	rep.Diagnostics, rep.AlreadyThere = kept, there
	if err := rv.unservable(ctx, c, rep); err != nil {
		return nil, err
	}
	rv.addShape(c, rep)
	return rep, rv.diffs(ctx, c, rep)
}

// holdsChange reports whether a folder (of the working tree or the base)
// holds a file the change touched.
func (c *change) holdsChange(dir string) bool {
	rel := c.rel(dir)
	if rel == "" {
		return true
	}
	for f := range c.files {
		if strings.HasPrefix(f, rel+"/") {
			return true
		}
	}
	return false
}

// place is a finding's rule and what it is about, without its message.
func (c *change) place(d declcfg.Finding) string {
	return d.Rule + "\x00" + c.rel(d.File) + "\x00" + d.Package + "\x00" + d.Channel + "\x00" + d.Bundle
}

// key is what makes two findings the same finding in the base and the
// working tree: the rule, the file (from the root) and the message, with
// the trees' folders taken out of it; not the line, which edits move.
func (c *change) key(d declcfg.Finding) string {
	msg := strings.ReplaceAll(strings.ReplaceAll(d.Message, c.base+string(filepath.Separator), ""), c.root+string(filepath.Separator), "")
	return c.place(d) + "\x00" + msg
}

// unservable adds what makes each touched catalog unservable, wherever it
// is in that catalog: the errors of the rules every catalog gets (opm's
// and OLM's), as the pipelines' opm validate of the whole catalog finds
// them. Those in the packages the change touches are the review's already.
func (rv *reviewer) unservable(ctx context.Context, c *change, rep *Report) error {
	var cats []string
	for _, cp := range c.catalogs {
		if !slices.Contains(cats, cp[0]) {
			cats = append(cats, cp[0])
		}
	}
	for _, cat := range cats {
		dir := showPath(rv.opts.WorkDir, filepath.Join(c.root, repo.CatalogsDir, cat))
		if !isDir(dir) {
			continue
		}
		res, err := validate.Validate(ctx, []string{dir}, validate.Options{Stdin: rv.stdin, Progress: rv.opts.Progress})
		if err != nil {
			return err
		}
		for _, d := range res.Diagnostics {
			r, _ := ruleByID(rep.Rules, d.Rule)
			if d.Severity != declcfg.SeverityError || len(r.Provenance().Pipelines) > 0 || r.Provenance().Proposal {
				continue
			}
			if pkg := c.packageOf(d.File); slices.Contains(c.operators, pkg) {
				continue // the review of the package has it
			}
			d.Message += fmt.Sprintf(" (catalog %s is one the change touches, and opm validate of the whole catalog fails on this)", cat)
			rep.Diagnostics = append(rep.Diagnostics, d)
		}
	}
	return nil
}

// packageOf is the package folder of a catalog file (catalogs/<c>/<pkg>/).
func (c *change) packageOf(file string) string {
	parts := strings.Split(c.rel(file), "/")
	if len(parts) >= 3 && parts[0] == repo.CatalogsDir {
		return parts[2]
	}
	return ""
}

func ruleByID(rules []validate.Rule, id string) (validate.Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return validate.Rule{ID: id}, false
}

// diffs runs fbc diff's upgrade check on every catalog package the change
// touches, base against working tree: what strands users is an error, as
// fbc diff fails on it.
func (rv *reviewer) diffs(ctx context.Context, c *change, rep *Report) error {
	for _, cp := range c.catalogs {
		rel := filepath.Join(repo.CatalogsDir, cp[0], cp[1])
		oldDir, newDir := filepath.Join(c.base, rel), showPath(rv.opts.WorkDir, filepath.Join(c.root, rel))
		if !isDir(oldDir) {
			continue // a new package: nothing to strand
		}
		oldCat, err := loadUpgradeGraph(ctx, oldDir)
		if ctx.Err() != nil {
			return ctx.Err() // not a catalog that does not load: a run that stops
		}
		if err != nil {
			continue // the base's catalog does not load: nothing to compare
		}
		newCat := graph.New(&declcfg.DeclarativeConfig{}, nil)
		if isDir(newDir) {
			newCat, err = loadUpgradeGraph(ctx, newDir)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				continue // the review reports why it does not load
			}
		}
		d, err := graph.DiffWith(oldCat, newCat, graph.DiffOptions{Semantics: []graph.Semantics{graph.Classic, graph.V1}})
		if err != nil {
			return err
		}
		rep.Diffs = append(rep.Diffs, d)
		for _, f := range d.Findings {
			if f.Pos.File == "" {
				f.Pos.File = newDir
			}
			f.Message += " (fbc diff " + c.rev + ":" + filepath.ToSlash(rel) + " " + filepath.ToSlash(rel) + ")"
			rep.Diagnostics = append(rep.Diagnostics, f)
		}
	}
	return nil
}

// loadUpgradeGraph loads a catalog folder for the upgrade simulations.
func loadUpgradeGraph(ctx context.Context, dir string) (*graph.Catalog, error) {
	cfg := &declcfg.DeclarativeConfig{}
	err := declcfg.LoadEach(ctx, []string{dir}, declcfg.LoadOptions{Decode: declcfg.DecodeOptions{Values: graph.ReadsValue}, Walk: declcfg.WalkOptions{Borrow: true}},
		func(part *declcfg.DeclarativeConfig) error {
			graph.Slim(part)
			cfg.Merge(part)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return graph.New(cfg, nil), nil // the review validates the catalog: its problems are findings there
}
