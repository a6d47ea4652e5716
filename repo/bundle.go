package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// CSV is what fbc reads of a bundle directory's ClusterServiceVersion.
type CSV struct {
	File    string
	Name    string // metadata.name
	NamePos declcfg.Pos
	Version string // spec.version, "" when not written
}

// NoCSVError is a version folder whose manifests/ holds no
// *.clusterserviceversion.yaml.
type NoCSVError struct {
	Dir string
}

func (e *NoCSVError) Error() string {
	return fmt.Sprintf("%s has no ClusterServiceVersion: no manifests/*.clusterserviceversion.yaml", e.Dir)
}

// FaultKind is Input: the bundle is at fault.
func (e *NoCSVError) FaultKind() fault.Kind { return fault.Input }

// CSVPath finds a bundle directory's CSV the way the pipelines do: the
// first manifests/*.clusterserviceversion.yaml, then .yml (by name).
func CSVPath(bundleDir string) (string, error) {
	if !IsBundleDir(bundleDir) {
		return "", fault.Errorf(fault.Input, "%s is not a bundle directory: it needs manifests/ and metadata/", bundleDir)
	}
	for _, ext := range []string{".yaml", ".yml"} {
		m, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "*.clusterserviceversion"+ext))
		if err != nil {
			return "", err
		}
		sort.Strings(m)
		if len(m) > 0 {
			return m[0], nil
		}
	}
	return "", &NoCSVError{Dir: bundleDir}
}

// ReadCSV reads a bundle directory's CSV name and version.
func ReadCSV(bundleDir string) (*CSV, error) {
	p, err := CSVPath(bundleDir)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	d, err := parseDoc(declcfg.ParseFile(p, data))
	if err != nil {
		return nil, err
	}
	csv := &CSV{File: p}
	_, md := declcfg.PipelineKeys.Lookup(d.root, "metadata")
	k, name := declcfg.PipelineKeys.Lookup(md, "name")
	switch {
	case d.root == nil:
		d.problem(nil, "is empty: a ClusterServiceVersion has metadata.name")
	case k == nil:
		d.problem(d.root, "has no metadata.name")
	default:
		if s, ok := d.str(name, "metadata.name"); ok {
			csv.Name, csv.NamePos = s, d.at(name)
			if strings.TrimSpace(s) == "" {
				d.problem(name, "metadata.name is empty")
			}
		}
	}
	_, spec := declcfg.PipelineKeys.Lookup(d.root, "spec")
	if k, v := declcfg.PipelineKeys.Lookup(spec, "version"); k != nil && v.Kind == declcfg.ScalarNode {
		csv.Version = v.Value
	}
	if len(d.ps) > 0 {
		return nil, d.ps
	}
	return csv, nil
}
