package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/ctxio"
)

// The upgrade-graph page (fbc graph -o html, fbc diff -o html) and the
// --output-file both commands take.

// diffPageReads keeps what a diff page reads: what the simulations read
// (graph.Slim) and the lifecycle blobs, whose phases the page shows.
var diffPageReads = catalogReads{values: graph.ReadsValue, part: func(part *declcfg.DeclarativeConfig) {
	kept := map[int]json.RawMessage{}
	for i, m := range part.Others {
		if m.Schema == declcfg.SchemaLifecycle {
			kept[i] = m.Blob
		}
	}
	graph.Slim(part)
	for i, b := range kept {
		part.Others[i].Blob = b
	}
}}

// writeOutput writes a command's output to standard output, or, when path
// is set, to that file through a temporary file renamed into place once
// the whole output is written: an interrupt or an error leaves the file
// as it was.
func writeOutput(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(cmd.OutOrStdout())
	}
	if err := checkOutputFile(path); err != nil {
		return err
	}
	ctx := cmd.Context()
	err := atomicfile.Write(ctx, path, 0o644, func(w io.Writer) error {
		return write(ctxio.Writer(ctx, w))
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("--output-file %s: %w", path, err)
	}
	return err
}

// checkOutputFile says, in the user's words before a temporary name could,
// why --output-file cannot be written: its directory is missing, or it
// names a directory. The commands call it before they load anything, so
// that a long run does not end in the refusal, and writeOutput again.
func checkOutputFile(path string) error {
	if path == "" {
		return nil
	}
	if strings.HasSuffix(path, "/") {
		return usageErrorf("--output-file %s: name a file, not a directory", path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErrorf("--output-file %s: %s is a directory; name a file", path, path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usageErrorf("--output-file %s: there is no directory %s to write it in", path, filepath.Dir(path))
	}
	return nil
}
