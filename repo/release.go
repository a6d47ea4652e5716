package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fbc-project/fbc/declcfg"
)

// ReleaseConfig is a bundle's release-config.yaml: which catalog templates
// the release bot adds the bundle to, in which channels, with which edges.
// Root keeps the whole document for checks beyond what fbc reads.
type ReleaseConfig struct {
	File      string
	Root      *declcfg.Node
	Templates []ReleaseTemplate
	// Warnings are what the file does that the pipelines accept but
	// should not be left so: keys written twice in a mapping (the last
	// counts).
	Warnings Problems
}

// ReleaseTemplate is one item of catalog_templates.
type ReleaseTemplate struct {
	Pos declcfg.Pos
	// Node is the item, for copying its values as written.
	Node        *declcfg.Node
	Template    string
	TemplatePos declcfg.Pos
	Channels    []string
	ChannelPos  []declcfg.Pos
	// DefaultChannel is "" when not written.
	DefaultChannel    string
	DefaultChannelPos declcfg.Pos
	// Replaces, Skips and SkipRange are the item's values, nil when the
	// key is not written.
	Replaces  *declcfg.Node
	Skips     *declcfg.Node
	SkipRange *declcfg.Node
}

// ReleaseConfigPath is where a bundle directory's release-config.yaml is
// (release-config.yml when only that exists, as the pipelines read it).
func ReleaseConfigPath(bundleDir string) string {
	return findYAML(filepath.Join(bundleDir, ReleaseConfigFile))
}

// LoadReleaseConfig reads a bundle directory's release-config.yaml. A
// missing file is a *MissingError.
func LoadReleaseConfig(bundleDir string) (*ReleaseConfig, error) {
	p := ReleaseConfigPath(bundleDir)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingError{Path: p, What: "the bundle's release settings, which say which catalog templates it goes to"}
	}
	if err != nil {
		return nil, err
	}
	return ParseReleaseConfig(p, data)
}

// ParseReleaseConfig reads release-config.yaml, checking what the release
// needs: catalog_templates a non-empty list of mappings, each with
// template_name a string and channels a non-empty list of strings, and
// defaultChannel, replaces and skipRange strings, skips a list of strings
// when written. operator-pipelines' schema is a check of its own.
func ParseReleaseConfig(file string, data []byte) (*ReleaseConfig, error) {
	return releaseConfigOf(declcfg.ParseFile(file, data))
}

func releaseConfigOf(f *declcfg.File) (*ReleaseConfig, error) {
	d, err := parseDoc(f)
	if err != nil {
		return nil, err
	}
	file := f.Path
	rc := &ReleaseConfig{File: file, Root: d.root, Warnings: d.warnings}
	k, v := declcfg.PipelineKeys.Lookup(d.root, "catalog_templates")
	switch {
	case d.root == nil:
		d.problem(nil, "is empty: it must list catalog_templates")
	case k == nil:
		d.problem(d.root, "has no catalog_templates: the list of templates the bundle is released to")
	case declcfg.IsNull(v) || v.Kind == declcfg.SequenceNode && len(v.Content) == 0:
		d.problem(v, "catalog_templates is empty")
	case v.Kind != declcfg.SequenceNode:
		d.problem(v, "catalog_templates must be a list, not %s", kindName(v))
	default:
		for i, it := range v.Content {
			if t, ok := d.releaseTemplate(declcfg.Deref(it), i); ok {
				rc.Templates = append(rc.Templates, t)
			}
		}
	}
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	return rc, nil
}

func (d *doc) releaseTemplate(n *declcfg.Node, i int) (ReleaseTemplate, bool) {
	what := fmt.Sprintf("catalog_templates[%d]", i)
	t := ReleaseTemplate{Pos: d.at(n), Node: n}
	if n.Kind != declcfg.MappingNode {
		d.problem(n, "%s must be a mapping (template_name, channels, ...), not %s", what, kindName(n))
		return t, false
	}
	before := len(d.ps)
	if k, v := declcfg.PipelineKeys.Lookup(n, "template_name"); k == nil {
		d.problem(n, "%s has no template_name", what)
	} else if s, ok := d.str(v, what+".template_name"); ok {
		t.Template, t.TemplatePos = s, d.at(v)
		if s == "" {
			d.problem(v, "%s.template_name is empty", what)
		}
	}
	if k, v := declcfg.PipelineKeys.Lookup(n, "channels"); k == nil {
		d.problem(n, "%s has no channels", what)
	} else if cs, pos, ok := d.strings(v, what+".channels"); ok {
		if len(cs) == 0 {
			d.problem(v, "%s.channels is empty: name at least one channel", what)
		}
		t.Channels, t.ChannelPos = cs, pos
	}
	if k, v := declcfg.PipelineKeys.Lookup(n, "defaultChannel"); k != nil {
		if s, ok := d.str(v, what+".defaultChannel"); ok {
			t.DefaultChannel, t.DefaultChannelPos = s, d.at(v)
		}
	}
	if k, v := declcfg.PipelineKeys.Lookup(n, "replaces"); k != nil {
		if _, ok := d.str(v, what+".replaces"); ok {
			t.Replaces = v
		}
	}
	if k, v := declcfg.PipelineKeys.Lookup(n, "skipRange"); k != nil {
		if _, ok := d.str(v, what+".skipRange"); ok {
			t.SkipRange = v
		}
	}
	if k, v := declcfg.PipelineKeys.Lookup(n, "skips"); k != nil {
		if _, _, ok := d.strings(v, what+".skips"); ok {
			t.Skips = v
		}
	}
	return t, len(d.ps) == before
}

// findYAML returns path, or the same name with the other YAML extension
// (.yml for .yaml) when only that exists, as the pipelines look files up.
func findYAML(path string) string {
	if _, err := os.Stat(path); err == nil {
		return path
	}
	ext := filepath.Ext(path)
	alt := ""
	switch ext {
	case ".yaml":
		alt = path[:len(path)-len(ext)] + ".yml"
	case ".yml":
		alt = path[:len(path)-len(ext)] + ".yaml"
	default:
		return path
	}
	if _, err := os.Stat(alt); err == nil {
		return alt
	}
	return path
}
