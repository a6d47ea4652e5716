package declcfg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/fbc-project/fbc/internal/fault"
)

// LoadErrors is every problem found while loading, in file order.
type LoadErrors []*LoadError

func (e LoadErrors) Error() string {
	const show = 20
	var b strings.Builder
	for i, le := range e {
		if i == show {
			fmt.Fprintf(&b, "\n... and %d more problems", len(e)-show)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(le.Error())
	}
	return b.String()
}

// HasIO reports whether any problem came from the file system rather than
// from catalog content.
func (e LoadErrors) HasIO() bool {
	for _, le := range e {
		if le.IO {
			return true
		}
	}
	return false
}

// FaultKind is Run when a file could not be read (the catalog is
// incomplete) and Input when only the content is at fault.
func (e LoadErrors) FaultKind() fault.Kind {
	if e.HasIO() {
		return fault.Run
	}
	return fault.Input
}

// LoadOptions tunes Load.
type LoadOptions struct {
	Walk WalkOptions
	// Stdin is read for the path "-" (default os.Stdin).
	Stdin io.Reader
	// Inspect, when set, sees each document before it is decoded and
	// returns warnings about it, which go to Warn. The blob types keep only
	// the fields they know; a caller that writes blobs back out (render)
	// inspects with validate.UnknownFields to say what it leaves out.
	Inspect func(Document) []*LoadError
	// Warn receives the loader's warnings (keys matched only without
	// regard to case, and Inspect's), each with its position; nil drops
	// them.
	Warn fault.Warn
	// Decode says what each document's blob keeps (DecodeDocumentWith):
	// a caller that reads few property values leaves the others unencoded.
	Decode DecodeOptions
	// Keep, when set, is asked about each document before anything else
	// (Inspect, decoding): a document it refuses is skipped, its problems
	// unreported. A reader of some packages of a catalog (OLM v1
	// resolution, which reads a package the way operator-controller reads
	// one from catalogd) refuses the others, which then cannot stop it
	// however broken they are. Keep is called in catalog order, one
	// document at a time for each Load.
	Keep func(Document) bool
}

// Load reads catalogs named on the command line (directories, files, or "-")
// into one DeclarativeConfig, in argument order and, within a directory, in
// lexical file order. All problems are collected; if there are any, the
// returned error is a LoadErrors and the config holds what could be decoded.
func Load(ctx context.Context, paths []string, opts LoadOptions) (*DeclarativeConfig, error) {
	return gather(func(fn func(*DeclarativeConfig) error) error { return LoadEach(ctx, paths, opts, fn) })
}

// gather merges what a streaming load hands over. With problems in the
// content, the config holds what could be decoded; with any other error, it
// is nil.
func gather(load func(fn func(*DeclarativeConfig) error) error) (*DeclarativeConfig, error) {
	cfg := &DeclarativeConfig{}
	err := load(func(part *DeclarativeConfig) error {
		cfg.Merge(part)
		return nil
	})
	var les LoadErrors
	switch {
	case errors.As(err, &les):
		return cfg, err
	case err != nil:
		return nil, err
	}
	return cfg, nil
}

// LoadEach reads what Load reads without gathering it: fn gets the blobs of
// each file as soon as the file is decoded, in the order Load would merge
// them, so that a caller that streams (render, compose) holds a few files at
// a time, not the catalog. Problems are collected as Load collects them and
// returned at the end as a LoadErrors, after fn has seen every file; an
// error from fn stops the walk and is returned as it is.
func LoadEach(ctx context.Context, paths []string, opts LoadOptions, fn func(*DeclarativeConfig) error) error {
	var errs LoadErrors
	for _, p := range paths {
		err := WalkPath(ctx, p, opts.Stdin, opts.Walk, func(f *File) error {
			return loadFile(f, opts, &errs, fn)
		})
		if err != nil {
			var fe fnError
			if errors.As(err, &fe) {
				return fe.err
			}
			return fmt.Errorf("loading %s: %w", p, err)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// LoadFS loads every catalog file of fsys; prefix names the tree in
// positions.
func LoadFS(ctx context.Context, fsys fs.FS, prefix string, opts WalkOptions) (*DeclarativeConfig, error) {
	return gather(func(fn func(*DeclarativeConfig) error) error {
		return LoadFSEach(ctx, fsys, prefix, LoadOptions{Walk: opts}, fn)
	})
}

// LoadFSEach is LoadFS without gathering, as LoadEach is Load's; of opts,
// Walk says how the tree is walked, and Stdin means nothing.
func LoadFSEach(ctx context.Context, fsys fs.FS, prefix string, opts LoadOptions, fn func(*DeclarativeConfig) error) error {
	var errs LoadErrors
	err := WalkFS(ctx, fsys, prefix, opts.Walk, func(f *File) error {
		return loadFile(f, opts, &errs, fn)
	})
	if err != nil {
		var fe fnError
		if errors.As(err, &fe) {
			return fe.err
		}
		return err
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// fnError carries a callback's error through the walk, so that it comes
// back unwrapped.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// loadFile decodes one file, adds its problems to errs and hands its blobs
// to fn.
func loadFile(f *File, opts LoadOptions, errs *LoadErrors, fn func(*DeclarativeConfig) error) error {
	part := &DeclarativeConfig{}
	*errs = append(*errs, addFile(part, f, opts)...)
	f.Docs = nil // decoded: the nodes can go while fn works
	if part.IsEmpty() {
		return nil
	}
	if err := fn(part); err != nil {
		return fnError{err}
	}
	return nil
}

// LoadBytes loads one file's content; name is used in positions.
func LoadBytes(name string, data []byte) (*DeclarativeConfig, error) {
	cfg := &DeclarativeConfig{}
	if errs := addFile(cfg, ParseFile(name, data), LoadOptions{}); len(errs) > 0 {
		return cfg, LoadErrors(errs)
	}
	return cfg, nil
}

func addFile(cfg *DeclarativeConfig, f *File, opts LoadOptions) []*LoadError {
	var errs []*LoadError
	keep := func(e *LoadError) {
		if !e.Warning {
			errs = append(errs, e)
		} else if opts.Warn != nil {
			opts.Warn(e.Error())
		}
	}
	for _, e := range f.Errors {
		keep(e)
	}
	for _, doc := range f.Docs {
		if opts.Keep != nil && !opts.Keep(doc) {
			continue
		}
		if opts.Inspect != nil {
			for _, e := range opts.Inspect(doc) {
				e.Warning = true
				keep(e)
			}
		}
		blob, derrs, ok := DecodeDocumentWith(doc, opts.Decode)
		for _, e := range derrs {
			keep(e)
		}
		if ok {
			blob.AddTo(cfg)
		}
	}
	return errs
}
