package declcfg

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// MinorVersion is a MAJOR.MINOR release: an OpenShift release (4.18, as
// olm.maxOpenShiftVersion and an operator repository's catalogs/v4.18 name
// it) or a Kubernetes minor (1.31). It is the one type fbc keeps releases
// in: parsed, printed and compared here.
type MinorVersion struct{ Major, Minor uint64 }

// ParseMinorVersion reads MAJOR.MINOR, with an optional leading v (the
// catalogs' folder names): decimal numbers without signs, spaces or
// leading zeros.
func ParseMinorVersion(s string) (MinorVersion, error) {
	t := strings.TrimPrefix(s, "v")
	ma, mi, ok := strings.Cut(t, ".")
	major, err1 := parseReleaseNumber(ma)
	minor, err2 := parseReleaseNumber(mi)
	if !ok || err1 != nil || err2 != nil {
		return MinorVersion{}, fmt.Errorf("%q is not MAJOR.MINOR, such as 4.18", s)
	}
	return MinorVersion{major, minor}, nil
}

func parseReleaseNumber(s string) (uint64, error) {
	if s == "" || len(s) > 1 && s[0] == '0' || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(s, 10, 64)
}

func (v MinorVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Compare is -1, 0 or 1 as v is lower than, equal to or higher than o.
func (v MinorVersion) Compare(o MinorVersion) int {
	return cmp.Or(cmp.Compare(v.Major, o.Major), cmp.Compare(v.Minor, o.Minor))
}

// Less reports whether v is an earlier release than o.
func (v MinorVersion) Less(o MinorVersion) bool { return v.Compare(o) < 0 }

// AtLeast reports whether v is o or a later release.
func (v MinorVersion) AtLeast(o MinorVersion) bool { return v.Compare(o) >= 0 }
