package cueshape

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/shape"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkWalk compares the compiled shapes of validate's built-in schema
// with CUE evaluating the same definitions on the same parsed documents
// (Eval: what validate does for --schema policies and for any part of a
// definition the compiler leaves to CUE), blob and property values alike,
// on the certified-operators catalogs v4.16 (53 MB, olm.bundle.object) and
// v4.18 (20 MB, olm.csv.metadata) of the shared corpus:
//
//	go test ./validate/internal/cueshape -run '^$' -bench Walk -benchtime 3x
//
// MB/s counts the catalog's file bytes; <catalog>/cue reports x-native, its
// time as a multiple of <catalog>/native's.
func BenchmarkWalk(b *testing.B) {
	s := builtinSchema(b)
	corpus := sharedtest.Corpus(b)
	for _, name := range []string{"v4.16", "v4.18"} {
		dir := filepath.Join(corpus, "certified-operators", "catalogs", name)
		checks := shapeChecks(s, catalogBlobs(b, dir))
		size := treeSize(b, dir)
		var nativeTime time.Duration
		var found [2]int
		run := func(i int, check func(c shapeCheck, report shape.Report)) func(*testing.B) {
			return func(b *testing.B) {
				b.SetBytes(size)
				found[i] = 0
				report := func(string, *declcfg.Node, *shape.Path, string) { found[i]++ }
				start := time.Now()
				for range b.N {
					for _, c := range checks {
						check(c, report)
					}
				}
				per := time.Since(start) / time.Duration(b.N)
				if i == 0 {
					nativeTime = per
				} else if nativeTime > 0 {
					b.ReportMetric(float64(per)/float64(nativeTime), "x-native")
				}
			}
		}
		b.Run(name+"/native", run(0, func(c shapeCheck, report shape.Report) { c.shape.Walk(c.node, c.path, report) }))
		b.Run(name+"/cue", run(1, func(c shapeCheck, report shape.Report) { Eval(s.rt, c.def, c.node, c.path, report) }))
		if found[0] != found[1] {
			b.Errorf("%s: the walk found %d problems, CUE %d", name, found[0], found[1])
		}
	}
}

// A shapeCheck is one node to check: a blob against its schema's definition
// or a property value against its type's.
type shapeCheck struct {
	shape *shape.Shape
	def   cue.Value
	node  *declcfg.Node
	path  *shape.Path
}

func shapeChecks(s *testSchema, docs []*declcfg.Node) []shapeCheck {
	var out []shapeCheck
	add := func(m map[string]*shape.Shape, kind, name string, n *declcfg.Node, p *shape.Path) {
		if sh := m[name]; sh != nil && !declcfg.IsNull(n) {
			out = append(out, shapeCheck{sh, s.cue.LookupPath(cue.MakePath(cue.Str(kind), cue.Str(name))), n, p})
		}
	}
	for _, root := range docs {
		schema := str(member(root, "schema"))
		add(s.schemas, "schemas", schema, root, shape.Root(schema+" blob"))
		if props := member(root, "properties"); props != nil && props.Kind == declcfg.SequenceNode {
			for i, item := range props.Content {
				add(s.properties, "properties", str(member(item, "type")), member(item, "value"), (*shape.Path)(nil).Field("properties").Elem(i).Field("value"))
			}
		}
	}
	return out
}

// treeSize is the size of the files under dir.
func treeSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
