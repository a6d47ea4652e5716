package cmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fbc-project/fbc/internal/atomicfile"
)

// heldLocks are the lock files holdlock holds, by path.
var heldLocks sync.Map

func init() {
	// holdlock FILE takes a lock file as fbc catalogs and fbc release take
	// the repository's, and holds it until droplock FILE: for the scripts
	// of runs that must wait for another.
	scriptCmds["holdlock"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: holdlock FILE")
		}
		l, err := atomicfile.AcquireLock(context.Background(), ts.MkAbs(args[0]), "the script's holdlock", 0, nil)
		ts.Check(err)
		heldLocks.Store(ts.MkAbs(args[0]), l)
	}
	// sleep DURATION waits, for a background command to get going.
	scriptCmds["sleep"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: sleep DURATION")
		}
		d, err := time.ParseDuration(args[0])
		ts.Check(err)
		time.Sleep(d)
	}
	scriptCmds["droplock"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: droplock FILE")
		}
		l, ok := heldLocks.LoadAndDelete(ts.MkAbs(args[0]))
		if !ok {
			ts.Fatalf("droplock: %s is not held", args[0])
		}
		l.(*atomicfile.Lock).Release()
	}

	// cptree SRC DST copies a directory tree (files and folders; DST must
	// not exist): operator repositories from the corpus, and snapshots to
	// compare with after a command that must change nothing.
	scriptCmds["cptree"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: cptree SRC DST")
		}
		src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
		if _, err := os.Lstat(dst); err == nil {
			ts.Fatalf("cptree: %s exists", args[1])
		}
		ts.Check(copyDirTree(src, dst))
	}

	// cmptree A B fails unless the two trees hold the same files with the
	// same content (and, with !, passes only if they differ); it names the
	// first difference.
	scriptCmds["cmptree"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: cmptree A B")
		}
		a, b := readTree(ts, ts.MkAbs(args[0])), readTree(ts, ts.MkAbs(args[1]))
		diff := ""
		for _, name := range sortedUnion(a, b) {
			x, inA := a[name]
			y, inB := b[name]
			switch {
			case !inA:
				diff = name + " is only in " + args[1]
			case !inB:
				diff = name + " is only in " + args[0]
			case !bytes.Equal(x, y):
				diff = name + " differs"
			}
			if diff != "" {
				break
			}
		}
		switch {
		case diff != "" && !neg:
			ts.Fatalf("%s and %s differ: %s", args[0], args[1], diff)
		case diff == "" && neg:
			ts.Fatalf("%s and %s are the same", args[0], args[1])
		}
	}
}

// copyDirTree copies the files and folders under src to dst.
func copyDirTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// readTree reads every file under root (folders too, as empty entries
// ending in /), keyed by slash-separated relative path.
func readTree(ts *testscript.TestScript, root string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = data
		return err
	})
	ts.Check(err)
	return out
}

func sortedUnion(a, b map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string][]byte{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
