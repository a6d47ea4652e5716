package cmd

import (
	"os"
	"path/filepath"

	"github.com/fbc-project/fbc/repo"
)

// takeOperatorDirs sets aside the paths that are an operator's folder in
// an operator repository (operators/NAME), which validate checks against
// the pipelines' repository rules (validate.Options.Operators) instead of
// reading them as catalogs.
func takeOperatorDirs(args []string) (rest, operators []string) {
	for _, a := range args {
		if isOperatorFolder(a) {
			operators = append(operators, a)
			continue
		}
		rest = append(rest, a)
	}
	return rest, operators
}

func isOperatorFolder(path string) bool {
	if path == "-" {
		return false
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return false
	}
	op, err := repo.OperatorOf(path)
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(path)
	return err == nil && (abs == op.Dir || sameFile(abs, op.Dir))
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
