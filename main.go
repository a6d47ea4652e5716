// Command fbc authors, validates and simulates OLM file-based catalogs.
package main

import (
	"os"

	"github.com/fbc-project/fbc/cmd"
)

func main() { os.Exit(cmd.Main()) }
