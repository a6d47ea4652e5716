package cmd

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for the build tests:
//
//	image-inspect oci:DIR|docker-archive:FILE:REF config|manifest|files
//
// prints an image's config or manifest as indented JSON, or the entries of
// its top layer (files) or of every layer (layers) as "mode uid:gid mtime
// name" lines, to stdout.
//
// mkelf FILE ARCH static|dynamic writes the header of a Linux executable
// for ARCH (amd64, arm64), with a dynamic loader or without: enough for
// fbc build --server fbc to tell which platform it runs on.
func init() {
	scriptCmds["image-inspect"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: image-inspect oci:DIR|docker-archive:FILE:REF config|manifest|files|layers")
		}
		img, err := inspectOpen(ts, args[0])
		ts.Check(err)
		switch args[1] {
		case "config":
			cf, err := img.ConfigFile()
			ts.Check(err)
			ts.Check(printJSON(ts, cf))
		case "manifest":
			m, err := img.Manifest()
			ts.Check(err)
			ts.Check(printJSON(ts, m))
		case "files", "layers":
			layers, err := img.Layers()
			ts.Check(err)
			if len(layers) == 0 {
				ts.Fatalf("image has no layers")
			}
			if args[1] == "files" {
				layers = layers[len(layers)-1:]
			}
			for i, l := range layers {
				if args[1] == "layers" {
					fmt.Fprintf(ts.Stdout(), "layer %d\n", i)
				}
				rc, err := l.Uncompressed()
				ts.Check(err)
				tr := tar.NewReader(rc)
				for {
					h, err := tr.Next()
					if err == io.EOF {
						break
					}
					ts.Check(err)
					fmt.Fprintf(ts.Stdout(), "%c %04o %d:%d %d %s\n", h.Typeflag, h.Mode, h.Uid, h.Gid, h.ModTime.Unix(), h.Name)
				}
				rc.Close()
			}
		default:
			ts.Fatalf("image-inspect: unknown %q", args[1])
		}
	}
}

func init() {
	scriptCmds["mkelf"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: mkelf FILE ARCH static|dynamic")
		}
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[args[1]]
		if machine == 0 {
			ts.Fatalf("mkelf: unknown architecture %q", args[1])
		}
		phnum := uint16(0)
		if args[2] == "dynamic" {
			phnum = 1
		}
		var b bytes.Buffer
		b.Write([]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT), 0, 0, 0, 0, 0, 0, 0, 0, 0})
		hdr := struct {
			Type, Machine                                        uint16
			Version                                              uint32
			Entry, Phoff, Shoff                                  uint64
			Flags                                                uint32
			Ehsize, Phentsize, Phnum, Shentsize, Shnum, Shstrndx uint16
		}{uint16(elf.ET_EXEC), uint16(machine), uint32(elf.EV_CURRENT), 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0}
		ts.Check(binary.Write(&b, binary.LittleEndian, hdr))
		if phnum == 1 {
			ts.Check(binary.Write(&b, binary.LittleEndian, elf.Prog64{Type: uint32(elf.PT_INTERP), Off: 120, Filesz: 28, Memsz: 28}))
			b.WriteString("/lib64/ld-linux-x86-64.so.2\x00")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o755))
	}
}

func inspectOpen(ts *testscript.TestScript, ref string) (v1.Image, error) {
	const ociPrefix, archivePrefix = "oci:", "docker-archive:"
	switch {
	case len(ref) > len(ociPrefix) && ref[:len(ociPrefix)] == ociPrefix:
		idx, err := layout.ImageIndexFromPath(ts.MkAbs(ref[len(ociPrefix):]))
		if err != nil {
			return nil, err
		}
		m, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		if len(m.Manifests) != 1 {
			return nil, fmt.Errorf("layout has %d images, want 1", len(m.Manifests))
		}
		return idx.Image(m.Manifests[0].Digest)
	case len(ref) > len(archivePrefix) && ref[:len(archivePrefix)] == archivePrefix:
		rest := ref[len(archivePrefix):]
		for i := 0; i < len(rest); i++ {
			if rest[i] == ':' {
				tag, err := name.NewTag(rest[i+1:])
				if err != nil {
					return nil, err
				}
				return tarball.ImageFromPath(ts.MkAbs(rest[:i]), &tag)
			}
		}
		return tarball.ImageFromPath(ts.MkAbs(rest), nil)
	}
	return nil, fmt.Errorf("image-inspect: %q is not oci:DIR or docker-archive:FILE", ref)
}

func printJSON(ts *testscript.TestScript, v any) error {
	enc := json.NewEncoder(ts.Stdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
