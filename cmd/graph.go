package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
)

// loadGraph loads a catalog for the upgrade-graph commands. Unreadable
// files are trouble (exit 2); malformed content is a finding (exit 1), as
// a graph of half a catalog would mislead. Catalogs that load but break
// OLM's graph rules are fine: the graph commands exist to examine them.
func loadGraph(cmd *cobra.Command, path string) (*graph.Catalog, error) {
	cfg, err := declcfg.Load(cmd.Context(), []string{path}, declcfg.LoadOptions{Stdin: cmd.InOrStdin()})
	var le declcfg.LoadErrors
	switch {
	case errors.As(err, &le) && !le.HasIO():
		return nil, findingsError(fmt.Errorf("loading %s:\n%w", path, le))
	case err != nil:
		return nil, &exitError{code: ExitTrouble, err: err}
	}
	cat := graph.New(cfg)
	for _, w := range cat.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "fbc: warning: %s\n", w)
	}
	return cat, nil
}
