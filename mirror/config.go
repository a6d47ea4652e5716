package mirror

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// The ImageSetConfiguration fbc reads: oc-mirror v2's.
const (
	APIVersion = "mirror.openshift.io/v2alpha1"
	Kind       = "ImageSetConfiguration"
)

// Config is an ImageSetConfiguration: what fbc reads of it (the operator
// catalogs) and where each value is written.
type Config struct {
	// File is the path the configuration was read from.
	File      string
	Operators []Operator
	// Ignored names the sections of the configuration that plan nothing
	// of catalogs (platform, additionalImages, helm, ...), with where
	// they are, for a note.
	Ignored []Ignored
}

// Ignored is a section or field of the configuration fbc leaves alone.
type Ignored struct {
	Field string // as a path: mirror.platform, mirror.operators[0].platforms
	Pos   declcfg.Pos
	Why   string
}

// Operator is one mirror.operators[] entry: a catalog and what to keep of
// it.
type Operator struct {
	Index int
	// Catalog is the catalog image (or oc-mirror's oci:// layout path,
	// or anything fbc reads as a catalog: oci:, archives, a directory).
	Catalog       string
	TargetCatalog string
	TargetTag     string
	// Full keeps whole channels (and, without packages, the whole
	// catalog); otherwise channel heads.
	Full     bool
	Packages []Package

	Pos, CatalogPos, FullPos, TargetCatalogPos, TargetTagPos declcfg.Pos
}

// Package is one packages[] entry of an operator catalog.
type Package struct {
	Name           string
	DefaultChannel string
	MinVersion     string
	MaxVersion     string
	Channels       []Channel

	Pos, NamePos, DefaultChannelPos, MinVersionPos, MaxVersionPos declcfg.Pos
}

// Channel is one channels[] entry of a package.
type Channel struct {
	Name       string
	MinVersion string
	MaxVersion string

	Pos, NamePos, MinVersionPos, MaxVersionPos declcfg.Pos
}

// hasRange reports whether the package itself sets minVersion or
// maxVersion.
func (p *Package) hasRange() bool { return p.MinVersion != "" || p.MaxVersion != "" }

func (c *Channel) hasRange() bool { return c.MinVersion != "" || c.MaxVersion != "" }

// versionRange is the Masterminds constraint oc-mirror builds from a
// minVersion and a maxVersion, spelt as it spells it (a lone maxVersion
// gives " <=X", space first): its refusals quote it.
func versionRange(min, max string) string {
	r := ""
	if min != "" {
		r = ">=" + min
	}
	if max != "" {
		r += " <=" + max
	}
	return r
}

// rangePos is where a range is written: its minVersion, else its
// maxVersion.
func rangePos(min, max declcfg.Pos) declcfg.Pos {
	if min.IsValid() {
		return min
	}
	return max
}

// ConfigError is a configuration that cannot be planned: malformed, of
// another kind, or refused as oc-mirror refuses it. Its message is
// oc-mirror's where oc-mirror has one.
type ConfigError struct {
	Pos declcfg.Pos
	Msg string
}

func (e *ConfigError) Error() string { return e.Pos.Prefix(e.Msg) }

// FaultKind is Input: the configuration is at fault.
func (e *ConfigError) FaultKind() fault.Kind { return fault.Input }

// ReadConfig reads and checks an ImageSetConfiguration file.
func ReadConfig(ctx context.Context, file string) (*Config, error) {
	data, err := safefs.ReadInput(ctx, file, 16<<20)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return ParseConfig(file, data)
}

// configReader gathers a configuration's values and its problems.
type configReader struct {
	file     string
	problems []*ConfigError
}

func (r *configReader) at(n *declcfg.Node) declcfg.Pos {
	if n == nil {
		return declcfg.Pos{File: r.file}
	}
	return declcfg.Pos{File: r.file, Line: n.Line, Col: n.Column}
}

func (r *configReader) bad(n *declcfg.Node, format string, args ...any) {
	r.problems = append(r.problems, &ConfigError{Pos: r.at(n), Msg: fmt.Sprintf(format, args...)})
}

func (r *configReader) badAt(pos declcfg.Pos, format string, args ...any) {
	r.problems = append(r.problems, &ConfigError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// field is one key of a mapping and its value.
type field struct {
	key, value *declcfg.Node
}

// fields reads a mapping's keys, refusing keys given twice and keys not in
// known (oc-mirror decodes with unknown fields disallowed), as path.key.
func (r *configReader) fields(path string, m *declcfg.Node, known ...string) map[string]field {
	out := map[string]field{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], declcfg.Deref(m.Content[i+1])
		if prev, ok := out[k.Value]; ok {
			r.bad(k, "%s is given twice (first at line %d)", join(path, k.Value), prev.key.Line)
			continue
		}
		if !slices.Contains(known, k.Value) {
			msg := fmt.Sprintf("unknown field %q", join(path, k.Value))
			if s := declcfg.Suggest(k.Value, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += fmt.Sprintf(" (%s has %s)", orTop(path), strings.Join(known, ", "))
			}
			r.bad(k, "%s", msg)
			continue
		}
		out[k.Value] = field{k, v}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orTop(path string) string {
	if path == "" {
		return "the configuration"
	}
	return path
}

// str reads a string value; a number, boolean or null is refused, as
// oc-mirror's JSON decoding refuses it, with the quoting that fixes it.
func (r *configReader) str(path string, f field) string {
	v := f.value
	if b, ok := declcfg.YAML11Bool(v); ok {
		r.bad(v, "%s must be a string, not the unquoted %s, which oc-mirror reads as the boolean %t (YAML 1.1): quote it (\"%[2]s\")", path, v.Value, b)
		return ""
	}
	if v.Kind != declcfg.ScalarNode || v.Tag == "!!null" {
		r.bad(v, "%s must be a string, not %s", path, declcfg.KindName(v))
		return ""
	}
	if v.Tag != "!!str" {
		r.bad(v, "%s must be a string, not %s: quote it (\"%s\")", path, declcfg.KindName(v), v.Value)
		return ""
	}
	return v.Value
}

// strField reads key of f, when there, into *dst, and its position into
// *pos.
func (r *configReader) strField(path string, f map[string]field, key string, dst *string, pos *declcfg.Pos) {
	if v, ok := f[key]; ok {
		*dst, *pos = r.str(path+"."+key, v), r.at(v.value)
	}
}

// boolean reads a boolean as oc-mirror reads it, YAML 1.1's unquoted yes,
// no, on and off included.
func (r *configReader) boolean(path string, f field) bool {
	v := f.value
	if b, ok := declcfg.YAML11Bool(v); ok {
		return b
	}
	if v.Kind != declcfg.ScalarNode || v.Tag != "!!bool" {
		r.bad(v, "%s must be true or false, not %s", path, declcfg.KindName(v))
		return false
	}
	return v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
}

// list reads a sequence; null is an empty one.
func (r *configReader) list(path string, f field) []*declcfg.Node {
	v := f.value
	if v.Kind == declcfg.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != declcfg.SequenceNode {
		r.bad(v, "%s must be a list, not %s", path, declcfg.KindName(v))
		return nil
	}
	out := make([]*declcfg.Node, len(v.Content))
	for i, n := range v.Content {
		out[i] = declcfg.Deref(n)
	}
	return out
}

func (r *configReader) object(path string, n *declcfg.Node) bool {
	if n.Kind != declcfg.MappingNode {
		r.bad(n, "%s must be an object, not %s", path, declcfg.KindName(n))
		return false
	}
	return true
}

// empty reports a value that holds nothing (null, an empty list or
// object, false, ""), which a note need not mention.
func empty(n *declcfg.Node) bool {
	switch n.Kind {
	case declcfg.ScalarNode:
		if b, ok := declcfg.YAML11Bool(n); ok {
			return !b
		}
		return n.Tag == "!!null" || n.Value == "" || n.Tag == "!!bool" && n.Value == "false"
	case declcfg.SequenceNode, declcfg.MappingNode:
		return len(n.Content) == 0
	}
	return false
}

// ParseConfig parses and checks an ImageSetConfiguration; file names it in
// errors. Every problem is reported (errors.Join of *ConfigError, in file
// order), each at its line: the ones oc-mirror refuses in oc-mirror's
// words, the ones it would decode wrongly or not at all too.
func ParseConfig(file string, data []byte) (*Config, error) {
	docs, err := declcfg.ParseYAML(data)
	if err != nil {
		return nil, &ConfigError{Pos: declcfg.Pos{File: file}, Msg: "not valid YAML: " + err.Error()}
	}
	var real []declcfg.Document
	for _, d := range docs {
		if d.Node != nil {
			real = append(real, d)
		}
	}
	if len(real) == 0 {
		return nil, &ConfigError{Pos: declcfg.Pos{File: file}, Msg: "empty configuration: an ImageSetConfiguration (apiVersion: " + APIVersion + ") with mirror.operators"}
	}
	r := &configReader{file: file}
	cfg := &Config{File: file}
	r.document(cfg, declcfg.Deref(real[0].Node))
	if len(real) > 1 {
		r.badAt(declcfg.Pos{File: file, Line: declcfg.DocumentStart(data, real[1].Pos.Line), Col: 1}, "an ImageSetConfiguration is one document; remove the extra ones")
	}
	if len(r.problems) == 0 {
		r.validate(cfg)
	}
	if len(r.problems) > 0 {
		slices.SortStableFunc(r.problems, func(a, b *ConfigError) int {
			if a.Pos.Line != b.Pos.Line {
				return a.Pos.Line - b.Pos.Line
			}
			return a.Pos.Col - b.Pos.Col
		})
		errs := make([]error, len(r.problems))
		for i, p := range r.problems {
			errs[i] = p
		}
		return nil, errors.Join(errs...)
	}
	if len(cfg.Operators) == 0 {
		return nil, fault.Wrap(fault.Run, &ConfigError{Pos: declcfg.Pos{File: file}, Msg: "the configuration lists no catalog (mirror.operators): nothing to plan"})
	}
	return cfg, nil
}

func (r *configReader) document(cfg *Config, doc *declcfg.Node) {
	if !r.object("an ImageSetConfiguration", doc) {
		return
	}
	top := r.fields("", doc, "apiVersion", "kind", "mirror", "archiveSize", "delete")
	kind, ok := top["kind"]
	switch {
	case !ok:
		r.bad(doc, "configuration missing `kind` (want kind: %s)", Kind)
		return
	case r.str("kind", kind) != Kind:
		if kind.value.Tag == "!!str" {
			r.bad(kind.value, "cannot parse %q as %q", kind.value.Value, Kind)
		}
		return
	}
	av, ok := top["apiVersion"]
	switch {
	case !ok:
		r.bad(doc, "configuration missing `apiVersion` (want apiVersion: %s)", APIVersion)
		return
	case r.str("apiVersion", av) != APIVersion:
		switch v := av.value.Value; {
		case av.value.Tag != "!!str":
		case v == "mirror.openshift.io/v1alpha2":
			r.bad(av.value, "apiVersion %q is oc-mirror v1's ImageSetConfiguration: fbc reads oc-mirror v2's (apiVersion: %s)", v, APIVersion)
		default:
			r.bad(av.value, "unknown apiVersion %q: fbc reads oc-mirror v2's ImageSetConfiguration (apiVersion: %s)", v, APIVersion)
		}
		return
	}
	if d, ok := top["delete"]; ok {
		r.bad(d.key, "delete: is not allowed in %s", Kind)
	}
	if a, ok := top["archiveSize"]; ok && !empty(a.value) {
		cfg.Ignored = append(cfg.Ignored, Ignored{Field: "archiveSize", Pos: r.at(a.key), Why: "fbc writes no archive"})
	}
	m, ok := top["mirror"]
	if !ok {
		r.bad(doc, "configuration missing the `mirror` stanza")
		return
	}
	if !r.object("mirror", m.value) {
		return
	}
	sections := r.fields("mirror", m.value, "platform", "operators", "additionalImages", "helm", "blockedImages", "samples")
	for _, name := range []string{"platform", "additionalImages", "helm", "blockedImages", "samples"} {
		if s, ok := sections[name]; ok && !empty(s.value) {
			cfg.Ignored = append(cfg.Ignored, Ignored{Field: "mirror." + name, Pos: r.at(s.key), Why: "it plans no catalog"})
		}
	}
	if ops, ok := sections["operators"]; ok {
		for i, n := range r.list("mirror.operators", ops) {
			r.operator(cfg, i, n)
		}
	}
}

func (r *configReader) operator(cfg *Config, i int, n *declcfg.Node) {
	path := fmt.Sprintf("mirror.operators[%d]", i)
	if !r.object(path, n) {
		return
	}
	op := Operator{Index: i, Pos: r.at(n)}
	f := r.fields(path, n, "catalog", "targetCatalog", "targetTag", "full", "skipDependencies", "targetCatalogSourceTemplate", "platforms", "packages")
	r.strField(path, f, "catalog", &op.Catalog, &op.CatalogPos)
	if op.Catalog == "" {
		c, ok := f["catalog"]
		switch {
		case !ok:
			r.bad(n, "%s: catalog is missing: name the catalog image to mirror", path)
		case c.value.Tag == "!!str":
			r.bad(c.value, "%s.catalog is empty: name the catalog image to mirror", path)
		}
		op.CatalogPos = op.Pos
	}
	r.strField(path, f, "targetCatalog", &op.TargetCatalog, &op.TargetCatalogPos)
	r.strField(path, f, "targetTag", &op.TargetTag, &op.TargetTagPos)
	if fu, ok := f["full"]; ok {
		op.Full, op.FullPos = r.boolean(path+".full", fu), r.at(fu.value)
	}
	for _, name := range []string{"skipDependencies", "targetCatalogSourceTemplate", "platforms"} {
		if x, ok := f[name]; ok && !empty(x.value) {
			why := map[string]string{
				"skipDependencies":            "fbc adds dependencies only with --with-dependencies",
				"targetCatalogSourceTemplate": "the CatalogSource is written as oc-mirror writes it without a template",
				"platforms":                   "fbc copies no image; images.txt lists each image whole",
			}[name]
			cfg.Ignored = append(cfg.Ignored, Ignored{Field: path + "." + name, Pos: r.at(x.key), Why: why})
		}
	}
	if ps, ok := f["packages"]; ok {
		for j, pn := range r.list(path+".packages", ps) {
			if p, ok := r.pkg(fmt.Sprintf("%s.packages[%d]", path, j), pn); ok {
				op.Packages = append(op.Packages, p)
			}
		}
	}
	cfg.Operators = append(cfg.Operators, op)
}

func (r *configReader) pkg(path string, n *declcfg.Node) (Package, bool) {
	if !r.object(path, n) {
		return Package{}, false
	}
	p := Package{Pos: r.at(n), NamePos: r.at(n)}
	f := r.fields(path, n, "name", "channels", "defaultChannel", "minVersion", "maxVersion")
	r.strField(path, f, "name", &p.Name, &p.NamePos)
	r.strField(path, f, "defaultChannel", &p.DefaultChannel, &p.DefaultChannelPos)
	r.strField(path, f, "minVersion", &p.MinVersion, &p.MinVersionPos)
	r.strField(path, f, "maxVersion", &p.MaxVersion, &p.MaxVersionPos)
	if cs, ok := f["channels"]; ok {
		for k, cn := range r.list(path+".channels", cs) {
			cpath := fmt.Sprintf("%s.channels[%d]", path, k)
			if !r.object(cpath, cn) {
				continue
			}
			c := Channel{Pos: r.at(cn), NamePos: r.at(cn)}
			cf := r.fields(cpath, cn, "name", "minVersion", "maxVersion")
			r.strField(cpath, cf, "name", &c.Name, &c.NamePos)
			r.strField(cpath, cf, "minVersion", &c.MinVersion, &c.MinVersionPos)
			r.strField(cpath, cf, "maxVersion", &c.MaxVersion, &c.MaxVersionPos)
			p.Channels = append(p.Channels, c)
		}
	}
	return p, true
}

// validate applies oc-mirror's checks of operator catalogs (its
// config.Validate, then catalog-filter's FilterConfiguration.Validate), in
// oc-mirror's words, each at the value at fault.
func (r *configReader) validate(cfg *Config) {
	const invalid = "invalid configuration: "
	seen := map[string]Operator{}
	for _, op := range cfg.Operators {
		if first, ok := seen[uniqueName(op)]; ok {
			r.badAt(op.CatalogPos, "%scatalog %q: duplicate found in configuration (first at line %d)", invalid, op.Catalog, first.CatalogPos.Line)
		} else {
			seen[uniqueName(op)] = op
		}
		pkgs := map[string]bool{}
		for i, p := range op.Packages {
			if pkgs[p.Name] && p.Name != "" {
				r.badAt(p.NamePos, "%scatalog %q: duplicate package entry %q", invalid, op.Catalog, p.Name)
			}
			pkgs[p.Name] = true
			if p.MaxVersion != "" && !looseSemver(p.MaxVersion) {
				r.badAt(p.MaxVersionPos, "%scatalog %q: operator %q: maxVersion %q must respect semantic versioning notation", invalid, op.Catalog, p.Name, p.MaxVersion)
			}
			if p.MinVersion != "" && !looseSemver(p.MinVersion) {
				r.badAt(p.MinVersionPos, "%scatalog %q: operator %q: minVersion %q must respect semantic versioning notation", invalid, op.Catalog, p.Name, p.MinVersion)
			}
			chans := map[string]bool{}
			for j, c := range p.Channels {
				if chans[c.Name] && c.Name != "" {
					r.badAt(c.NamePos, "%scatalog %q: operator %q: duplicate channel entry %q", invalid, op.Catalog, p.Name, c.Name)
				}
				chans[c.Name] = true
				if c.MaxVersion != "" && !looseSemver(c.MaxVersion) {
					r.badAt(c.MaxVersionPos, "%scatalog %q: operator %q: channel %q: maxVersion %q must respect semantic versioning notation", invalid, op.Catalog, p.Name, c.Name, c.MaxVersion)
				}
				if c.MinVersion != "" && !looseSemver(c.MinVersion) {
					r.badAt(c.MinVersionPos, "%scatalog %q: operator %q: channel %q: minVersion %q must respect semantic versioning notation", invalid, op.Catalog, p.Name, c.Name, c.MinVersion)
				}
				if c.hasRange() && p.hasRange() {
					r.badAt(rangePos(c.MinVersionPos, c.MaxVersionPos), "%scatalog %q: operator %q: mixing both filtering by minVersion/maxVersion and filtering by channel minVersion/maxVersion is not allowed", invalid, op.Catalog, p.Name)
				}
				if c.Name == "" {
					r.badAt(c.Pos, "failed to validate catalog filter: package %q at index [%d] is invalid: channel %q at index [%d] is invalid: name must be specified", p.Name, i, c.Name, j)
				}
			}
			if p.Name == "" {
				r.badAt(p.Pos, "failed to validate catalog filter: package %q at index [%d] is invalid: name must be specified", p.Name, i)
			}
		}
	}
}

// looseSemver is oc-mirror's test of minVersion and maxVersion: Masterminds
// NewVersion, which takes "v1.2" and "1.2" as well as "1.2.3".
func looseSemver(s string) bool {
	_, err := mmsemver.NewVersion(s)
	return err == nil
}

// uniqueName is how catalogs are told apart, as oc-mirror tells them: the
// reference (docker:// or not) and the target it is given.
func uniqueName(op Operator) string {
	name := strings.TrimPrefix(op.Catalog, "docker://")
	if op.TargetCatalog != "" || op.TargetTag != "" {
		name += " (targetCatalog " + op.TargetCatalog + ", targetTag " + op.TargetTag + ")"
	}
	return name
}
