package validate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/yamllint"
)

// RuleYAMLLint is the pipelines' YAML linter over a bundle folder
// (operator-pipelines' yaml-lint task).
const RuleYAMLLint = "yamllint"

// lintBundle applies the YAML linter the community and certified pipelines
// run over the bundle folder of a pull request (yamllint with its default
// rules; validate/internal/yamllint) to every YAML file of a bundle folder,
// as yamllint picks them (*.yaml, *.yml, .yamllint). Its errors fail the
// pipeline; its warnings do not and are left out.
func (c *checker) lintBundle(dir string) {
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil // an unreadable folder is the bundle checks' finding
		}
		name := e.Name()
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && name != ".yamllint" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			c.add(declcfg.RuleIO, declcfg.Pos{File: path}, blobRef{}, fmt.Sprintf("reading %s: %v", name, err))
			return nil
		}
		for _, p := range yamllint.Lint(data) {
			c.add(RuleYAMLLint, declcfg.Pos{File: path, Line: p.Line, Col: p.Column}, blobRef{},
				fmt.Sprintf("%s (%s): the pipelines' yaml-lint step fails on it", p.Message, p.Rule))
		}
		return nil
	})
}
