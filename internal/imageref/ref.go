// Package imageref is the image-reference grammar opm checks bundles with:
// distribution/reference's, docker's (docker.io the default registry, its
// library/ namespace for single names). It is written by hand because it is
// several times faster than a parser library and allocates little (see
// BenchmarkReferenceGrammar in package image, which compares it with
// go-containerregistry's name package, and FuzzReferenceGrammar there, which
// checks that every reference it accepts go-containerregistry reads the same
// way); ref_test.go checks it against the grammar's regular expression.
package imageref

import (
	"errors"
	"fmt"
	"strings"
)

// ErrFormat is the error for a reference the grammar cannot match at all.
var ErrFormat = errors.New("invalid reference format")

// Ref is a reference split into its parts, normalized as docker does.
type Ref struct {
	Domain string // the registry, docker.io when none is named
	Path   string // the repository, library/NAME for a single name on docker.io
	Tag    string // empty when none is given
	Digest string // empty when none is given
}

// Parse splits s into a normalized reference, or says why s is not one.
func Parse(s string) (Ref, error) {
	if isHex64(s) {
		return Ref{}, errors.New("a bare 64-character hex string is an image ID, not a reference")
	}
	domain, remainder := splitDockerDomain(s)
	remote := remainder
	if i := strings.IndexByte(remainder, ':'); i >= 0 {
		remote = remainder[:i]
	}
	if strings.ToLower(remote) != remote {
		return Ref{}, fmt.Errorf("repository name %q must be lowercase", remote)
	}
	full := domain + "/" + remainder
	name, tag, dg, ok := matchReference(full)
	if !ok {
		if _, _, _, ok := matchReference(strings.ToLower(full)); ok {
			return Ref{}, errors.New("repository name must be lowercase")
		}
		return Ref{}, ErrFormat
	}
	if len(name) > maxNameLength {
		return Ref{}, fmt.Errorf("repository name is longer than %d characters", maxNameLength)
	}
	if dg != "" {
		alg, hex, _ := strings.Cut(dg, ":")
		want, ok := digestLengths[alg]
		switch {
		case !ok:
			return Ref{}, fmt.Errorf("unsupported digest algorithm %q", alg)
		case len(hex) != want || strings.ToLower(hex) != hex:
			return Ref{}, fmt.Errorf("invalid %s digest: want %d lowercase hex digits", alg, want)
		}
	}
	return Ref{Domain: domain, Path: name[len(domain)+1:], Tag: tag, Digest: dg}, nil
}

// isHex64 tells an image ID, which reference parsers refuse as a name.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// digestLengths are the hex lengths of the digest algorithms that reference
// parsers accept.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

const maxNameLength = 255

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

// matchReference matches the reference grammar of distribution/reference:
//
//	reference := name [":" tag] ["@" digest]
//	name      := [domain "/"] path-component ["/" path-component]*
//	domain    := host [":" port]      host: DNS labels (any case) or [IPv6]
//	path-component := [a-z0-9]+ (separator [a-z0-9]+)*   separator: . _ __ -+
//	tag       := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//	digest    := algorithm ":" hex{32,}
//
// by hand rather than with its regular expression, which took a measurable
// share of a catalog's check (ref_test.go compares the two).
func matchReference(s string) (name, tag, digest string, ok bool) {
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s, digest = s[:i], s[i+1:]
		if !isDigest(digest) {
			return "", "", "", false
		}
	}
	// A tag follows the last path component; a ':' before the last '/' is
	// a registry port.
	name = s
	last := strings.LastIndexByte(s, '/') + 1
	if i := strings.IndexByte(s[last:], ':'); i >= 0 {
		name, tag = s[:last+i], s[last+i+1:]
		if !isTag(tag) {
			return "", "", "", false
		}
	}
	return name, tag, digest, isName(name)
}

func isName(s string) bool {
	if isPath(s) {
		return true
	}
	i := strings.IndexByte(s, '/')
	return i > 0 && isDomain(s[:i]) && isPath(s[i+1:])
}

func isPath(s string) bool {
	for {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return isPathComponent(s)
		}
		if !isPathComponent(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isPathComponent: alphanumerics joined by ".", "_", "__" or runs of "-".
func isPathComponent(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); {
		if isLowerAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isLowerAlnum(s[j]) {
			j++
		}
		switch sep := s[i:j]; {
		case sep == ".", sep == "_", sep == "__":
		case strings.Trim(sep, "-") == "":
		default:
			return false
		}
		i = j
	}
	return true
}

func isDomain(s string) bool {
	host := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.HasSuffix(s, "]") {
		host = s[:i]
		port := s[i+1:]
		if port == "" {
			return false
		}
		for j := 0; j < len(port); j++ {
			if port[j] < '0' || port[j] > '9' {
				return false
			}
		}
	}
	if strings.HasPrefix(host, "[") {
		inner, ok := strings.CutSuffix(host[1:], "]")
		if !ok || inner == "" {
			return false
		}
		for j := 0; j < len(inner); j++ {
			if c := inner[j]; !(c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for j := 0; j < len(label); j++ {
			if c := label[j]; !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isTag(s string) bool {
	if s == "" || len(s) > 128 || !isWord(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isWord(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// isDigest: [A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)* ":" hex{32,}
func isDigest(s string) bool {
	alg, hex, ok := strings.Cut(s, ":")
	if !ok || len(hex) < 32 {
		return false
	}
	for j := 0; j < len(hex); j++ {
		if c := hex[j]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	start := true
	for j := 0; j < len(alg); j++ {
		c := alg[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		switch {
		case start && !letter:
			return false
		case start:
			start = false
		case c == '-' || c == '_' || c == '+' || c == '.':
			start = true
		case !letter && !(c >= '0' && c <= '9'):
			return false
		}
	}
	return alg != "" && !start
}

// The transports of local images, as skopeo and podman spell them: an OCI
// image layout directory, a tar file of one, and a `docker save` tarball.
const (
	OCILayout     = "oci:"
	OCIArchive    = "oci-archive:"
	DockerArchive = "docker-archive:"
)

// LocalTransports are the prefixes of local image references.
var LocalTransports = []string{OCILayout, OCIArchive, DockerArchive}

// IsLocal reports whether s names an image in a local layout or archive
// rather than a registry or a file path.
func IsLocal(s string) bool {
	_, _, ok := CutTransport(s)
	return ok
}

// CutTransport splits a local reference's transport off: "oci:", "dir" for
// "oci:dir". ok is false for a reference of no local transport.
func CutTransport(s string) (transport, rest string, ok bool) {
	for _, t := range LocalTransports {
		if rest, ok := strings.CutPrefix(s, t); ok {
			return t, rest, true
		}
	}
	return "", s, false
}

// Repository is a registry reference as written without its tag and
// digest: what comes before its '@', without a ':' that follows the last
// '/' (a registry's port comes before it). Nothing is normalized.
func Repository(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return ref
}

// WithDigest is a registry reference pinned to digest: its tag and digest
// replaced by it, the rest as written (a tag is not kept beside the
// digest: a cluster's runtime would pull by the digest anyway).
func WithDigest(ref, digest string) string {
	return Repository(ref) + "@" + digest
}

// Local is a local reference after its transport (CutTransport), split as
// skopeo reads oci:, oci-archive: and docker-archive: references:
// PATH[:SELECTOR] or PATH@DIGEST.
type Local struct {
	// Path is the directory or file, up to the first ':'.
	Path string
	// Selector is what follows that ':' (HasSelector even when it is
	// empty): a tag for oci: and oci-archive:, an image's REPO:TAG in a
	// docker archive.
	Selector    string
	HasSelector bool
	// Digest follows the last '@' when it looks like one (ALG:HEX, no
	// '/'); it is not checked.
	Digest string
}

// SplitLocal splits the part of a local reference after its transport.
func SplitLocal(rest string) Local {
	var l Local
	if i := strings.LastIndexByte(rest, '@'); i >= 0 && looksLikeDigest(rest[i+1:]) {
		l.Digest, rest = rest[i+1:], rest[:i]
	}
	l.Path, l.Selector, l.HasSelector = strings.Cut(rest, ":")
	return l
}

// looksLikeDigest reports whether s has a digest's shape, ALG:HEX without
// a '/', before it is checked.
func looksLikeDigest(s string) bool {
	alg, hex, ok := strings.Cut(s, ":")
	return ok && alg != "" && hex != "" && !strings.ContainsAny(s, "/")
}
