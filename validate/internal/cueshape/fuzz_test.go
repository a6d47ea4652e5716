package cueshape

import (
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// FuzzMatchesCUE applies one to three fuzzer-chosen defects (as
// TestMatchesCUEOnMutatedBlobs does, with the fuzzer's text as one more
// wrong value) to a blob of the project's sample catalog, and checks that
// the walk and CUE agree on whether the blob is accepted and, for a single
// defect, that the walk finds what CUE finds, where CUE finds it:
//
//	go test ./validate/internal/cueshape -run '^$' -fuzz FuzzMatchesCUE -fuzztime 30s -fuzzminimizetime 2s
//
// Each run evaluates CUE, so minimizing each new interesting input for the
// default minute would leave little of a short run for fuzzing.
func FuzzMatchesCUE(f *testing.F) {
	s := builtinSchema(f)
	var blobs []map[string]any
	for _, root := range catalogBlobs(f, sampleCatalog) {
		v, err := declcfg.NodeToValue(root)
		if err != nil {
			f.Fatal(err)
		}
		blobs = append(blobs, stripNulls(v).(map[string]any))
	}
	for i := range blobs {
		f.Add(uint8(i), []byte{}, "")
		f.Add(uint8(i), []byte{1, 2, 3, 4, 5, 6, 7, 8}, "olm.bundle")
		f.Add(uint8(i), []byte{2, 9, 0, 5, 2, 8, 1, 1, 3, 7, 9}, "yes")
	}
	f.Fuzz(func(t *testing.T, blob uint8, choices []byte, text string) {
		base := blobs[int(blob)%len(blobs)]
		r := &byteChooser{b: choices}
		m := deepCopy(base).(map[string]any)
		defects := 1 + r.Intn(3)
		var what []string
		for range defects {
			what = append(what, defect(r, m, strings.ToValidUTF8(text, "?")))
		}
		full := cueFindings(s, stripNulls(deepCopy(m)).(map[string]any))
		walk := walkFindings(s, toNode(t, m))
		agree := (len(walk) == 0) == (len(full) == 0)
		if agree && defects == 1 {
			// One defect can break several constraints (a blob given
			// another schema's name), of which CUE reports only some: what
			// CUE finds, the walk finds too.
			for _, f := range full {
				agree = agree && slices.Contains(walk, f)
			}
		}
		if !agree {
			t.Fatalf("%v %v with %s: walk found %v, CUE found %v", base["schema"], base["name"], strings.Join(what, "; "), walk, full)
		}
	})
}

// byteChooser chooses with the fuzzer's bytes, and 0 once they run out.
type byteChooser struct{ b []byte }

func (c *byteChooser) Intn(n int) int {
	v := 0
	for i := 0; i < 2 && len(c.b) > 0; i++ {
		v = v<<8 | int(c.b[0])
		c.b = c.b[1:]
	}
	return v % n
}
