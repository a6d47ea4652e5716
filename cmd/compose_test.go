package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// expand FILE... replaces $VAR and ${VAR} in files with the script's
	// environment (archive files are not expanded; configs that name a
	// test registry need its address).
	scriptCmds["expand"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: expand FILE...")
		}
		for _, f := range args {
			data := ts.ReadFile(f)
			ts.Check(os.WriteFile(ts.MkAbs(f), []byte(os.Expand(data, ts.Getenv)), 0o644))
		}
	}

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
