package image

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fbc-project/fbc/internal/imageref"
)

// Kind says where an image lives.
type Kind int

const (
	// KindRegistry is an image in a registry, by tag or digest
	// (quay.io/org/bundle:v1, host:5000/repo@sha256:...).
	KindRegistry Kind = iota
	// KindOCILayout is an OCI image layout directory: oci:DIR[:TAG|@DIGEST].
	KindOCILayout
	// KindOCIArchive is a tar file holding an OCI image layout:
	// oci-archive:FILE[:TAG|@DIGEST].
	KindOCIArchive
	// KindDockerArchive is a `docker save` tarball: docker-archive:FILE[:REF].
	KindDockerArchive
)

func (k Kind) String() string {
	switch k {
	case KindRegistry:
		return "registry"
	case KindOCILayout:
		return "oci"
	case KindOCIArchive:
		return "oci-archive"
	case KindDockerArchive:
		return "docker-archive"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// localKinds are the kinds of imageref's local transports.
var localKinds = map[string]Kind{imageref.OCILayout: KindOCILayout, imageref.OCIArchive: KindOCIArchive, imageref.DockerArchive: KindDockerArchive}

// Reference is a parsed image reference.
type Reference struct {
	Kind Kind
	// Path is the layout directory or archive file of a local reference.
	Path string
	// Tag selects an image: in a registry, its tag; in an OCI layout, the
	// org.opencontainers.image.ref.name annotation; in a docker archive, a
	// RepoTags entry (then a full reference like repo:tag).
	Tag string
	// Digest selects an image by manifest digest (sha256:...).
	Digest string

	raw  string
	name name.Reference // registry references only
}

// String is the reference as the user wrote it.
func (r Reference) String() string { return r.raw }

// IsLocalReference reports whether s names an image in a local layout or
// archive (oci:, oci-archive:, docker-archive:) rather than a registry or a
// file path. Callers that also accept directories use it to tell the two
// apart before stat-ing.
func IsLocalReference(s string) bool { return imageref.IsLocal(s) }

// ociRefName is what an OCI layout's ref.name annotation may hold when used
// as a tag here: the tag grammar of the distribution spec.
var ociRefName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`) })

// ParseReference parses an image reference:
//
//	REGISTRY/REPO[:TAG|@DIGEST]     an image in a registry (docker.io is the default registry)
//	oci:DIR[:TAG|@DIGEST]           an OCI image layout directory
//	oci-archive:FILE[:TAG|@DIGEST]  a tar file of an OCI image layout
//	docker-archive:FILE[:REF]       a `docker save` tarball, REF choosing among several images
//
// As in skopeo, DIR and FILE end at the first colon. Plain-HTTP registries are
// chosen by Options, not by the reference.
func ParseReference(s string) (Reference, error) {
	return parseReference(s, Options{})
}

// nameOptions allow plain HTTP to a registry when opts do.
func nameOptions(opts Options) []name.Option {
	if opts.UseHTTP || opts.SkipTLSVerify {
		return []name.Option{name.Insecure}
	}
	return nil
}

func parseReference(s string, opts Options) (Reference, error) {
	r := Reference{raw: s}
	fail := func(format string, args ...any) (Reference, error) {
		return Reference{}, fmt.Errorf("invalid image reference %q: %s", s, fmt.Sprintf(format, args...))
	}
	transport, rest, local := imageref.CutTransport(s)
	if !local {
		if strings.TrimSpace(s) == "" {
			return fail("empty")
		}
		n, err := name.ParseReference(s, nameOptions(opts)...)
		if err != nil {
			return fail("%v", err)
		}
		r.Kind, r.name = KindRegistry, n
		switch n := n.(type) {
		case name.Tag:
			r.Tag = n.TagStr()
		case name.Digest:
			r.Digest = n.DigestStr()
		}
		return r, nil
	}

	// Local references: PATH[:SELECTOR] or PATH@DIGEST.
	r.Kind = localKinds[transport]
	l := imageref.SplitLocal(rest)
	if l.Digest != "" {
		if _, err := v1.NewHash(l.Digest); err != nil {
			return fail("digest %q: %v", l.Digest, err)
		}
		r.Digest = l.Digest
	}
	path, sel, hasSel := l.Path, l.Selector, l.HasSelector
	if path == "" {
		return fail("missing %s path", map[Kind]string{KindOCILayout: "directory", KindOCIArchive: "file", KindDockerArchive: "file"}[r.Kind])
	}
	r.Path = path
	if hasSel {
		if r.Digest != "" {
			return fail("give a tag or a digest, not both")
		}
		switch r.Kind {
		case KindDockerArchive:
			// A RepoTags entry: a full reference such as repo:tag.
			if _, err := name.NewTag(sel); err != nil {
				return fail("image %q in the archive: %v", sel, err)
			}
		default:
			if !ociRefName().MatchString(sel) {
				return fail("tag %q: must match %s", sel, ociRefName())
			}
		}
		r.Tag = sel
	}
	if r.Kind == KindDockerArchive && r.Digest != "" {
		return fail("docker archives select images by name (docker-archive:FILE:REPO:TAG), not by digest")
	}
	return r, nil
}
