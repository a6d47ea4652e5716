package cmd

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// tree DIR prints the files under DIR, one relative slash-separated path
	// a line in lexical order, to stdout (find's order depends on the file
	// system).
	scriptCmds["tree"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: tree DIR")
		}
		root := ts.MkAbs(args[0])
		var b strings.Builder
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				b.WriteString(filepath.ToSlash(rel) + "\n")
			}
			return nil
		})
		ts.Check(err)
		ts.Stdout().Write([]byte(b.String()))
	}
}
