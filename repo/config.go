package repo

import "github.com/fbc-project/fbc/declcfg"

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
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	return c, nil
}
