package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/ctxio"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// BuildTargets say where a built catalog image goes. At least one target is
// required.
type BuildTargets struct {
	// Tag is the image's name: the push destination, the RepoTags entry of a
	// docker archive and the ref.name of an OCI layout unless the output
	// reference names its own.
	Tag string
	// Push pushes the image to Tag.
	Push bool
	// Outputs are local destinations: oci:DIR[:TAG] (an OCI image layout)
	// or docker-archive:FILE[:REF] (a `docker save` tarball).
	Outputs []string
	// Force replaces existing output files and directories.
	Force bool
}

// BuildResult is what a build produced.
type BuildResult struct {
	// Digest is the image's manifest digest.
	Digest string
	// Pushed is the pushed image by digest (REPO@sha256:...), if pushed.
	Pushed string
	// Written are the local outputs, as given.
	Written []string
}

// OutputError is a local output that is in the way (refused before any
// work: it exists, has the wrong shape or may not be replaced) or that
// could not be written. Output is as given.
type OutputError struct {
	Output string
	Err    error
}

func (e *OutputError) Error() string { return "writing " + e.Output + ": " + e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// output is a parsed local destination.
type output struct {
	raw  string
	ref  Reference
	name string // ref.name of an OCI layout or the RepoTags entry of an archive
}

// BuildPlan is a build whose request PlanBuild has checked: everything
// that can be refused without pulling a base image or packing the catalog
// has been. Build carries it out.
type BuildPlan struct {
	dir       string
	opts      BuildOptions
	targets   BuildTargets
	tag       name.Tag
	outputs   []output
	platforms []v1.Platform
	servers   map[string]*serverBinary
}

// PlanBuild checks a build of dir to targets before anything is read,
// pulled or built: the tag; every output (its form, its name, that it is
// not the catalog, does not hold it or lie inside it, overlaps no other
// output, and is not in the way unless Force); the labels; the platforms
// (a docker archive holds one); and a server binary for each platform.
func PlanBuild(dir string, opts BuildOptions, targets BuildTargets) (*BuildPlan, error) {
	tag, outputs, err := checkTargets(targets, opts.Pull)
	if err != nil {
		return nil, err
	}
	if err := checkOutsideCatalog(dir, outputs); err != nil {
		return nil, err
	}
	platforms, servers, err := checkBuild(opts)
	if err != nil {
		return nil, err
	}
	if len(platforms) > 1 {
		for _, o := range outputs {
			if o.ref.Kind == KindDockerArchive {
				return nil, fmt.Errorf("output %q: a docker archive holds one image, not an index of %d platforms: build one platform, or write oci:DIR", o.raw, len(platforms))
			}
		}
	}
	// Outputs in the way fail now, not after a pull and a build.
	for _, o := range outputs {
		if err := checkReplaceable(o.ref.Path, o.ref.Kind, targets.Force); err != nil {
			return nil, &OutputError{Output: o.raw, Err: err}
		}
	}
	return &BuildPlan{dir: dir, opts: opts, targets: targets, tag: tag, outputs: outputs, platforms: platforms, servers: servers}, nil
}

// Build builds the catalog image of dir (see BuildCatalogImage) and sends it
// to its targets: PlanBuild, then BuildPlan.Build.
func Build(ctx context.Context, dir string, opts BuildOptions, targets BuildTargets) (*BuildResult, error) {
	p, err := PlanBuild(dir, opts, targets)
	if err != nil {
		return nil, err
	}
	return p.Build(ctx)
}

// Build builds the planned image and sends it to its targets, the outputs
// in order, then the push. When one fails, the result still lists the
// outputs written before it (Written) and comes back with the error.
func (p *BuildPlan) Build(ctx context.Context) (*BuildResult, error) {
	ci, err := buildCatalogImage(ctx, p.dir, p.opts, p.platforms, p.servers)
	if err != nil {
		return nil, err
	}
	defer ci.Close()
	res := &BuildResult{}
	if res.Digest, err = ci.Digest(); err != nil {
		return nil, err
	}
	for _, o := range p.outputs {
		if err := ci.writeOutput(ctx, o, p.targets.Force); err != nil {
			return res, &OutputError{Output: o.raw, Err: err}
		}
		res.Written = append(res.Written, o.raw)
	}
	if p.targets.Push {
		if res.Pushed, err = ci.push(ctx, p.tag, p.opts.Pull); err != nil {
			return res, err
		}
	}
	return res, nil
}

func checkTargets(t BuildTargets, opts Options) (name.Tag, []output, error) {
	if !t.Push && len(t.Outputs) == 0 {
		return name.Tag{}, nil, fault.Errorf(fault.Usage, "nothing to do: the build targets neither push the image nor name an output")
	}
	tag, err := parseTag(t.Tag, opts)
	if err != nil {
		return name.Tag{}, nil, err
	}
	var outs []output
	for _, raw := range t.Outputs {
		ref, err := ParseReference(raw)
		if err != nil {
			return name.Tag{}, nil, err
		}
		o := output{raw: raw, ref: ref, name: ref.Tag}
		switch {
		case ref.Kind != KindOCILayout && ref.Kind != KindDockerArchive:
			return name.Tag{}, nil, fmt.Errorf("output %q: want oci:DIR[:TAG] or docker-archive:FILE[:REF]", raw)
		case ref.Digest != "":
			return name.Tag{}, nil, fmt.Errorf("output %q: a digest cannot be chosen; name the image with a tag", raw)
		case o.name == "" && ref.Kind == KindOCILayout:
			o.name = tag.TagStr()
		case o.name == "":
			o.name = tag.String()
		}
		if ref.Kind == KindDockerArchive {
			// Up front, not once the image is built.
			if _, err := parseTag(o.name, opts); err != nil {
				return name.Tag{}, nil, fmt.Errorf("output %q: %w", raw, err)
			}
		}
		for _, prev := range outs {
			if err := checkApart(prev, o); err != nil {
				return name.Tag{}, nil, err
			}
		}
		outs = append(outs, o)
	}
	return tag, outs, nil
}

// checkApart refuses two outputs that name the same path or of which one
// lies inside the other: the second written would replace the first, or
// add a file to it.
func checkApart(a, b output) error {
	pa, erra := safefs.RealPath(a.ref.Path)
	pb, errb := safefs.RealPath(b.ref.Path)
	if erra != nil || errb != nil {
		pa, pb = filepath.Clean(a.ref.Path), filepath.Clean(b.ref.Path)
	}
	switch {
	case pa == pb:
		return fmt.Errorf("outputs %q and %q name the same path", a.raw, b.raw)
	case safefs.Within(pb, pa):
		return fmt.Errorf("output %q lies inside output %q: writing one would change the other; choose paths apart", b.raw, a.raw)
	case safefs.Within(pa, pb):
		return fmt.Errorf("output %q lies inside output %q: writing one would change the other; choose paths apart", a.raw, b.raw)
	}
	return nil
}

// checkOutsideCatalog refuses an output that is the catalog directory dir,
// holds it, or lies inside it: replacing it (--force) would delete the
// catalog being built, and writing into it would add files to it. Paths are
// compared absolute with symbolic links resolved; for an output that does
// not exist yet, those of its nearest existing parent.
func checkOutsideCatalog(dir string, outs []output) error {
	catalog, err := safefs.RealPath(dir)
	if err != nil {
		return err
	}
	for _, o := range outs {
		p, err := safefs.RealPath(o.ref.Path)
		if err != nil {
			return fmt.Errorf("output %q: %w", o.raw, err)
		}
		how := safefs.Overlap(p, catalog)
		if how == "" {
			continue
		}
		return fault.Errorf(fault.Usage, "output %s %s the catalog being built (%s): writing it would change or delete the catalog; choose an output outside it",
			shownPath(o.raw, o.ref.Path, p), how, shownPath(dir, dir, catalog))
	}
	return nil
}

// shownPath is what names a path in a message: as given, followed by where
// it really leads when symbolic links take it elsewhere.
func shownPath(given, path, real string) string {
	if abs, err := filepath.Abs(path); err == nil && abs == real {
		return given
	}
	return given + " (" + real + ")"
}

func (c *CatalogImage) writeOutput(ctx context.Context, o output, force bool) error {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(o.ref.Path)), 0o755); err != nil {
		return err
	}
	switch o.ref.Kind {
	case KindOCILayout:
		return c.WriteOCILayout(ctx, o.ref.Path, o.name, force)
	default:
		return c.WriteDockerArchive(ctx, o.ref.Path, o.name, force)
	}
}

// WriteOCILayout writes the image as a new OCI image layout directory whose
// index holds this one image, annotated with refName. The layout is built
// next to dir and renamed into place; an existing non-empty dir is replaced
// only with force. An interrupt (ctx) leaves dir as it was.
func (c *CatalogImage) WriteOCILayout(ctx context.Context, dir, refName string, force bool) error {
	if refName != "" && !ociRefName().MatchString(refName) {
		return fmt.Errorf("tag %q cannot name an image in an OCI layout: must match %s", refName, ociRefName())
	}
	if err := checkReplaceable(dir, KindOCILayout, force); err != nil {
		return err
	}
	return atomicfile.WriteDir(ctx, dir, force, func(tmp string) error {
		p, err := layout.Write(tmp, empty.Index)
		if err != nil {
			return err
		}
		var opts []layout.Option
		if refName != "" {
			opts = append(opts, layout.WithAnnotations(map[string]string{annotationRefName: refName}))
		}
		if c.index != nil {
			err = p.AppendIndex(c.index, opts...)
		} else {
			err = p.AppendImage(c.img, opts...)
		}
		if err != nil {
			return err
		}
		return makeReadable(tmp)
	})
}

// makeReadable gives the tree at dir the modes of an ordinary file tree,
// whatever the umask and the modes go-containerregistry chose (0600 for
// blobs, 0755 for index.json): files 0644, directories 0755, so that any
// user can read the image.
func makeReadable(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Chmod(p, 0o755)
		case d.Type().IsRegular():
			return os.Chmod(p, 0o644)
		}
		return nil
	})
}

// WriteDockerArchive writes the image as a `docker save` tarball (loadable
// with docker load or podman load) named ref, atomically; an existing file is
// replaced only with force. An interrupt (ctx) leaves file as it was.
func (c *CatalogImage) WriteDockerArchive(ctx context.Context, file, ref string, force bool) error {
	if c.index != nil {
		return errors.New("a docker archive holds one image, not an index")
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %v", ref, err)
	}
	if err := checkReplaceable(file, KindDockerArchive, force); err != nil {
		return err
	}
	return atomicfile.Write(ctx, file, 0o644, func(w io.Writer) error {
		return tarball.Write(tag, c.img, ctxio.Writer(ctx, w))
	})
}

// checkReplaceable refuses an output in the way of an image written as
// kind (KindOCILayout or KindDockerArchive) at p: always a path of the other
// shape (a file where an image layout goes, a directory where an archive
// goes), a non-empty directory that is not an OCI image layout, and one that
// may not be replaced at all (the working directory, a git checkout); any
// other existing output without force.
func checkReplaceable(p string, kind Kind, force bool) error {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case kind == KindDockerArchive && st.IsDir():
		return fault.Errorf(fault.Usage, "%s is a directory: a docker archive is written as a file; choose another output", p)
	case kind == KindDockerArchive:
		break
	case !st.IsDir():
		return fault.Errorf(fault.Usage, "%s is a file: an OCI image layout is written as a directory; choose another output", p)
	default:
		entries, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return nil
		}
		// Only an image layout is replaced, not whatever directory the
		// output happens to name (a checkout, the catalog itself).
		if _, err := os.Stat(filepath.Join(p, "oci-layout")); err != nil {
			return fault.Errorf(fault.Usage, "%s is a directory but not an OCI image layout (no oci-layout file): only an image layout is replaced; choose another output", p)
		}
		if err := atomicfile.CheckDir(p, true); err != nil {
			return err
		}
	}
	if !force {
		return &atomicfile.ExistsError{Path: p}
	}
	return nil
}

// Push pushes the image to the tag ref and returns it by digest.
// Credentials, TLS and plain-HTTP choices come from opts, as for pulling.
func (c *CatalogImage) Push(ctx context.Context, ref string, opts Options) (string, error) {
	tag, err := parseTag(ref, opts)
	if err != nil {
		return "", err
	}
	return c.push(ctx, tag, opts)
}

// parseTag parses a push destination; plain HTTP is allowed as opts say.
func parseTag(ref string, opts Options) (name.Tag, error) {
	tag, err := name.NewTag(ref, nameOptions(opts)...)
	if err != nil {
		return name.Tag{}, fault.Errorf(fault.Usage, "invalid tag %q: %v", ref, err)
	}
	// go-containerregistry lets a tag start with '.' or '-', which
	// registries refuse only once the blobs are uploaded.
	if t := tag.TagStr(); !ociRefName().MatchString(t) {
		return name.Tag{}, fault.Errorf(fault.Usage, "invalid tag %q: the tag %q must match %s", ref, t, ociRefName())
	}
	return tag, nil
}

func (c *CatalogImage) push(ctx context.Context, ref name.Tag, opts Options) (string, error) {
	client, err := NewClient(opts)
	if err != nil {
		return "", err
	}
	d, err := c.Digest()
	if err != nil {
		return "", err
	}
	// A push is retried whole, by the policy of pulls: go-containerregistry
	// skips the blobs a failed attempt already uploaded, and the transport
	// has retried each GET and HEAD on its own.
	ctx = withOperation(ctx, "pushing "+ref.String())
	ropts := append(client.remoteOptions(), remote.WithContext(ctx))
	err = client.policy.retry(ctx, new(int), func() error {
		if c.index != nil {
			return explain(remote.WriteIndex(ref, c.index, ropts...), ref.RegistryStr())
		}
		return explain(remote.Write(ref, c.img, ropts...), ref.RegistryStr())
	})
	if err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	return ref.Context().Digest(d).String(), nil
}
