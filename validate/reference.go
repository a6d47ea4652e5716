package validate

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Image references are checked the way opm checks them: as a normalized
// docker reference (the distribution/reference grammar, with docker.io as
// the default registry). go-containerregistry is reserved for package image,
// and its parser is more lenient than opm's, so validate carries this small
// parser of its own.

const (
	refAlnum     = `[a-z0-9]+`
	refSeparator = `(?:[._]|__|[-]+)`
	refComponent = refAlnum + `(?:` + refSeparator + refAlnum + `)*`
	refPath      = refComponent + `(?:/` + refComponent + `)*`
	refDomainCmp = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost      = `(?:` + refDomainCmp + `(?:\.` + refDomainCmp + `)*|\[(?:[a-fA-F0-9:]+)\])`
	refDomain    = refHost + `(?::[0-9]+)?`
	refTag       = `[\w][\w.-]{0,127}`
	refDigest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
)

var (
	referenceRE = regexp.MustCompile(`^((?:` + refDomain + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	hex64RE     = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// digestLengths are the hex lengths of the digest algorithms that reference
// parsers accept.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

const maxNameLength = 255

// parseImageReference reports why s is not a valid normalized image
// reference, or nil.
func parseImageReference(s string) error {
	if hex64RE.MatchString(s) {
		return errors.New("a bare 64-character hex string is an image ID, not a reference")
	}
	domain, remainder := splitDockerDomain(s)
	remote := remainder
	if i := strings.IndexByte(remainder, ':'); i >= 0 {
		remote = remainder[:i]
	}
	if strings.ToLower(remote) != remote {
		return fmt.Errorf("repository name %q must be lowercase", remote)
	}
	full := domain + "/" + remainder
	m := referenceRE.FindStringSubmatch(full)
	if m == nil {
		if referenceRE.MatchString(strings.ToLower(full)) {
			return errors.New("repository name must be lowercase")
		}
		return errors.New("invalid reference format")
	}
	if len(m[1]) > maxNameLength {
		return fmt.Errorf("repository name is longer than %d characters", maxNameLength)
	}
	if dg := m[3]; dg != "" {
		alg, hex, _ := strings.Cut(dg, ":")
		want, ok := digestLengths[alg]
		switch {
		case !ok:
			return fmt.Errorf("unsupported digest algorithm %q", alg)
		case len(hex) != want || strings.ToLower(hex) != hex:
			return fmt.Errorf("invalid %s digest: want %d lowercase hex digits", alg, want)
		}
	}
	return nil
}

// splitDockerDomain separates the registry from the rest, defaulting to
// docker.io (and its library/ namespace) the way docker does.
func splitDockerDomain(name string) (domain, remainder string) {
	i := strings.IndexByte(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost" && strings.ToLower(name[:i]) == name[:i]) {
		domain, remainder = "docker.io", name
	} else {
		domain, remainder = name[:i], name[i+1:]
	}
	if domain == "index.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.ContainsRune(remainder, '/') {
		remainder = "library/" + remainder
	}
	return domain, remainder
}
