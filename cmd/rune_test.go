package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxRunE is the most lines a command's RunE may take: it parses flags,
// makes one library call and formats the result (docs/architecture.md,
// "From the command line to output"); work beyond that belongs in the
// library that owns it, formatting in named helpers.
const maxRunE = 60

// TestRunEStaysShort measures every RunE function literal in the
// package's files, from "func" to its closing brace.
func TestRunEStaysShort(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if id, ok := kv.Key.(*ast.Ident); !ok || id.Name != "RunE" {
				return true
			}
			fl, ok := kv.Value.(*ast.FuncLit)
			if !ok {
				return true
			}
			seen++
			start, end := fset.Position(fl.Pos()), fset.Position(fl.End())
			if n := end.Line - start.Line + 1; n > maxRunE {
				t.Errorf("%s:%d: RunE is %d lines, more than %d: move work into its library, formatting into named helpers", f, start.Line, n, maxRunE)
			}
			return true
		})
	}
	if seen < 20 {
		t.Fatalf("found %d RunE functions: not the commands' files", seen)
	}
}
