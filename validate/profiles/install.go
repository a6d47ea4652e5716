package profiles

import (
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
)

// NotInstalledError is an fbc without its fbc-profile: neither next to fbc
// (Dir, when known) nor on PATH.
type NotInstalledError struct{ Dir string }

func (e *NotInstalledError) Error() string {
	return "the bundle-content profiles need " + e.Detail()
}

// Detail says where fbc looked and how to install fbc-profile.
func (e *NotInstalledError) Detail() string {
	where := "on PATH"
	if e.Dir != "" {
		where = "next to fbc (" + e.Dir + ") or on PATH"
	}
	v := buildinfo.Read()
	install := "go install " + Package + "@" + v.Version
	if v.Devel() {
		install = "make install (or go install ./cmd/fbc-profile) in the fbc checkout this fbc was built from"
	}
	return Executable + ", which is not " + where + "; install it: " + install
}

// FaultKind is Run: the installation is incomplete, the input is not at
// fault.
func (e *NotInstalledError) FaultKind() fault.Kind { return fault.Run }

// Package is fbc-profile's import path, for go install.
const Package = "github.com/fbc-project/fbc/cmd/fbc-profile"
