package cmd

import (
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// doc-block FILE HEADING prints the first ```sh block after the line
	// that starts with HEADING in a markdown FILE, so a script can run a
	// documented walkthrough exactly as the page shows it.
	scriptCmds["doc-block"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: doc-block FILE HEADING")
		}
		lines := strings.Split(ts.ReadFile(args[0]), "\n")
		i := 0
		for i < len(lines) && !strings.HasPrefix(lines[i], args[1]) {
			i++
		}
		if i == len(lines) {
			ts.Fatalf("%s: no line starts with %q", args[0], args[1])
		}
		for i < len(lines) && lines[i] != "```sh" {
			i++
		}
		var block []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		if i == len(lines) || len(block) == 0 {
			ts.Fatalf("%s: no complete ```sh block after %q", args[0], args[1])
		}
		ts.Stdout().Write([]byte(strings.Join(block, "\n") + "\n"))
	}
}
