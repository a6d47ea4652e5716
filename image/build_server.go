package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/fbc-project/fbc/internal/safefs"
)

// A catalog image served by fbc instead of opm: the fbc executable for the
// image's platform at /bin/fbc, in a layer of its own below the catalog,
// with /bin/grpc_health_probe linking to it (OLM's catalog pods probe their
// server by running grpc_health_probe; fbc answers to that name as the
// probe), an empty /tmp (fbc serve keeps a temporary file there), PATH set
// when the base sets none, and ENTRYPOINT ["/bin/fbc"] CMD ["serve",
// "/configs"].
var (
	fbcEntrypoint = []string{"/bin/fbc"}
	fbcCmd        = []string{"serve", ConfigsDir}
	// fbcUser is the user an fbc-served image runs as, opm's images' own.
	fbcUser = "1001"
	// defaultPath is the PATH container runtimes use for images without
	// one.
	defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// serverBinary is an fbc executable and the platform it runs on.
type serverBinary struct {
	path     string
	platform v1.Platform
	// static is false for an executable that needs a dynamic loader (and
	// so a libc): it runs only on a base image that has one.
	static bool
}

// elfArchitectures maps ELF machines to OCI architectures.
var elfArchitectures = map[elf.Machine]string{
	elf.EM_X86_64:  "amd64",
	elf.EM_AARCH64: "arm64",
	elf.EM_PPC64:   "ppc64le",
	elf.EM_S390:    "s390x",
	elf.EM_386:     "386",
	elf.EM_ARM:     "arm",
	elf.EM_RISCV:   "riscv64",
}

// readServerBinary reads the platform an executable was built for from its
// ELF header.
func readServerBinary(path string) (*serverBinary, error) {
	file, err := safefs.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fbc binary: %w", err)
	}
	defer file.Close()
	f, err := elf.NewFile(file)
	if err != nil {
		return nil, fmt.Errorf("fbc binary %s: not a Linux executable (%v)", path, err)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("fbc binary %s: an ELF %s, not an executable", path, f.Type)
	}
	arch, ok := elfArchitectures[f.Machine]
	if !ok || (arch == "ppc64le" && f.ByteOrder.String() != "LittleEndian") {
		return nil, fmt.Errorf("fbc binary %s: built for %s, which no catalog image platform runs", path, f.Machine)
	}
	b := &serverBinary{path: path, platform: v1.Platform{OS: "linux", Architecture: arch}, static: true}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b.static = false
		}
	}
	return b, nil
}

// serverBinaries reads the executables given for a build, one per
// platform, by OS/architecture.
func serverBinaries(paths []string) (map[string]*serverBinary, error) {
	out := map[string]*serverBinary{}
	for _, p := range paths {
		b, err := readServerBinary(p)
		if err != nil {
			return nil, err
		}
		key := b.platform.OS + "/" + b.platform.Architecture
		if prev, dup := out[key]; dup {
			return nil, fmt.Errorf("two fbc binaries for %s: %s and %s", key, prev.path, p)
		}
		out[key] = b
	}
	return out, nil
}

// serverFor picks the binary for platform p.
func serverFor(bins map[string]*serverBinary, p v1.Platform, scratch bool) (*serverBinary, error) {
	b := bins[p.OS+"/"+p.Architecture]
	if b == nil {
		var have []string
		for k := range bins {
			have = append(have, k)
		}
		sort.Strings(have)
		return nil, fmt.Errorf("no fbc binary for %s (the fbc binaries given are for %s): give one for each platform built", p.String(), strings.Join(have, ", "))
	}
	if scratch && !b.static {
		return nil, fmt.Errorf("fbc binary %s is dynamically linked (built with cgo) and would not start in an image without a base: build it with CGO_ENABLED=0 (make build does), or build on a base image that has its C library", b.path)
	}
	return b, nil
}

// serverLayer packs the executable at /bin/fbc (0755) and an empty /tmp
// (1777), owned by root, every time stamp mtime.
func serverLayer(b *serverBinary, mtime time.Time) (v1.Layer, error) {
	data, err := safefs.ReadFile(b.path)
	if err != nil {
		return nil, fmt.Errorf("reading the fbc binary: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: "bin/fbc", Mode: 0o755, Size: int64(len(data))},
		{Typeflag: tar.TypeSymlink, Name: "bin/grpc_health_probe", Linkname: "fbc", Mode: 0o777},
		{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777},
	}
	for _, h := range entries {
		h.ModTime, h.Format = mtime, tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	tarData := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarData)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
