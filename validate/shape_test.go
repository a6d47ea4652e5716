package validate

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg"
)

// The shape walk is an accelerated reading of the CUE schema. These tests
// prove that it reports what full CUE evaluation of the same blob reports:
// on real catalogs (which must both pass), and on thousands of blobs with
// one random defect each (where both must name the same field and the same
// kind of problem).

// finding is one problem as a (path, rule) pair.
type finding struct{ path, rule string }

// walkFindings runs the shape walk of a blob (and of its properties' values).
func walkFindings(t testing.TB, s *catalogSchema, root *yaml.Node) []finding {
	t.Helper()
	var out []finding
	report := func(rule string, _ *yaml.Node, p *fieldPath, _ string) {
		if rule != declcfg.RuleKeyCase {
			out = append(out, finding{p.String(), rule})
		}
	}
	schema := strValue(field(root, "schema"))
	if sh := s.schemas[schema]; sh != nil {
		sh.walk(root, nil, report)
	}
	for i, item := range items(field(root, "properties")) {
		typ := strValue(field(item, "type"))
		v := field(item, "value")
		if sh := s.properties[typ]; sh != nil && !isNull(v) {
			sh.walk(v, (*fieldPath)(nil).field("properties").elem(i).field("value"), report)
		}
	}
	return dedupFindings(out)
}

// cueFindings evaluates the blob with CUE: the blob against its schema's
// definition, and each property value against its type's definition.
func cueFindings(t testing.TB, s *catalogSchema, val map[string]any) []finding {
	t.Helper()
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
		return RuleInvalidValue
	case slices.Contains(real, declcfg.RuleFieldType) && len(classes) > len(real):
		// "N errors in empty disjunction": every alternative failed.
		if !slices.ContainsFunc(real, func(c string) bool { return c != declcfg.RuleFieldType }) {
			return declcfg.RuleFieldType
		}
		return RuleInvalidValue
	case len(classes) > len(real):
		return RuleInvalidValue
	}
	return real[0]
}

func cuePathString(sels []string) string {
	var b strings.Builder
	for _, s := range sels {
		if _, err := strconv.Atoi(s); err == nil {
			fmt.Fprintf(&b, "[%s]", s)
			continue
		}
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if isIdentifier(s) {
			b.WriteString(s)
		} else {
			b.WriteString(strconv.Quote(s))
		}
	}
	return b.String()
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

// corpusBlobs returns the documents of the project's sample catalogs and, if
// the shared corpus is present, of one real catalog.
func corpusBlobs(t testing.TB) []*yaml.Node {
	t.Helper()
	dirs := []string{"../testdata/catalog"}
	shared := os.Getenv("FBC_SHARED")
	if shared == "" {
		shared = "../../shared"
	}
	for _, d := range []string{"corpus/community-operators-prod/catalogs/v4.22", "corpus/certified-operators/catalogs/v4.18"} {
		if _, err := os.Stat(filepath.Join(shared, d)); err == nil {
			dirs = append(dirs, filepath.Join(shared, d))
		}
	}
	var docs []*yaml.Node
	for _, d := range dirs {
		err := declcfg.WalkPath(context.Background(), d, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
			for _, doc := range f.Docs {
				docs = append(docs, doc.Node)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

func toNode(t testing.TB, v any) *yaml.Node {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func TestShapeMatchesCUEOnRealCatalogs(t *testing.T) {
	s, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
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
		walk, full := walkFindings(t, s, root), cueFindings(t, s, m)
		if !slices.Equal(walk, full) {
			t.Errorf("%v %v at line %d: walk found %v, CUE found %v", m["schema"], m["name"], root.Line, walk, full)
		}
	}
	t.Logf("%d real blobs agree", len(docs))
}

// mutate applies one random defect to a copy of v: a field removed, set to
// null, to the wrong type, to "" or to an unknown name, or an unknown field
// added. It returns a description for failure messages.
func mutate(r *rand.Rand, v map[string]any) (map[string]any, string) {
	cp := deepCopy(v).(map[string]any)
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
	collect(cp, "")
	sp := spots[r.Intn(len(spots))]
	if sp.list != nil {
		if len(sp.list) == 0 {
			return cp, "nothing"
		}
		i := r.Intn(len(sp.list))
		sp.list[i] = wrongValue(r, sp.list[i])
		return cp, fmt.Sprintf("%s[%d] = %#v", sp.path, i, sp.list[i])
	}
	keys := sortedKeys(sp.obj)
	if len(keys) == 0 || r.Intn(6) == 0 {
		sp.obj["zzUnknown"] = "x"
		return cp, sp.path + ".zzUnknown added"
	}
	k := keys[r.Intn(len(keys))]
	switch r.Intn(3) {
	case 0:
		delete(sp.obj, k)
		return cp, sp.path + "." + k + " removed"
	case 1:
		sp.obj[k] = nil
		return cp, sp.path + "." + k + " = null"
	}
	sp.obj[k] = wrongValue(r, sp.obj[k])
	return cp, fmt.Sprintf("%s.%s = %#v", sp.path, k, sp.obj[k])
}

// wrongValue replaces a value by one of another kind (or an empty string or
// null). An object is never replaced by another object: that would be
// several defects at once (unknown and missing fields), of which CUE reports
// only some.
func wrongValue(r *rand.Rand, old any) any {
	choices := []any{"", 42, 1.5, true, []any{"x"}, map[string]any{"k": "v"}, "some text", nil}
	_, oldIsObject := old.(map[string]any)
	for {
		c := choices[r.Intn(len(choices))]
		if _, isObject := c.(map[string]any); isObject && oldIsObject {
			continue
		}
		if fmt.Sprint(c) != fmt.Sprint(old) {
			return c
		}
	}
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

func TestShapeMatchesCUEOnMutatedBlobs(t *testing.T) {
	s, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
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
			full := cueFindings(t, s, stripNulls(deepCopy(m)).(map[string]any))
			walk := walkFindings(t, s, toNode(t, m))
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
