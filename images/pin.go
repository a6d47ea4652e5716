package images

import (
	"context"
	"errors"
	"fmt"
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
			j.newRef = repository(j.source) + "@" + info.Digest
			if from != j.written && from != j.source {
				j.from = from
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// Group by file, in the order the scan found them.
	byFile := map[string][]Ref{}
	var files []string
	for _, r := range refs {
		if !r.editable {
			continue
		}
		if _, ok := byFile[r.Pos.File]; !ok {
			files = append(files, r.Pos.File)
		}
		byFile[r.Pos.File] = append(byFile[r.Pos.File], r)
	}
	for _, file := range files {
		// Interrupted, stop before the next file: each file written is
		// whole, and none is left half-way.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var edits []Edit
		var changes []Change
		failed := false
		seen := map[declcfg.Pos]bool{}
		for _, r := range byFile[file] {
			// The same file named twice, or a YAML alias: the value is
			// written once, at its anchor.
			if seen[r.Pos] {
				continue
			}
			seen[r.Pos] = true
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
		if err := writeEdits(file, edits); err != nil {
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

// repository is a reference without its tag and digest, as written.
func repository(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return ref
}

// writeEdits rewrites file in place: read, edit, written to a temporary
// file and renamed, with the file's permissions. A read-only file is not
// written.
func writeEdits(file string, edits []Edit) error {
	// A link is followed: the file it names is the one rewritten.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o200 == 0 {
		return fault.Errorf(fault.Run, "%s is read-only: not changed (make it writable to pin it)", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := Rewrite(data, edits)
	if err != nil {
		return fault.Errorf(fault.Input, "%s:%w", file, err)
	}
	if err := atomicfile.WriteFile(file, out, st.Mode().Perm()); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}
