package validate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate/internal/yamllint"
)

// RuleYAMLLint is the pipelines' YAML linter over a bundle folder
// (operator-pipelines' yaml-lint task).
const RuleYAMLLint = "yamllint"

// bundlePlan is what the repository rules read of a bundle folder besides
// the bundle checks: whether the pipelines lint it, and whether the update
// graph of its operator reads its ClusterServiceVersion and annotations.
// Both read the bytes the bundle checks read (and the release-config.yaml
// the settings rules read), so that each file of the folder is read once.
type bundlePlan struct {
	lint, graph bool
	// known are the folder's files already read, by their path in the
	// folder (slash-separated).
	known map[string][]byte
	// kept are, for the graph, the ClusterServiceVersion and annotations
	// as the bundle checks read them.
	kept map[string][]byte
}

// bundleSources lists the bundles a run checks: Options.Bundles and the
// bundle directories of Options.Operators, each once however many times
// it is named, with the plan of each folder (by every name it was given).
// The pipelines lint the bundle folder of a pull request: with a target
// release, a bundle directory given is one; in an operator's folder, a
// bundle with release-config.yaml is the one being released.
func (c *checker) bundleSources(ops []*operatorCheck) ([]string, map[string]*bundlePlan) {
	var refs []string
	plans := map[string]*bundlePlan{}
	first := map[string]string{} // a folder's absolute path, or an image reference: its first name
	add := func(ref string) *bundlePlan {
		id := ref
		if isDir(ref) {
			if abs, err := filepath.Abs(ref); err == nil {
				id = abs
			}
		}
		name, ok := first[id]
		if !ok {
			name = ref
			first[id] = ref
			refs = append(refs, ref)
			plans[ref] = &bundlePlan{known: map[string][]byte{}}
		}
		plans[ref] = plans[name]
		return plans[name]
	}
	for _, b := range c.opts.Bundles {
		p := add(b)
		p.lint = p.lint || c.opts.TargetOCP != nil && isDir(b)
	}
	for _, oc := range ops {
		for _, b := range oc.folder.Bundles {
			if c.opts.Changed != nil && !c.opts.Changed(b.Dir) {
				continue
			}
			p := add(b.Dir)
			p.graph = p.graph || oc.graph
			if rc := b.ReleaseConfig; rc != nil {
				p.lint = true
				if rc.Data != nil {
					p.known[repo.ReleaseConfigFile] = rc.Data
				}
			}
		}
	}
	return refs, plans
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// bundleFolder applies the repository rules that read a bundle folder,
// once the bundle checks have read it (read is nil when they could not).
func (c *fileCheck) bundleFolder(dir string, read *BundleContents, p *bundlePlan) {
	if !p.lint && !p.graph {
		return
	}
	if read != nil {
		for _, f := range read.Files {
			if rel, err := filepath.Rel(dir, f.Name); err == nil && !strings.HasPrefix(rel, "..") {
				p.known[filepath.ToSlash(rel)] = f.Data
			}
		}
	}
	if p.lint {
		c.lintBundle(dir, p.known)
	}
	if p.graph {
		p.kept = map[string][]byte{}
		for rel, data := range p.known {
			if rel == "metadata/annotations.yaml" || strings.HasPrefix(rel, "manifests/") && isCSVName(rel) {
				p.kept[rel] = data
			}
		}
	}
	p.known = nil
}

func isCSVName(name string) bool {
	return strings.HasSuffix(name, ".clusterserviceversion.yaml") || strings.HasSuffix(name, ".clusterserviceversion.yml")
}

// lintBundle applies the YAML linter the community and certified pipelines
// run over the bundle folder of a pull request (yamllint with its default
// rules; validate/internal/yamllint) to every YAML file of a bundle folder,
// as yamllint picks them (*.yaml, *.yml, .yamllint): the bytes already
// read where known has them (by path in the folder), the file otherwise.
// Its errors fail the pipeline; its warnings do not and are left out.
func (c *fileCheck) lintBundle(dir string, known map[string][]byte) {
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			return nil // an unreadable folder or a special file is the bundle checks' finding
		}
		name := e.Name()
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && name != ".yamllint" {
			return nil
		}
		data, ok := []byte(nil), false
		if rel, err := filepath.Rel(dir, path); err == nil {
			data, ok = known[filepath.ToSlash(rel)]
		}
		if !ok {
			if data, err = safefs.ReadFile(path); err != nil {
				c.add(declcfg.RuleIO, declcfg.Pos{File: path}, blobRef{}, fmt.Sprintf("reading %s: %v", name, err))
				return nil
			}
		}
		for _, f := range yamllint.Lint(path, data) {
			c.add(RuleYAMLLint, f.Pos, blobRef{}, fmt.Sprintf("%s (%s): the pipelines' yaml-lint step fails on it", f.Message, f.Rule))
		}
		return nil
	})
}
