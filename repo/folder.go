package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// Settings is a settings file of an operator repository (ci.yaml,
// release-config.yaml, config.yaml) read once and parsed once for every
// check that reads it: validate's repository rules check its syntax and
// the pipelines' schema on File, and CI, ReleaseConfig and Config read
// fbc's values from the same tree.
type Settings struct {
	// Path names the file as messages do.
	Path string
	// Missing is set when there is no such file, Err when it could not be
	// read; File is nil then.
	Missing bool
	Err     error
	// Data is the file's text and File the file parsed: its documents'
	// trees and the problems parsing found.
	Data []byte
	File *declcfg.File
}

// ReadSettings reads and parses the settings file at path, naming it
// shown. A special file (a FIFO) is not waited on: it cannot be read.
func ReadSettings(path, shown string) *Settings {
	s := &Settings{Path: shown}
	data, err := safefs.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.Missing = true
	case err != nil:
		s.Err = err
	default:
		s.Data, s.File = data, declcfg.ParseFile(shown, data)
	}
	return s
}

// unread is the error of a file that was not read: a *MissingError when
// it is not there.
func (s *Settings) unread(what string) error {
	if s.Missing {
		return &MissingError{Path: s.Path, What: what}
	}
	return fault.Wrap(fault.Run, fmt.Errorf("reading %s: %w", s.Path, s.Err))
}

// CI reads the file as ci.yaml (see ParseCI).
func (s *Settings) CI() (*CI, error) {
	if s.File == nil {
		return nil, s.unread("the operator's CI settings")
	}
	return ciOf(s.File)
}

// ReleaseConfig reads the file as release-config.yaml (see
// ParseReleaseConfig).
func (s *Settings) ReleaseConfig() (*ReleaseConfig, error) {
	if s.File == nil {
		return nil, s.unread("the bundle's release settings")
	}
	return releaseConfigOf(s.File)
}

// Config reads the file as the repository's config.yaml (see
// ParseConfig).
func (s *Settings) Config() (*Config, error) {
	if s.File == nil {
		return nil, s.unread("the repository's settings")
	}
	return configOf(s.File)
}

// Folder is an operator's folder as a check of the whole folder reads it
// (fbc validate operators/NAME): what it holds, its ci.yaml and each
// bundle directory's release-config.yaml, every settings file read once
// for all the checks that read it.
type Folder struct {
	*Operator
	// Shown is the folder as it was named; the paths of CI and Bundles are
	// under it.
	Shown   string
	Entries []Entry
	// CI is ci.yaml (ci.yml when only that exists).
	CI *Settings
	// Bundles are the bundle directories, in name order.
	Bundles []FolderBundle
}

// FolderBundle is a bundle directory of an operator's folder.
type FolderBundle struct {
	// Dir is the directory, under Folder.Shown.
	Dir string
	// ReleaseConfig is its release-config.yaml, nil when it has none. The
	// pipelines look for that name only (operator_repo's
	// Bundle.release_config): a release-config.yml is not read.
	ReleaseConfig *Settings
}

// ReadFolder reads the operator's folder dir (operators/NAME itself, not a
// folder inside it): its entries, ci.yaml and the release-config.yaml of
// each bundle directory.
func ReadFolder(dir string) (*Folder, error) {
	op, err := OperatorOf(dir)
	if err != nil {
		return nil, err
	}
	if !sameDir(dir, op.Dir) {
		return nil, fault.Errorf(fault.Usage, "%s is inside the folder of operator %s, not the folder itself (%s)", dir, op.Name, op.Dir)
	}
	entries, err := op.Entries()
	if err != nil {
		return nil, err
	}
	f := &Folder{Operator: op, Shown: dir, Entries: entries}
	f.CI = ReadSettings(op.CIPath(), f.Show(op.CIPath()))
	for _, e := range entries {
		if e.Kind != BundleDir {
			continue
		}
		b := FolderBundle{Dir: f.Show(e.Path)}
		rc := filepath.Join(e.Path, ReleaseConfigFile)
		if st, err := os.Stat(rc); err == nil && !st.IsDir() {
			b.ReleaseConfig = ReadSettings(rc, filepath.Join(b.Dir, ReleaseConfigFile))
		}
		f.Bundles = append(f.Bundles, b)
	}
	return f, nil
}

// Show names a path of the operator's folder (absolute, as Entries have
// them) under the folder as it was named.
func (f *Folder) Show(abs string) string {
	rel, err := filepath.Rel(f.Dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.Join(f.Shown, rel)
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
