package review

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
)

// The shape of a pull request: before any test, the community and
// certified pipelines sort the files a pull request touches into the
// bundles, operator folders and catalog folders they belong to, in the
// base or the head, and refuse a change that touches other files, more
// than one operator with bundles, a released bundle, a bundle it may not
// delete, more than one new bundle, or a bundle and catalogs together.
// Messages start with what the pipelines print (Python's set and list
// forms included).

// bundleRef is an operator's bundle folder.
type bundleRef struct{ operator, version string }

// prShape is the change sorted as the pipelines sort it.
type prShape struct {
	extra     []string
	operators map[string][]string // operator -> a file of it, the first
	bundles   map[bundleRef]string
	catalogs  map[[2]string]bool
}

// shape sorts the change's files.
func (c *change) shape() *prShape {
	s := &prShape{operators: map[string][]string{}, bundles: map[bundleRef]string{}, catalogs: map[[2]string]bool{}}
	for _, f := range c.sortedFiles() {
		parts := strings.Split(f, "/")
		switch {
		case len(parts) >= 3 && parts[0] == repo.OperatorsDir && c.either(repo.IsPipelinesOperator, parts[0], parts[1]):
			s.operators[parts[1]] = append(s.operators[parts[1]], f)
			if c.either(repo.IsBundleDir, parts[0], parts[1], parts[2]) {
				b := bundleRef{parts[1], parts[2]}
				if _, ok := s.bundles[b]; !ok {
					s.bundles[b] = f
				}
			}
		case len(parts) >= 3 && parts[0] == repo.CatalogsDir && c.either(isPackageCatalogDir, parts[0], parts[1], parts[2]):
			s.catalogs[[2]string{parts[1], parts[2]}] = true
		default:
			s.extra = append(s.extra, f)
		}
	}
	return s
}

// either applies a probe to a folder in the working tree and in the base.
func (c *change) either(probe func(string) bool, elem ...string) bool {
	rel := filepath.Join(elem...)
	return probe(filepath.Join(c.root, rel)) || probe(filepath.Join(c.base, rel))
}

func isPackageCatalogDir(dir string) bool { return repo.PackageCatalogFile(dir) != "" }

// addShape adds the refusals of the change's shape that the review's
// pipeline makes (the repository's, config.yaml's organization, when the
// review read no operator folder to find it).
func (rv *reviewer) addShape(c *change, rep *Report) {
	pl := rep.Pipeline
	if pl == "" {
		pl = rv.opts.Pipeline
	}
	if pl == "" {
		if cfg, err := (&repo.Repo{Root: c.root}).Config(); err == nil && cfg != nil {
			pl = organizationPipeline(cfg.Organization)
		}
	}
	rules := validate.Rules()
	for _, d := range rv.prShapeFindings(c) {
		if r, _ := ruleByID(rules, d.Rule); r.RunBy(pl) {
			rep.Diagnostics = append(rep.Diagnostics, d)
		}
	}
}

// prShapeFindings are the pipelines' refusals of the change's shape.
func (rv *reviewer) prShapeFindings(c *change) []declcfg.Finding {
	s := c.shape()
	var out []declcfg.Finding
	add := func(rule, file, msg string) { out = append(out, rv.shapeFinding(c, rule, file, msg)) }
	if len(s.extra) > 0 {
		add(validate.RulePRExtraFiles, s.extra[0], "The PR affects non-operator files: "+validate.PyList(s.extra)+": the pipelines take only operator folders and catalogs' package folders")
	}
	var added, modified, deleted []bundleRef
	for b := range s.bundles {
		inHead := repo.IsBundleDir(filepath.Join(c.root, repo.OperatorsDir, b.operator, b.version))
		inBase := repo.IsBundleDir(filepath.Join(c.base, repo.OperatorsDir, b.operator, b.version))
		switch {
		case inHead && inBase:
			modified = append(modified, b)
		case inHead:
			added = append(added, b)
		case inBase:
			deleted = append(deleted, b)
		}
	}
	for _, l := range [][]bundleRef{added, modified, deleted} {
		sortBundles(l)
	}
	if len(s.operators) > 1 && len(s.bundles) > 0 {
		var ops []string
		for op := range s.operators {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		add(validate.RulePROperators, s.operators[ops[1]][0], "The PR affects more than one operator: "+validate.PyList(ops))
	}
	// A bundle no catalog of the repository lists is not known to be
	// released: a pull request's own later commits edit it (the history
	// of a rebased pull request shows them one by one), so its edit is a
	// warning. The pipelines refuse it all the same where the base is
	// their pull request's base.
	var released, unreleased []bundleRef
	for _, b := range modified {
		if len(c.listedIn(b, c.root, c.base)) > 0 {
			released = append(released, b)
		} else {
			unreleased = append(unreleased, b)
		}
	}
	if len(released) > 0 {
		add(validate.RulePRModifiedBundle, s.bundles[released[0]], "The PR modifies existing bundles: "+pyBundles(released))
	}
	if len(unreleased) > 0 {
		d := rv.shapeFinding(c, validate.RulePRModifiedBundle, s.bundles[unreleased[0]], "The PR modifies existing bundles: "+pyBundles(unreleased)+" (no catalog of the repository lists them yet, so they may not be released: fine within the pull request that adds them, refused by the pipelines in a later one)")
		d.Severity = declcfg.SeverityWarning
		out = append(out, d)
	}
	out = append(out, rv.deletedBundles(c, s, deleted)...)
	if len(added) > 1 {
		add(validate.RulePRAddedBundles, s.bundles[added[1]], "The PR affects more than one bundle: "+pyBundles(added))
	}
	if len(added) > 0 && len(deleted) > 0 {
		add(validate.RulePRAddedBundles, s.bundles[added[0]], "The PR adds and deletes bundles at the same time. This is not allowed. Please split the changes into 2 separate pull requests.")
	}
	if changed := append(slices.Clone(added), modified...); len(changed) > 0 && len(s.catalogs) > 0 {
		sortBundles(changed)
		var cats [][2]string
		for cp := range s.catalogs {
			cats = append(cats, cp)
		}
		sort.Slice(cats, func(i, j int) bool { return cats[i][0]+"\x00"+cats[i][1] < cats[j][0]+"\x00"+cats[j][1] })
		pairs := make([]string, len(cats))
		for i, cp := range cats {
			pairs[i] = "(" + validate.PyString(cp[0]) + ", " + validate.PyString(cp[1]) + ")"
		}
		add(validate.RulePRBundleCatalog, s.bundles[changed[0]], "The PR affects a bundle ("+pyBundles(changed)+") and catalog (["+strings.Join(pairs, ", ")+"]) at the same time. Split operator and catalog changes into 2 separate pull requests.")
	}
	return out
}

// shapeFinding is an error of rule about a file of the change (from the
// root), named as the review names files.
func (rv *reviewer) shapeFinding(c *change, rule, file, msg string) declcfg.Finding {
	return declcfg.Finding{Severity: declcfg.SeverityError, Rule: rule,
		Pos: declcfg.Pos{File: showPath(rv.opts.WorkDir, filepath.Join(c.root, filepath.FromSlash(file)))}, Message: msg}
}

// listedIn are the catalogs, of the repositories at roots, that list a
// bundle of the base by its CSV's name, in release order (a catalog both
// trees have, once).
func (c *change) listedIn(b bundleRef, roots ...string) []string {
	csv, err := repo.ReadCSV(filepath.Join(c.base, repo.OperatorsDir, b.operator, b.version))
	if err != nil || csv.Name == "" {
		return nil
	}
	var out []string
	for _, root := range roots {
		cats, _ := (&repo.Repo{Root: root}).PackageCatalogs(b.operator)
		for _, cf := range cats {
			if !slices.Contains(out, cf.Catalog) && c.listsBundle(cf.Path, csv.Name) {
				out = append(out, cf.Catalog)
			}
		}
	}
	return out
}

// deletedBundles refuses deleting a bundle of an operator whose ci.yaml
// (in the base) does not enable FBC, or one that a catalog of the working
// tree still lists by its CSV's name.
func (rv *reviewer) deletedBundles(c *change, s *prShape, deleted []bundleRef) []declcfg.Finding {
	var out []declcfg.Finding
	add := func(file, msg string) { out = append(out, rv.shapeFinding(c, validate.RulePRDeletedBundle, file, msg)) }
	seen := map[string]bool{}
	for _, b := range deleted {
		if seen[b.operator] {
			continue
		}
		seen[b.operator] = true
		op := &repo.Operator{Dir: filepath.Join(c.base, repo.OperatorsDir, b.operator)}
		if ci, err := op.CI(); err != nil || ci.FBC == nil || !ci.FBC.Enabled {
			add(s.bundles[b], fmt.Sprintf("The PR deletes an existing operator: Operator(%s). This feature is only allowed for bundles with FBC enabled.", b.operator))
		}
	}
	for _, b := range deleted {
		for _, cat := range c.listedIn(b, c.root) {
			add(s.bundles[b], fmt.Sprintf("The PR deletes a bundle (%s/%s) that is in use by a catalog (Catalog(%s))", b.operator, b.version, cat))
		}
	}
	return out
}

// listsBundle reports whether a catalog file holds an olm.bundle named
// name; each file is read once per review, whatever the number of bundles
// asked about.
func (c *change) listsBundle(path, name string) bool {
	names, ok := c.catalogBundles[path]
	if !ok {
		names = map[string]bool{}
		if data, err := os.ReadFile(path); err == nil {
			if cfg, err := declcfg.LoadBytes(path, data); err == nil {
				for _, b := range cfg.Bundles {
					names[b.Name] = true
				}
			}
		}
		if c.catalogBundles == nil {
			c.catalogBundles = map[string]map[string]bool{}
		}
		c.catalogBundles[path] = names
	}
	return names[name]
}

func sortBundles(l []bundleRef) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].operator != l[j].operator {
			return l[i].operator < l[j].operator
		}
		return l[i].version < l[j].version
	})
}

// pyBundles writes a sorted list of (operator, version) pairs as Python
// prints them.
func pyBundles(l []bundleRef) string {
	q := make([]string, len(l))
	for i, b := range l {
		q[i] = "(" + validate.PyString(b.operator) + ", " + validate.PyString(b.version) + ")"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
