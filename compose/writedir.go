package compose

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/ctxio"
)

// DirOptions tunes WriteDir.
type DirOptions struct {
	// Format of the catalog files (default json).
	Format declcfg.Format
	// Folder names the folder, relative to the tree's root and
	// slash-separated, that holds a package's blobs (nil: the package's
	// name). Package-less blobs always go to the root.
	Folder func(pkg string) string
	// Replace allows replacing a directory that is not empty.
	Replace bool
	// Expand, when set, turns each file's blobs into what is written, one
	// file at a time (Result.Expand: a composed catalog's spooled values).
	Expand func(*declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error)
}

// WriteDir writes cfg as a catalog tree: <dir>/<folder>/catalog.<format> for
// each package (in opm order, as Write does) and <dir>/catalog.<format> for
// package-less blobs, atomically (atomicfile.WriteDir). When ctx ends the
// writing stops and dir stays as it was.
func WriteDir(ctx context.Context, cfg *declcfg.DeclarativeConfig, dir string, opts DirOptions) error {
	files, opts, err := plan(cfg, opts)
	if err != nil {
		return err
	}
	return atomicfile.WriteDir(ctx, dir, opts.Replace, func(tmp string) error {
		return writeFiles(ctx, files, tmp, opts)
	})
}

// WriteTree writes cfg as WriteDir lays it out into dir, a directory being
// filled that nobody else sees yet (a folder of a tree that
// atomicfile.WriteDir lands whole): nothing is renamed, and dir is created
// if needed. opts.Replace is not used.
func WriteTree(ctx context.Context, cfg *declcfg.DeclarativeConfig, dir string, opts DirOptions) error {
	files, opts, err := plan(cfg, opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeFiles(ctx, files, dir, opts)
}

// plan checks the format (json by default) and lays the blobs out.
func plan(cfg *declcfg.DeclarativeConfig, opts DirOptions) (map[string]*declcfg.DeclarativeConfig, DirOptions, error) {
	if opts.Format == "" {
		opts.Format = declcfg.FormatJSON
	}
	if _, err := declcfg.ParseFormat(string(opts.Format)); err != nil {
		return nil, opts, err
	}
	files, err := layout(cfg, opts)
	return files, opts, err
}

// writeFiles writes each folder's catalog file under root.
func writeFiles(ctx context.Context, files map[string]*declcfg.DeclarativeConfig, root string, opts DirOptions) error {
	for _, folder := range sortedKeys(files) {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := filepath.Join(root, filepath.FromSlash(folder))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		part := files[folder]
		if opts.Expand != nil {
			var err error
			if part, err = opts.Expand(part); err != nil {
				return err
			}
		}
		if err := writeCatalogFile(ctx, filepath.Join(d, "catalog."+string(opts.Format)), part, opts.Format); err != nil {
			return err
		}
	}
	return nil
}

// layout groups blobs by the folder they are written to ("" is the root).
func layout(cfg *declcfg.DeclarativeConfig, opts DirOptions) (map[string]*declcfg.DeclarativeConfig, error) {
	folder := opts.Folder
	if folder == nil {
		folder = func(pkg string) string { return pkg }
	}
	files := map[string]*declcfg.DeclarativeConfig{}
	for pkg, part := range byPackage(cfg) {
		f := ""
		if pkg != "" {
			f = folder(pkg)
			if err := checkFolder(f); err != nil {
				return nil, fmt.Errorf("package %q: %w", pkg, err)
			}
		}
		if files[f] == nil {
			files[f] = &declcfg.DeclarativeConfig{}
		}
		files[f].Merge(part)
	}
	// A package folder must not be inside another one: loading would mix
	// them up for nobody, but the layout would no longer say what is whose.
	names := sortedKeys(files)
	for i, a := range names {
		for _, b := range names[i+1:] {
			if a != "" && strings.HasPrefix(b, a+"/") {
				return nil, fmt.Errorf("folder %q would be inside folder %q", b, a)
			}
		}
	}
	return files, nil
}

// checkFolder accepts relative slash-separated paths without empty, "." or
// ".." elements, so that no package writes outside the tree.
func checkFolder(f string) error {
	if f == "" {
		return fmt.Errorf("empty folder name")
	}
	if path.IsAbs(f) || strings.ContainsAny(f, "\\\x00") {
		return fmt.Errorf("folder %q is not a relative path", f)
	}
	for _, el := range strings.Split(f, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("folder %q is not a plain relative path", f)
		}
	}
	return nil
}

func writeCatalogFile(ctx context.Context, name string, cfg *declcfg.DeclarativeConfig, f declcfg.Format) error {
	file, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(ctxio.Writer(ctx, file), 256<<10)
	werr := declcfg.Write(cfg, f, bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = file.Sync()
	}
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
