package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version may be set at link time (-ldflags "-X .../cmd.version=v1.2.3");
// otherwise the module version from the build info is used.
var version = ""

// VersionInfo is what `fbc version` reports.
type VersionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func buildVersion() VersionInfo {
	v := VersionInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	output := newEnum("text", "text", "json")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print fbc's version and the VCS revision it was built from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildVersion()
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
