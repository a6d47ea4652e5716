package cmd

// Helpers for the path arguments of several commands.

// informationURI is where fbc lives, for SARIF's tool.driver and rule help
// links.
const informationURI = "https://github.com/fbc-project/fbc"

// firstFile is the first path argument that is not standard input: SARIF
// anchors diagnostics without a position there.
func firstFile(args []string) string {
	for _, a := range args {
		if a != "-" {
			return a
		}
	}
	return ""
}

// countStdin counts the arguments that name standard input.
func countStdin(args []string) int {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	return n
}
