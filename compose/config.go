package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// CatalogConfig is a catalog configuration file: the catalog's name, the
// image it is published as (Repo:Tag) and the catalogs it is made of, each
// rendered into its own folder. The shape is the one OpenShift's
// documentation uses for composing a catalog from operator catalogs.
type CatalogConfig struct {
	Name       string      `yaml:"name"`
	Repo       string      `yaml:"repo"`
	Tag        string      `yaml:"tag"`
	References []Reference `yaml:"references"`

	// File is the path the config was read from; relative local references
	// are taken from its folder.
	File string `yaml:"-"`
}

// Reference is one catalog of a CatalogConfig.
type Reference struct {
	// Name is the folder the reference is written to.
	Name string `yaml:"name"`
	// Image is a catalog image reference, or a local catalog directory or
	// file (relative paths from the config file's folder).
	Image string `yaml:"image"`

	Pos declcfg.Pos `yaml:"-"`
}

// ImageRef is the reference the composed catalog is published as, or "" if
// the config names no repository.
func (c *CatalogConfig) ImageRef() string {
	switch {
	case c.Repo == "":
		return ""
	case c.Tag == "":
		return c.Repo
	}
	return c.Repo + ":" + c.Tag
}

// ConfigError is a problem with a catalog config file, at a position.
type ConfigError struct {
	Pos declcfg.Pos
	Msg string
}

// FaultKind is Input: the config is at fault.
func (e *ConfigError) FaultKind() fault.Kind { return fault.Input }

func (e *ConfigError) Error() string { return e.Pos.Prefix(e.Msg) }

// ReadConfig reads and checks a catalog config file (YAML or JSON). Unknown
// keys are errors, so that a misspelt "refrences" is not silently an empty
// catalog.
func ReadConfig(file string) (*CatalogConfig, error) {
	data, err := safefs.ReadInput(context.Background(), file, 0)
	if err != nil {
		return nil, fmt.Errorf("reading catalog config: %w", err)
	}
	return ParseConfig(file, data)
}

// ParseConfig parses a catalog config; file names it in errors.
func ParseConfig(file string, data []byte) (*CatalogConfig, error) {
	docs, err := declcfg.ParseYAML(data)
	if err != nil {
		return nil, &ConfigError{Pos: declcfg.Pos{File: file}, Msg: "not valid YAML: " + err.Error()}
	}
	if len(docs) == 0 || docs[0].Node == nil {
		return nil, &ConfigError{Pos: declcfg.Pos{File: file}, Msg: "empty catalog config: it needs name and references"}
	}
	doc := docs[0].Node
	at := func(n *declcfg.Node) declcfg.Pos { return declcfg.Pos{File: file, Line: n.Line, Col: n.Column} }
	if doc.Kind != declcfg.MappingNode {
		return nil, &ConfigError{Pos: at(doc), Msg: "a catalog config is an object with name, repo, tag and references"}
	}
	cfg := &CatalogConfig{File: file}
	var problems []*ConfigError
	bad := func(n *declcfg.Node, format string, args ...any) {
		problems = append(problems, &ConfigError{Pos: at(n), Msg: fmt.Sprintf(format, args...)})
	}
	str := func(k, v *declcfg.Node, dst *string) {
		if v.Kind != declcfg.ScalarNode || v.Tag == "!!null" {
			bad(v, "%s must be a string", k.Value)
			return
		}
		*dst = v.Value
	}
	// A key given twice would silently lose one value.
	duplicate := func(m *declcfg.Node, j int) bool {
		for i := 0; i < j; i += 2 {
			if m.Content[i].Value == m.Content[j].Value {
				bad(m.Content[j], "%s is given twice (first at line %d)", m.Content[j].Value, m.Content[i].Line)
				return true
			}
		}
		return false
	}
	var refsNode *declcfg.Node
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], declcfg.Deref(doc.Content[i+1])
		if duplicate(doc, i) {
			continue
		}
		switch k.Value {
		case "name":
			str(k, v, &cfg.Name)
		case "repo":
			str(k, v, &cfg.Repo)
		case "tag":
			str(k, v, &cfg.Tag)
		case "references":
			refsNode = v
		default:
			bad(k, "unknown key %q (a catalog config has name, repo, tag and references)", k.Value)
		}
	}
	if cfg.Name == "" {
		bad(doc, "name is missing")
	}
	if cfg.Tag != "" && cfg.Repo == "" {
		bad(doc, "tag %q is set but repo is not", cfg.Tag)
	}
	if last := cfg.Repo[strings.LastIndex(cfg.Repo, "/")+1:]; strings.ContainsAny(cfg.Repo, "@ \t") || strings.Contains(last, ":") {
		bad(doc, "repo %q must be a repository without tag or digest (the tag goes in tag)", cfg.Repo)
	}
	switch {
	case refsNode == nil:
		bad(doc, "references is missing: list the catalogs to compose as {name, image}")
	case refsNode.Kind != declcfg.SequenceNode:
		bad(refsNode, "references must be a list of {name, image}")
	case len(refsNode.Content) == 0:
		bad(refsNode, "references is empty: list the catalogs to compose as {name, image}")
	}
	seen := map[string]declcfg.Pos{}
	if refsNode != nil && refsNode.Kind == declcfg.SequenceNode {
		for i, rn := range refsNode.Content {
			rn = declcfg.Deref(rn)
			if rn.Kind != declcfg.MappingNode {
				bad(rn, "references[%d] must be an object with name and image", i)
				continue
			}
			ref := Reference{Pos: at(rn)}
			for j := 0; j+1 < len(rn.Content); j += 2 {
				k, v := rn.Content[j], declcfg.Deref(rn.Content[j+1])
				if duplicate(rn, j) {
					continue
				}
				switch k.Value {
				case "name":
					str(k, v, &ref.Name)
				case "image":
					str(k, v, &ref.Image)
				default:
					bad(k, "references[%d]: unknown key %q (a reference has name and image)", i, k.Value)
				}
			}
			switch {
			case ref.Name == "":
				bad(rn, "references[%d]: name is missing", i)
			case declcfg.CheckPackageName(ref.Name) != nil:
				bad(rn, "references[%d]: name %q is not a valid folder name: use lowercase letters, digits and '-'", i, ref.Name)
			case seen[ref.Name].IsValid():
				bad(rn, "references[%d]: name %q is used twice (first at line %d): each reference gets its own folder", i, ref.Name, seen[ref.Name].Line)
			default:
				seen[ref.Name] = ref.Pos
			}
			if ref.Image == "" {
				bad(rn, "references[%d]: image is missing", i)
			}
			cfg.References = append(cfg.References, ref)
		}
	}
	if len(docs) > 1 {
		problems = append(problems, &ConfigError{Pos: declcfg.Pos{File: file, Line: declcfg.DocumentStart(data, docs[1].Pos.Line), Col: 1},
			Msg: "a catalog config is one document; remove the extra ones"})
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b *ConfigError) int {
			if a.Pos.Line != b.Pos.Line {
				return a.Pos.Line - b.Pos.Line
			}
			return a.Pos.Col - b.Pos.Col
		})
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p
		}
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// resolve returns where a reference's catalog is: a local directory or file
// (relative paths taken from the config's folder) when one exists or when
// the value is written as a path (./x, ../x, /x), else the image reference
// as written.
func (c *CatalogConfig) resolve(ref Reference) (loc string, local bool, err error) {
	p := ref.Image
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(c.File), p)
	}
	_, serr := os.Stat(p)
	switch {
	case serr == nil:
		return p, true, nil
	case looksLikePath(ref.Image):
		return "", false, &ConfigError{Pos: ref.Pos, Msg: fmt.Sprintf("reference %q: %s: %v", ref.Name, p, unwrapPathError(serr))}
	}
	return ref.Image, false, nil
}

// looksLikePath tells paths from image references for sources that do not
// exist: explicit relative or absolute paths, a trailing slash, and catalog
// file names, none of which an image reference has.
func looksLikePath(s string) bool {
	switch {
	case filepath.IsAbs(s), s == ".", s == "..", strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), strings.HasSuffix(s, "/"):
		return true
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".json", ".yaml", ".yml":
		return !strings.Contains(s, ":") && !strings.Contains(s, "@")
	}
	return false
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
