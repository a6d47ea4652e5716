package cmd

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/rogpeppe/go-internal/testscript"
)

// channels FILE prints a catalog's packages and channel graphs compactly,
// one line per channel: "CHANNEL: ENTRY[<REPLACES][!SKIP,...][~RANGE] ...",
// so scripts can check generated edges without bundle details.
func init() {
	scriptCmds["channels"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: channels FILE")
		}
		cfg, err := declcfg.LoadBytes(args[0], []byte(ts.ReadFile(args[0])))
		ts.Check(err)
		out := ts.Stdout()
		for _, p := range cfg.Packages {
			fmt.Fprintf(out, "package %s default %s\n", p.Name, p.DefaultChannel)
		}
		for _, c := range cfg.Channels {
			var b strings.Builder
			for _, e := range c.Entries {
				b.WriteString(" " + e.Name)
				if e.Replaces != "" {
					b.WriteString("<" + e.Replaces)
				}
				if len(e.Skips) > 0 {
					b.WriteString("!" + strings.Join(e.Skips, ","))
				}
				if e.SkipRange != "" {
					b.WriteString("~" + e.SkipRange)
				}
			}
			fmt.Fprintf(out, "%s:%s\n", c.Name, b.String())
		}
		for _, bl := range cfg.Bundles {
			fmt.Fprintf(out, "bundle %s %s\n", bl.Name, bl.Image)
		}
	}
}
