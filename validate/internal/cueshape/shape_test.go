package cueshape

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// The shape walk is an accelerated reading of the CUE schema. These tests
// prove, on validate's built-in schema, that it reports what full CUE
// evaluation of the same blob reports:
// on real catalogs (which must both pass), and on thousands of blobs with
// one random defect each (where both must name the same field and the same
// kind of problem).

// finding is one problem as a (path, rule) pair.
type finding struct{ path, rule string }

// walkFindings runs the shape walk of a blob (and of its properties' values).
func walkFindings(s *testSchema, root *declcfg.Node) []finding {
	var out []finding
	report := func(rule string, _ *declcfg.Node, p *shape.Path, _ string) {
		if rule != declcfg.RuleKeyCase {
			out = append(out, finding{p.String(), rule})
		}
	}
	if sh := s.schemas[str(member(root, "schema"))]; sh != nil {
		sh.Walk(root, nil, report)
	}
	if props := member(root, "properties"); props != nil && props.Kind == declcfg.SequenceNode {
		for i, item := range props.Content {
			v := member(item, "value")
			if sh := s.properties[str(member(item, "type"))]; sh != nil && !declcfg.IsNull(v) {
				sh.Walk(v, (*shape.Path)(nil).Field("properties").Elem(i).Field("value"), report)
			}
		}
	}
	return dedupFindings(out)
}

// member returns the value of key in mapping n, or nil.
func member(n *declcfg.Node, key string) *declcfg.Node {
	entries, err := declcfg.MappingEntries(declcfg.Deref(n))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Key == key {
			return declcfg.Deref(e.Value)
		}
	}
	return nil
}

// str returns the string n holds, or "".
func str(n *declcfg.Node) string {
	if n == nil || shape.NodeKind(n) != shape.StringKind {
		return ""
	}
	return n.Value
}

// testSchema is validate's built-in schema, read from its files and
// compiled as validate compiles it.
type testSchema struct {
	rt                  *Runtime
	cue                 cue.Value
	schemas, properties map[string]*shape.Shape
}

var (
	builtinOnce sync.Once
	builtin     *testSchema
	builtinErr  error
)

// builtinSchema compiles ../../schema, the files validate embeds.
func builtinSchema(t testing.TB) *testSchema {
	t.Helper()
	builtinOnce.Do(func() {
		rt := NewRuntime()
		v, err := rt.Load(os.DirFS("../../schema"), ".", "schema")
		if err != nil {
			builtinErr = err
			return
		}
		var c Compiler
		s := &testSchema{rt: rt, cue: v}
		table, err := c.Table(v, "schemas", "properties", "files")
		if err == nil {
			var m shape.Maps
			m, err = shape.Build(table)
			s.schemas, s.properties = m.Schemas, m.Properties
		}
		builtin, builtinErr = s, err
	})
	if builtinErr != nil {
		t.Fatal(builtinErr)
	}
	return builtin
}

// cueFindings evaluates the blob with CUE: the blob against its schema's
// definition, and each property value against its type's definition.
func cueFindings(s *testSchema, val map[string]any) []finding {
	var out []finding
	eval := func(def cue.Value, v any, prefix string) {
		err := def.Unify(s.rt.ctx.Encode(v)).Validate(cue.Concrete(true))
		skip := len(def.Path().Selectors())
		perPath := map[string][]string{}
		var order []string
		for _, e := range cueerrors.Errors(err) {
			sels := e.Path()
			if len(sels) >= skip {
				sels = sels[skip:]
			}
			p := joinPath(prefix, cuePathString(sels))
			if _, ok := perPath[p]; !ok {
				order = append(order, p)
			}
			format, _ := e.Msg()
			if strings.Contains(format, "errors in empty disjunction") {
				perPath[p] = append(perPath[p], "") // a summary; its parts follow
				continue
			}
			perPath[p] = append(perPath[p], classifyCUEError(e))
		}
		for _, p := range order {
			out = append(out, finding{p, normalizeCUEClasses(perPath[p])})
		}
	}
	schema, _ := val["schema"].(string)
	if def := s.cue.LookupPath(cue.MakePath(cue.Str("schemas"), cue.Str(schema))); def.Exists() {
		eval(def, val, "")
	}
	props, _ := val["properties"].([]any)
	for i, item := range props {
		m, _ := item.(map[string]any)
		typ, _ := m["type"].(string)
		v, ok := m["value"]
		if !ok || v == nil {
			continue
		}
		if def := s.cue.LookupPath(cue.MakePath(cue.Str("properties"), cue.Str(typ))); def.Exists() {
			eval(def, v, fmt.Sprintf("properties[%d].value", i))
		}
	}
	return dedupFindings(out)
}

// normalizeCUEClasses turns the errors CUE reports at one path into one rule:
// a disjunction that failed on types is a type error.
func normalizeCUEClasses(classes []string) string {
	var real []string
	for _, c := range classes {
		if c != "" {
			real = append(real, c)
		}
	}
	switch {
	case len(real) == 0:
		return shape.RuleInvalidValue
	case slices.Contains(real, declcfg.RuleFieldType) && len(classes) > len(real):
		// "N errors in empty disjunction": every alternative failed.
		if !slices.ContainsFunc(real, func(c string) bool { return c != declcfg.RuleFieldType }) {
			return declcfg.RuleFieldType
		}
		return shape.RuleInvalidValue
	case len(classes) > len(real):
		return shape.RuleInvalidValue
	}
	return real[0]
}

// cuePathString writes a CUE error's path as the walk's paths are written.
func cuePathString(sels []string) string {
	var p *shape.Path
	for _, s := range sels {
		if i, err := strconv.Atoi(s); err == nil && i >= 0 {
			p = p.Elem(i)
			continue
		}
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
		p = p.Field(s)
	}
	return p.String()
}

func joinPath(prefix, p string) string {
	switch {
	case prefix == "":
		return p
	case p == "":
		return prefix
	case strings.HasPrefix(p, "["):
		return prefix + p
	}
	return prefix + "." + p
}

func dedupFindings(fs []finding) []finding {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].path != fs[j].path {
			return fs[i].path < fs[j].path
		}
		return fs[i].rule < fs[j].rule
	})
	return slices.Compact(fs)
}

// sampleCatalog is the project's sample catalog.
const sampleCatalog = "../../../testdata/catalog"

// corpusBlobs returns the documents of the project's sample catalog and of
// two real catalogs of the shared corpus.
func corpusBlobs(t testing.TB) []*declcfg.Node {
	t.Helper()
	dirs := []string{sampleCatalog,
		sharedtest.Path(t, "corpus", "community-operators-prod", "catalogs", "v4.22"),
		sharedtest.Path(t, "corpus", "certified-operators", "catalogs", "v4.18")}
	var docs []*declcfg.Node
	for _, d := range dirs {
		docs = append(docs, catalogBlobs(t, d)...)
	}
	return docs
}

// catalogBlobs returns the documents of the catalog at dir.
func catalogBlobs(t testing.TB, dir string) []*declcfg.Node {
	t.Helper()
	var docs []*declcfg.Node
	err := declcfg.WalkPath(context.Background(), dir, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
		for _, doc := range f.Docs {
			docs = append(docs, doc.Node)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func toNode(t testing.TB, v any) *declcfg.Node {
	t.Helper()
	n, err := valueNode(v)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// valueNode builds the tree a JSON value parses to: keys sorted, strings
// quoted (so never read as YAML 1.1 booleans), integral numbers !!int. It is
// built directly rather than through YAML text, which cannot hold every
// string (raw DEL and C1 controls are not allowed in a YAML stream).
func valueNode(v any) (*declcfg.Node, error) {
	scalar := func(tag, value string, style declcfg.Style) *declcfg.Node {
		return &declcfg.Node{Kind: declcfg.ScalarNode, Tag: tag, Value: value, Style: style}
	}
	switch v := v.(type) {
	case nil:
		return scalar("!!null", "null", 0), nil
	case bool:
		return scalar("!!bool", strconv.FormatBool(v), 0), nil
	case string:
		return scalar("!!str", v, declcfg.DoubleQuotedStyle), nil
	case int:
		return scalar("!!int", strconv.Itoa(v), 0), nil
	case int64:
		return scalar("!!int", strconv.FormatInt(v, 10), 0), nil
	case float64:
		text, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(string(text), ".eE") {
			return scalar("!!float", string(text), 0), nil
		}
		return scalar("!!int", string(text), 0), nil
	case []any:
		n := &declcfg.Node{Kind: declcfg.SequenceNode, Tag: "!!seq"}
		for _, e := range v {
			c, err := valueNode(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case map[string]any:
		n := &declcfg.Node{Kind: declcfg.MappingNode, Tag: "!!map"}
		for _, k := range sortedKeys(v) {
			c, err := valueNode(v[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, scalar("!!str", k, declcfg.DoubleQuotedStyle), c)
		}
		return n, nil
	}
	return nil, fmt.Errorf("no tree for %T", v)
}

func TestMatchesCUEOnRealCatalogs(t *testing.T) {
	s := builtinSchema(t)
	docs := corpusBlobs(t)
	if len(docs) < 10 {
		t.Fatalf("only %d documents found", len(docs))
	}
	for _, root := range docs {
		v, err := declcfg.NodeToValue(root)
		if err != nil {
			t.Fatal(err)
		}
		m := stripNulls(v).(map[string]any)
		walk, full := walkFindings(s, root), cueFindings(s, m)
		if !slices.Equal(walk, full) {
			t.Errorf("%v %v at line %d: walk found %v, CUE found %v", m["schema"], m["name"], root.Line, walk, full)
		}
	}
	t.Logf("%d real blobs agree", len(docs))
}

// chooser picks a number in [0, n): a *rand.Rand, or the fuzzer's bytes.
type chooser interface{ Intn(n int) int }

// mutate applies one random defect to a copy of v: a field removed, set to
// null, to the wrong type, to "" or to an unknown name, or an unknown field
// added. It returns a description for failure messages.
func mutate(r chooser, v map[string]any) (map[string]any, string) {
	cp := deepCopy(v).(map[string]any)
	return cp, defect(r, cp, nil)
}

// defect applies one random defect to v, in place, and describes it. extra,
// when not nil, is one more wrong value to choose from.
func defect(r chooser, v map[string]any, extra any) string {
	// Collect the objects and lists of the blob, with their paths.
	type spot struct {
		path string
		obj  map[string]any
		list []any
	}
	var spots []spot
	var collect func(x any, p string)
	collect = func(x any, p string) {
		switch y := x.(type) {
		case map[string]any:
			spots = append(spots, spot{path: p, obj: y})
			for _, k := range sortedKeys(y) {
				collect(y[k], p+"."+k)
			}
		case []any:
			spots = append(spots, spot{path: p, list: y})
			for i, e := range y {
				collect(e, fmt.Sprintf("%s[%d]", p, i))
			}
		}
	}
	collect(v, "")
	sp := spots[r.Intn(len(spots))]
	if sp.list != nil {
		if len(sp.list) == 0 {
			return "nothing"
		}
		i := r.Intn(len(sp.list))
		sp.list[i] = wrongValue(r, sp.list[i], extra)
		return fmt.Sprintf("%s[%d] = %#v", sp.path, i, sp.list[i])
	}
	keys := sortedKeys(sp.obj)
	if len(keys) == 0 || r.Intn(6) == 0 {
		sp.obj["zzUnknown"] = "x"
		return sp.path + ".zzUnknown added"
	}
	k := keys[r.Intn(len(keys))]
	switch r.Intn(3) {
	case 0:
		delete(sp.obj, k)
		return sp.path + "." + k + " removed"
	case 1:
		sp.obj[k] = nil
		return sp.path + "." + k + " = null"
	}
	sp.obj[k] = wrongValue(r, sp.obj[k], extra)
	return fmt.Sprintf("%s.%s = %#v", sp.path, k, sp.obj[k])
}

// wrongValue replaces a value by one of another kind (or an empty string or
// null, or extra when it is not nil). An object is never replaced by another
// object: that would be several defects at once (unknown and missing
// fields), of which CUE reports only some.
func wrongValue(r chooser, old any, extra any) any {
	choices := []any{"", 42, 1.5, true, []any{"x"}, map[string]any{"k": "v"}, "some text", nil}
	if extra != nil {
		choices = append(choices, extra)
	}
	_, oldIsObject := old.(map[string]any)
	fits := func(c any) bool {
		_, isObject := c.(map[string]any)
		return !(isObject && oldIsObject) && fmt.Sprint(c) != fmt.Sprint(old)
	}
	for range 2 * len(choices) {
		if c := choices[r.Intn(len(choices))]; fits(c) {
			return c
		}
	}
	// A chooser that keeps choosing the same (a fuzzer's exhausted bytes).
	for _, c := range choices {
		if fits(c) {
			return c
		}
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func TestMatchesCUEOnMutatedBlobs(t *testing.T) {
	s := builtinSchema(t)
	docs := corpusBlobs(t)
	r := rand.New(rand.NewSource(1))
	const perBlob = 1
	checked, defects := 0, 0
	for _, root := range docs {
		v, err := declcfg.NodeToValue(root)
		if err != nil {
			t.Fatal(err)
		}
		base := stripNulls(v).(map[string]any)
		shrinkStrings(base)
		for range perBlob {
			m, what := mutate(r, base)
			full := cueFindings(s, stripNulls(deepCopy(m)).(map[string]any))
			walk := walkFindings(s, toNode(t, m))
			checked++
			if len(full) > 0 {
				defects++
			}
			if !slices.Equal(walk, full) {
				t.Errorf("%v %v with %s: walk found %v, CUE found %v", base["schema"], base["name"], what, walk, full)
			}
		}
	}
	t.Logf("%d mutated blobs agree (%d with a shape defect)", checked, defects)
	if defects < checked/3 {
		t.Errorf("only %d of %d mutations were defects: the test is too weak", defects, checked)
	}
}

// shrinkStrings replaces long strings (base64 manifests) by short ones so
// that CUE evaluates mutations quickly; the schema constrains them only to
// be non-empty strings.
func shrinkStrings(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && len(s) > 64 {
				x[k] = s[:64]
			}
			shrinkStrings(e)
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && len(s) > 64 {
				x[i] = s[:64]
			}
			shrinkStrings(e)
		}
	}
}
