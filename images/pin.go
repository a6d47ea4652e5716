package images

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/internal/safefs"
)

// PinOptions say how Pin resolves references.
type PinOptions struct {
	// Client asks registries (not needed with Check).
	Client *image.Client
	// Mirrors, when set, are looked through as a cluster pulls, and a
	// reference written with a mirror's name is written back with its
	// source's.
	Mirrors *MirrorSets
	// Check changes nothing: the result lists what Pin would change,
	// without asking any registry.
	Check bool
	// Jobs bounds the references resolved at once (default 16).
	Jobs int
	// Progress, when set, counts the references to resolve and those
	// resolved.
	Progress *progress.Counter
}

// Change is one reference Pin rewrote (or, with Check, would rewrite): only
// those in files written are listed.
type Change struct {
	Pos declcfg.Pos
	Old string
	// New is the reference written; empty with Check for a tag, whose
	// digest was not asked for.
	New string
	// From is where the digest was found when that is not the reference
	// itself: a mirror.
	From string
	// Reason says why the reference changes: "tag" (not pinned), "mirror"
	// (written with a mirror's name), or both.
	Reason string
}

// Failure is a reference Pin could not resolve.
type Failure struct {
	Pos declcfg.Pos
	Ref string
	Err error
}

// PinResult is what Pin did.
type PinResult struct {
	Changes  []Change
	Failures []Failure
	// Written lists the files rewritten; Held those left as they were
	// because a reference in them could not be resolved (or the file
	// could not be written: see Errors).
	Written, Held []string
	// Errors are files that could not be read back or written.
	Errors []error
}

// Unreachable reports whether a failure was a registry that could not be
// reached at all or refused access, or a cache that lacked what offline
// work needed: the run, not the catalog, is at fault.
func (r *PinResult) Unreachable() bool {
	for _, f := range r.Failures {
		var le *LookupError
		if !errors.As(f.Err, &le) || le.Unreachable() || le.Offline() || le.Refused() {
			return true
		}
	}
	return false
}

// pinJob is one distinct reference to resolve.
type pinJob struct {
	written string // as written in the files
	source  string // what gets written: written, or its source for a mirror's name
	mirror  bool   // written with a mirror's name
	tag     bool   // by tag only: needs a digest
	newRef  string
	from    string
	err     error
}

// Pin rewrites, in the files scan read, every reference by tag to the
// digest the registry holds now (through opts.Mirrors as a cluster pulls),
// and every reference written with a mirror's name to its source's name.
// The new reference is the repository as written (or the source's) and
// @digest; the tag goes, as the pipelines write pinned references. Only
// the reference text changes in each file, and a file is written (whole,
// atomically) only if every reference in it resolved. Each distinct
// reference is resolved once. A file that is read-only is left alone.
func Pin(ctx context.Context, scan *Scan, opts PinOptions) (*PinResult, error) {
	refs := scan.Refs()
	jobs := map[string]*pinJob{}
	var order []*pinJob
	for _, r := range refs {
		if !r.editable || jobs[r.Image] != nil {
			continue
		}
		j := &pinJob{written: r.Image, source: r.Image}
		if src, ok := opts.Mirrors.SourceOf(r.Image); ok {
			j.source, j.mirror = src, true
		}
		ir, err := imageref.Parse(r.Image)
		if err != nil {
			j.err = fault.Errorf(fault.Input, "%q is not an image reference: %v", r.Image, err)
		} else {
			j.tag = ir.Digest == ""
		}
		jobs[r.Image] = j
		if j.err == nil && (j.tag || j.mirror) {
			order = append(order, j)
		}
	}
	res := &PinResult{}
	if !opts.Check {
		if opts.Client == nil {
			return nil, fmt.Errorf("pin: no image client")
		}
		rs := newResolver(opts.Client, opts.Mirrors)
		opts.Progress.Found(len(order))
		err := forEach(ctx, len(order), opts.Jobs, func(i int) {
			defer opts.Progress.Done(1)
			j := order[i]
			if !j.tag {
				j.newRef = j.source
				return
			}
			// A mirror's name is where the user says the image is; the
			// cluster will look for the source, through its mirrors.
			pulls := opts.Mirrors.Pulls(j.source)
			if j.mirror {
				pulls = append([]string{j.written}, pulls...)
			}
			info, from, err := rs.lookupAt(ctx, j.written, pulls, false)
			if err != nil {
				j.err = err
				return
			}
			j.newRef = imageref.WithDigest(j.source, info.Digest)
			if from != j.written && from != j.source {
				j.from = from
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// Group by the file written, in the order the scan found them: a
	// symbolic link counts as the file it leads to, so a file read twice
	// (named, and through a link beside it) is written once.
	named := map[string]bool{}
	for _, s := range scan.Sources {
		named[s] = true
	}
	byFile := map[string][]Ref{}
	var files []string
	targets := map[string]writeTarget{}
	for _, r := range refs {
		if !r.editable {
			continue
		}
		t, ok := targets[r.Pos.File]
		if !ok {
			t = targetOf(r.Pos.File, named[r.Pos.File])
			targets[r.Pos.File] = t
		}
		if _, ok := byFile[t.real]; !ok {
			files = append(files, t.real)
		}
		byFile[t.real] = append(byFile[t.real], r)
	}
	for _, real := range files {
		// Interrupted, stop before the next file: each file written is
		// whole, and none is left half-way.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		file := byFile[real][0].Pos.File // as the scan found it first
		if err := targets[file].err; err != nil {
			res.Errors = append(res.Errors, err)
			res.Held = append(res.Held, file)
			continue
		}
		var edits []Edit
		var changes []Change
		failed := false
		type at struct{ line, col int }
		seen := map[at]bool{}
		for _, r := range byFile[real] {
			// The same file named twice or read through a link, or a YAML
			// alias: the value is written once, at its anchor.
			if seen[at{r.Pos.Line, r.Pos.Col}] {
				continue
			}
			seen[at{r.Pos.Line, r.Pos.Col}] = true
			j := jobs[r.Image]
			if j.err != nil {
				failed = true
				res.Failures = append(res.Failures, Failure{Pos: r.Pos, Ref: r.Image, Err: j.err})
				continue
			}
			if !j.tag && !j.mirror {
				continue
			}
			var reasons []string
			if j.tag {
				reasons = append(reasons, "tag")
			}
			if j.mirror {
				reasons = append(reasons, "mirror")
			}
			c := Change{Pos: r.Pos, Old: r.Image, New: j.newRef, From: j.from, Reason: strings.Join(reasons, "+")}
			if opts.Check && !j.tag {
				c.New = j.source
			}
			changes = append(changes, c)
			edits = append(edits, Edit{Line: r.Pos.Line, Col: r.Pos.Col, Quoted: r.quoted, Old: r.Image, New: j.newRef})
		}
		switch {
		case opts.Check:
			res.Changes = append(res.Changes, changes...)
			continue
		case failed:
			res.Held = append(res.Held, file)
			continue
		case len(edits) == 0:
			continue
		}
		if err := writeEdits(file, real, edits); err != nil {
			res.Errors = append(res.Errors, err)
			res.Held = append(res.Held, file)
			continue
		}
		res.Written = append(res.Written, file)
		res.Changes = append(res.Changes, changes...)
	}
	slices.SortStableFunc(res.Failures, func(a, b Failure) int { return strings.Compare(a.Pos.File, b.Pos.File) })
	return res, nil
}

// writeTarget is the file a path the scan read is rewritten as: real is
// the path itself, or, for a symbolic link, the file it leads to (the link
// stays a link); err says why it must not be written.
type writeTarget struct {
	real string
	err  error
}

// targetOf finds where file is written. A symbolic link is treated as
// links inside a directory are when a directory is read: it counts as the
// regular file it leads to, inside the tree it belongs to. A link found in
// a directory was held to that directory by the walk; a link named on the
// command line (named) belongs to the directory that holds it, and one
// that leads out of it is not followed: rewriting the file it leads to
// would change a file nobody named, anywhere on the system.
func targetOf(file string, named bool) writeTarget {
	fi, err := os.Lstat(file)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return writeTarget{real: file}
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return writeTarget{real: file, err: fault.Errorf(fault.Run, "%s is a symbolic link that leads nowhere: not changed", file)}
	}
	if named {
		tree, err := safefs.NewTree(filepath.Dir(file))
		if err != nil {
			return writeTarget{real: file, err: fault.Wrap(fault.Run, err)}
		}
		if _, err := tree.Resolve(file); err != nil {
			var oe *safefs.OutsideError
			if errors.As(err, &oe) {
				err = fault.Errorf(fault.Run, "%s is a symbolic link to %s, outside the directory that holds it: not changed (name the file itself to pin it)", file, oe.Target)
			}
			return writeTarget{real: file, err: err}
		}
	}
	return writeTarget{real: real}
}

// writeEdits rewrites real, the file the scan read as file, in place:
// read, edit, written to a temporary file and renamed, with the file's
// permissions, owner and group (atomicfile keeps them). A read-only file
// is not written.
func writeEdits(file, real string, edits []Edit) error {
	st, err := os.Stat(real)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o200 == 0 {
		return fault.Errorf(fault.Run, "%s is read-only: not changed (make it writable to pin it)", file)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return err
	}
	out, err := Rewrite(data, edits)
	if err != nil {
		return fault.Errorf(fault.Input, "%s:%w", file, err)
	}
	if err := atomicfile.WriteFile(real, out, st.Mode().Perm()); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}
