package repo

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Config is the repository's config.yaml, as far as fbc reads it. Root
// keeps the whole document for checks beyond what fbc reads.
type Config struct {
	File string
	Root *declcfg.Node
	// Organization is community-operators, certified-operators or
	// redhat-marketplace; "" when not written.
	Organization string
	// AllowedBundleRegistries are the registry prefixes bundle images may
	// come from (allowed_bundle_registries).
	AllowedBundleRegistries []string
	// Tests are the static tests skipped for some operators (tests:
	// name and ignore_operators), as the pipelines read them.
	Tests []ConfigTest
	// Warnings are what the file does that the pipelines accept but
	// should not be left so: keys written twice in a mapping (the last
	// counts).
	Warnings Problems
}

// ParseConfig reads config.yaml, checking the types of what fbc reads.
func ParseConfig(file string, data []byte) (*Config, error) {
	return configOf(declcfg.ParseFile(file, data))
}

func configOf(f *declcfg.File) (*Config, error) {
	d, err := parseDoc(f)
	if err != nil {
		return nil, err
	}
	file := f.Path
	c := &Config{File: file, Root: d.root, Warnings: d.warnings}
	if k, v := declcfg.PipelineKeys.Lookup(d.root, "organization"); k != nil {
		c.Organization, _ = d.str(v, "organization")
	}
	if k, v := declcfg.PipelineKeys.Lookup(d.root, "allowed_bundle_registries"); k != nil && !declcfg.IsNull(v) {
		c.AllowedBundleRegistries, _, _ = d.strings(v, "allowed_bundle_registries")
	}
	if k, v := declcfg.PipelineKeys.Lookup(d.root, "tests"); k != nil && !declcfg.IsNull(v) {
		c.Tests = d.tests(v)
	}
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	return c, nil
}

// ConfigTest is an item of config.yaml's tests: a static test and the
// operators it skips (Python regular expressions, matched from the start
// of the operator's name, as re.match does).
type ConfigTest struct {
	Name            string
	IgnoreOperators []string
}

func (d *doc) tests(n *declcfg.Node) []ConfigTest {
	if n.Kind != declcfg.SequenceNode {
		d.problem(n, "tests must be a list, not %s", kindName(n))
		return nil
	}
	var out []ConfigTest
	for i, it := range n.Content {
		it = declcfg.Deref(it)
		if it.Kind != declcfg.MappingNode {
			d.problem(it, "tests[%d] must be a mapping, not %s", i, kindName(it))
			continue
		}
		var t ConfigTest
		if k, v := declcfg.PipelineKeys.Lookup(it, "name"); k != nil {
			t.Name, _ = d.str(v, fmt.Sprintf("tests[%d].name", i))
		}
		if k, v := declcfg.PipelineKeys.Lookup(it, "ignore_operators"); k != nil && !declcfg.IsNull(v) {
			t.IgnoreOperators, _, _ = d.strings(v, fmt.Sprintf("tests[%d].ignore_operators", i))
		}
		out = append(out, t)
	}
	return out
}

// Ignores reports whether config.yaml skips static test test for
// operator, as the pipelines match ignore_operators (re.match: from the
// start of the name). A pattern Go cannot read is taken literally.
func (c *Config) Ignores(test, operator string) bool {
	if c == nil {
		return false
	}
	for _, t := range c.Tests {
		if t.Name != test {
			continue
		}
		for _, p := range t.IgnoreOperators {
			re, err := regexp.Compile(`^(?:` + p + `)`)
			if err != nil {
				if strings.HasPrefix(operator, p) {
					return true
				}
				continue
			}
			if re.MatchString(operator) {
				return true
			}
		}
	}
	return false
}
