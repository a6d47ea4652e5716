package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/internal/buildinfo"
)

func newVersionCmd() *cobra.Command {
	output := newEnum("text", "text", "json")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print fbc's version and the VCS revision it was built from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildinfo.Read()
			if output.String() == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			line := "fbc " + v.Version
			if v.Revision != "" {
				rev := v.Revision
				if len(rev) > 12 {
					rev = rev[:12]
				}
				line += " (" + rev
				if v.Modified {
					line += ", modified"
				}
				line += ")"
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s %s %s\n", line, v.GoVersion, v.Platform)
			return err
		},
	}
	output.register(cmd, "output", "o", "output format")
	return cmd
}
