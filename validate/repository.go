package validate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// The community and certified pipelines' rules for an operator's folder
// (Options.Operators): its ci.yaml and each bundle's release-config.yaml
// against operator-pipelines' JSON schemas (schema/repository.cue) and
// against each other, as its static tests check them (operatorcert/
// static_tests/common/operator.py, bundle.py) and as its release step
// needs them (add_bundle_to_fbc.py); the YAML linter over bundle folders
// that are released (yamllint.go); and, for operators not on FBC, the
// update graph of their bundle folders (opgraph.go). Each message starts
// with what the pipeline prints.

// Rule ids of the repository rules.
const (
	RuleCISchema             = "ci-yaml-schema"
	RuleCICatalogMapping     = "ci-yaml-catalog-mapping"
	RuleRCSchema             = "release-config-schema"
	RuleRCFBC                = "release-config-fbc"
	RuleRCTemplate           = "release-config-template"
	RuleRCSemverChannels     = "release-config-semver-channels"
	RuleRCDefaultChannel     = "release-config-default-channel"
	RuleOperatorGraphLoop    = "operator-graph-loop"
	RuleOperatorDangling     = "operator-dangling-bundle"
	RuleAllowedRegistry      = "allowed-bundle-registry"
	RuleCatalogFile          = "catalog-file"
	RuleCatalogYAML          = "catalog-yaml"
	settingsCI               = "ci.yaml"
	settingsReleaseConfig    = "release-config.yaml"
	ciSchemaPrefix           = "Operator's 'ci.yaml' contains invalid data which does not comply with the schema: "
	releaseConfigSchemaStart = "Bundle's 'release-config.yaml' contains invalid data which does not comply with the schema: "
)

// semverChannels are the only channels an olm.semver template has.
var semverChannels = []string{"Fast", "Candidate", "Stable"}

// settingsFile is a settings file of the repository as the checks read
// it: its tree, or nil when it is missing, empty or could not be read
// (which is reported).
type settingsFile struct {
	path string
	// exists is set when the file is there.
	exists bool
	root   *declcfg.Node
	// valid is set when the file parsed and follows its schema, so that
	// the rules that read its values may.
	valid bool
}

// operatorCheck is what the rules of one operator folder share: its ci.yaml
// as read, and whether its update graph is checked (an operator not on
// FBC, whose ci.yaml is not broken).
type operatorCheck struct {
	folder *repo.Folder
	ci     *repo.CI
	graph  bool
}

// checkOperatorSettings applies the settings files' rules to each operator
// folder: ci.yaml and every release-config.yaml, their syntax, the
// pipelines' schemas and the rules that tie them together. Each file is
// counted and reported here only: fbc's own reading of them (repo) uses
// the same parse, and its problems beyond the schema's are reported here
// too (rule repo-config), so that a file fbc cannot use never goes unsaid.
func (c *checker) checkOperatorSettings(ctx context.Context) ([]*operatorCheck, error) {
	var out []*operatorCheck
	for _, f := range c.opts.Operators {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, c.checkOperator(f))
	}
	return out, nil
}

func (c *checker) checkOperator(f *repo.Folder) *operatorCheck {
	oc := &operatorCheck{folder: f}
	ciFile := c.readSettings(f.CI, settingsCI, RuleCISchema, ciSchemaPrefix)
	if ciFile.valid && ciFile.root != nil {
		if ci, err := f.CI.CI(); c.readingOK(err) {
			oc.ci = ci
			c.catalogMapping(ci)
		}
	}
	fbc := oc.ci != nil && oc.ci.FBC != nil && oc.ci.FBC.Enabled
	for _, b := range f.Bundles {
		if b.ReleaseConfig == nil {
			continue
		}
		rc := c.readSettings(b.ReleaseConfig, settingsReleaseConfig, RuleRCSchema, releaseConfigSchemaStart)
		if !rc.valid || rc.root == nil {
			continue
		}
		if parsed, err := b.ReleaseConfig.ReleaseConfig(); c.readingOK(err) {
			c.releaseConfig(parsed, rc, oc.ci, ciFile, fbc)
		}
	}
	// The graph's mode is ci.yaml's: no guessing when it is broken.
	oc.graph = !fbc && (!ciFile.exists || oc.ci != nil)
	return oc
}

// readingOK reports the problems fbc's reading of a settings file (repo)
// finds in a file that follows its schema, such as an empty
// template_name, and whether there were none.
func (c *checker) readingOK(err error) bool {
	if err == nil {
		return true
	}
	var ps repo.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			c.add(p.Rule, p.Pos, blobRef{}, p.Message)
		}
		return false
	}
	c.add(declcfg.RuleIO, declcfg.Pos{}, blobRef{}, err.Error())
	return false
}

// readSettings checks one settings file, read and parsed once (repo.Settings),
// against its schema. A file that is not there is not an error: the
// pipelines read it as empty settings where it may be missing (ci.yaml),
// and only look for it where it is (release-config.yaml).
func (c *checker) readSettings(s *repo.Settings, name, rule, prefix string) *settingsFile {
	path := s.Path
	sf := &settingsFile{path: path}
	if s.Missing {
		sf.valid = true
		return sf
	}
	sf.exists = true
	c.stats.Files++
	if s.File == nil {
		c.add(declcfg.RuleIO, declcfg.Pos{File: path}, blobRef{}, fmt.Sprintf("reading %s: %v", name, s.Err))
		return sf
	}
	f := s.File
	bad := false
	for _, le := range f.Errors {
		switch le.Rule {
		case declcfg.RuleEmptyDocument, declcfg.RuleNotObject:
			// An empty file, or a list or a string, is not the mapping the
			// schema wants: said below.
		default:
			if !le.Warning {
				bad = true
			}
			c.add(le.Rule, le.Pos, blobRef{}, le.Msg)
		}
	}
	if bad {
		return sf
	}
	switch {
	case len(f.Docs) > 1:
		c.add(rule, f.Docs[1].Pos, blobRef{}, prefix+fmt.Sprintf("it holds %d YAML documents; the pipelines read %s as one", len(f.Docs), name))
		return sf
	case len(f.Docs) == 0 || f.Docs[0].Node == nil:
		c.add(rule, declcfg.Pos{File: path}, blobRef{}, prefix+"it holds no settings (null is not of type 'object')")
		return sf
	}
	sf.root = declcfg.Deref(f.Docs[0].Node)
	before := len(c.diags)
	at := func(n *declcfg.Node) declcfg.Pos {
		if n == nil {
			return declcfg.Pos{File: path}
		}
		return declcfg.Pos{File: path, Line: n.Line, Col: n.Column}
	}
	report := func(_ string, n *declcfg.Node, _ *shape.Path, msg string) {
		c.add(rule, at(n), blobRef{}, prefix+msg)
	}
	c.schema.files[name].WalkExact(sf.root, shape.Root(name), report)
	for _, l := range settingsLists[name] {
		eachAt(sf.root, l.path, func(n *declcfg.Node, where string) {
			listItems(n, where, l.unique, func(n *declcfg.Node, msg string) { report("", n, nil, msg) })
		})
	}
	sf.valid = len(c.diags) == before
	return sf
}

// settingsList is a list of a settings file that JSON schema wants
// non-empty (minItems: 1) and, when unique is set, without repeats
// (uniqueItems), which CUE's types do not say.
type settingsList struct {
	path   []string // keys; "[]" stands for every item of a list
	unique bool
}

var settingsLists = map[string][]settingsList{
	settingsCI: {
		{path: []string{"reviewers"}},
		{path: []string{"fbc", "catalog_mapping", "[]", "catalog_names"}, unique: true},
	},
	settingsReleaseConfig: {
		{path: []string{"catalog_templates"}, unique: true},
		{path: []string{"catalog_templates", "[]", "channels"}, unique: true},
		{path: []string{"catalog_templates", "[]", "skips"}, unique: true},
	},
}

// eachAt calls fn with every node at path below n (keys matched as
// written) and its place, such as catalog_templates[0].channels.
func eachAt(n *declcfg.Node, path []string, fn func(*declcfg.Node, string)) {
	var walk func(n *declcfg.Node, path []string, where string)
	walk = func(n *declcfg.Node, path []string, where string) {
		n = declcfg.Deref(n)
		if n == nil {
			return
		}
		if len(path) == 0 {
			fn(n, where)
			return
		}
		if path[0] == "[]" {
			if n.Kind == declcfg.SequenceNode {
				for i, it := range n.Content {
					walk(it, path[1:], fmt.Sprintf("%s[%d]", where, i))
				}
			}
			return
		}
		if n.Kind != declcfg.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == path[0] {
				next := path[0]
				if where != "" {
					next = where + "." + path[0]
				}
				walk(n.Content[i+1], path[1:], next)
			}
		}
	}
	walk(n, path, "")
}

// listItems reports an empty list, and a repeated item when unique is set.
func listItems(n *declcfg.Node, where string, unique bool, report func(*declcfg.Node, string)) {
	if n.Kind != declcfg.SequenceNode {
		return // the shape walk reports it
	}
	if len(n.Content) == 0 {
		report(n, fmt.Sprintf("%s is empty: [] should be non-empty", where))
		return
	}
	if !unique {
		return
	}
	seen := map[string]bool{}
	for i, it := range n.Content {
		key, err := declcfg.NodeToJSON(declcfg.Deref(it), true)
		if err != nil {
			continue
		}
		if seen[string(key)] {
			report(it, fmt.Sprintf("%s has non-unique elements: %s[%d] repeats an earlier one", where, where, i))
			continue
		}
		seen[string(key)] = true
	}
}

// catalogMapping reports catalogs that ci.yaml maps to more than one
// template (operator-pipelines' check_catalog_usage_ci_config): the
// pipeline would render the catalog from each in turn.
func (c *checker) catalogMapping(ci *repo.CI) {
	if ci.FBC == nil {
		return
	}
	type use struct {
		templates []string
		pos       []declcfg.Pos
	}
	uses := map[string]*use{}
	var order []string
	for _, m := range ci.FBC.Mappings {
		seen := map[string]bool{}
		for i, cat := range m.Catalogs {
			if seen[cat] {
				continue // a repeat within one mapping is the schema's (uniqueItems)
			}
			seen[cat] = true
			u := uses[cat]
			if u == nil {
				u = &use{}
				uses[cat] = u
				order = append(order, cat)
			}
			u.templates = append(u.templates, m.Template)
			u.pos = append(u.pos, m.CatalogPos[i])
		}
	}
	for _, cat := range order {
		u := uses[cat]
		if len(u.templates) < 2 {
			continue
		}
		for _, at := range u.pos[1:] {
			c.add(RuleCICatalogMapping, at, blobRef{}, fmt.Sprintf(
				"Operator's 'ci.yaml' contains multiple templates %s for the same catalog '%s' in fbc.catalog_mapping: map each catalog to one template",
				PyList(u.templates), cat))
		}
	}
}

// releaseConfig applies the rules that tie a bundle's release-config.yaml
// to ci.yaml: FBC enabled (check_bundle_release_config), each template
// mapped, an olm.semver template's channels, and the default channel
// among the channels (which the release step checks, after the merge).
func (c *checker) releaseConfig(rc *repo.ReleaseConfig, file *settingsFile, ci *repo.CI, ciFile *settingsFile, fbc bool) {
	for _, t := range rc.Templates {
		if t.DefaultChannel != "" && !slices.Contains(t.Channels, t.DefaultChannel) {
			c.add(RuleRCDefaultChannel, t.DefaultChannelPos, blobRef{}, fmt.Sprintf(
				"defaultChannel '%s' not found in '%s'. Available channels: %s (the release step stops here, once the pull request is merged): name one of the channels",
				t.DefaultChannel, t.Template, PyList(t.Channels)))
		}
	}
	if ciFile.exists && ci == nil {
		return // ci.yaml is broken, and says so
	}
	if !fbc {
		at := declcfg.Pos{File: file.path, Line: file.root.Line, Col: file.root.Column}
		c.add(RuleRCFBC, at, blobRef{},
			"Bundle's 'release-config.yaml' is used but FBC is not enabled for the operator. Update the 'fbc.enabled' field in the ci.yaml file (set it to true, with fbc.catalog_mapping), or remove release-config.yaml")
		return
	}
	var mapped []string
	for _, m := range ci.FBC.Mappings {
		mapped = append(mapped, m.Template)
	}
	for _, t := range rc.Templates {
		ms := ci.MappingsOf(t.Template)
		if len(ms) == 0 {
			msg := fmt.Sprintf("Bundle's 'release-config.yaml' contains a catalog template '%s' that is not defined in the ci.yaml file under 'catalog_mapping'. Add the template to the 'catalog_mapping'", t.Template)
			if sug := declcfg.Suggest(t.Template, mapped); sug != "" {
				msg += fmt.Sprintf(", or did you mean '%s'?", sug)
			}
			c.add(RuleRCTemplate, t.TemplatePos, blobRef{}, msg)
			continue
		}
		// The pipeline keys the mappings by template name: the last wins.
		if ms[len(ms)-1].Type != repo.TypeSemver {
			continue
		}
		for i, ch := range t.Channels {
			if !slices.Contains(semverChannels, ch) {
				c.add(RuleRCSemverChannels, t.ChannelPos[i], blobRef{}, fmt.Sprintf(
					"Bundle's 'release-config.yaml' contains a semver catalog template '%s' with invalid channels: %s. Allowed channels are: %s (an olm.semver template has only these channels)",
					t.Template, PyList(t.Channels), PyList(semverChannels)))
				break
			}
		}
	}
}

// PyList writes a list of strings as the pipelines' messages do (Python's
// repr): ['a', 'b'].
func PyList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = PyString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// PyString writes a string as Python's repr does: in single quotes, or in
// double quotes when it holds a single quote and no double one.
func PyString(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
