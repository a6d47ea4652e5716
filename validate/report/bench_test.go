package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// BenchmarkWrite measures each format on 10,000 diagnostics, the size of a
// badly broken large catalog, to keep report writing negligible next to
// validation.
func BenchmarkWrite(b *testing.B) {
	res := &validate.Result{Stats: validate.Stats{Files: 100, Packages: 100, Channels: 300, Bundles: 3000}}
	for i := range 10000 {
		res.Diagnostics = append(res.Diagnostics, declcfg.Finding{
			Rule: "unknown-field", Severity: declcfg.SeverityWarning,
			Pos:     declcfg.Pos{File: fmt.Sprintf("catalog/pkg%03d/catalog.yaml", i%100), Line: i + 1, Col: 5},
			Package: fmt.Sprintf("pkg%03d", i%100), Channel: "stable", Bundle: fmt.Sprintf("pkg.v1.%d.0", i),
			Message: `unknown field "replace" in entries[1]; did you mean "replaces"?`,
		})
	}
	opts := sampleOptions()
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if err := Write(io.Discard, format, res, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("step-summary", func(b *testing.B) {
		for b.Loop() {
			if err := WriteStepSummary(io.Discard, res, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
