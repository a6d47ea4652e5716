// Package buildinfo says which build of fbc is running: the version and
// VCS revision the executable was built from. fbc and fbc-profile compare
// theirs before they talk (validate/profiles), so it is one definition for
// both executables.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// version may be set at link time
// (-ldflags "-X github.com/fbc-project/fbc/internal/buildinfo.version=v1.2.3");
// otherwise the module version from the build info is used.
var version = ""

// Info is what `fbc version` reports.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Read returns the running executable's build information.
func Read() Info {
	v := Info{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

// Identity is what two executables must share to be the same build: the
// version, and the revision with its modified mark when the build info
// has one ("v1.2.3", "(devel) 0a1b2c3d4e5f+modified").
func (i Info) Identity() string {
	id := i.Version
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		id += " " + rev
		if i.Modified {
			id += "+modified"
		}
	}
	return id
}

// Devel reports whether the build has no release version (a build from a
// checkout), so that a matching plugin is installed from the checkout, not
// with go install ...@VERSION.
func (i Info) Devel() bool {
	return i.Version == "(devel)" || i.Version == ""
}
