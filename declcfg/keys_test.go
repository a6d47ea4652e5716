package declcfg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func keysRoot(t *testing.T, text string) *Node {
	t.Helper()
	docs, err := ParseYAML([]byte(text))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	return docs[0].Node
}

func TestKeysLookup(t *testing.T) {
	root := keysRoot(t, `name: first
Name: folded
name: last
Image: only-folded
image2: x
anchor: &a {k: v}
alias: *a
`)
	cases := []struct {
		rule      Keys
		key, want string
		line      int
	}{
		{CatalogKeys, "name", "first", 1}, // exact wins over folded; the first of repeated keys
		{PipelineKeys, "name", "last", 3}, // exact only; the last
		{JSONKeys, "name", "last", 3},     // exact wins; the last
		{ManifestKeys, "NAME", "", 0},     // no folding
		{CatalogKeys, "NAME", "first", 1}, // folded: the first
		{JSONKeys, "NAME", "last", 3},     // folded: the last
		{CatalogKeys, "image", "only-folded", 4},
		{PipelineKeys, "image", "", 0},
		{CatalogKeys, "missing", "", 0},
	}
	for _, c := range cases {
		k, v := c.rule.Lookup(root, c.key)
		if c.want == "" {
			assert.Nil(t, k, "%+v %s", c.rule, c.key)
			assert.Nil(t, v, "%+v %s", c.rule, c.key)
			continue
		}
		require.NotNil(t, v, "%+v %s", c.rule, c.key)
		assert.Equal(t, c.want, v.Value, "%+v %s", c.rule, c.key)
		assert.Equal(t, c.line, k.Line, "%+v %s", c.rule, c.key)
	}
	// Aliases are followed, and a lookup in something that is no mapping
	// finds nothing.
	v := PipelineKeys.Value(root, "alias")
	require.NotNil(t, v)
	assert.Equal(t, MappingNode, v.Kind)
	assert.Equal(t, "v", PipelineKeys.Value(v, "k").Value)
	assert.Nil(t, PipelineKeys.Value(PipelineKeys.Value(root, "image2"), "x"))
	assert.Nil(t, PipelineKeys.Value(nil, "x"))
}

func TestKeysStep(t *testing.T) {
	root := keysRoot(t, "a:\n- x\n- {b: 1, b: 2}\n")
	_, list := ManifestKeys.Step(root, "a")
	require.NotNil(t, list)
	k, item := ManifestKeys.Step(list, "1")
	assert.Nil(t, k)
	require.NotNil(t, item)
	k, v := ManifestKeys.Step(item, "b")
	assert.Equal(t, "2", v.Value)
	assert.Equal(t, 3, k.Line)
	for _, bad := range []string{"2", "-1", "x"} {
		_, v := ManifestKeys.Step(list, bad)
		assert.Nil(t, v, bad)
	}
}

func TestRepeatedKeys(t *testing.T) {
	root := keysRoot(t, `a: 1
b:
  c: 1
  c: 2
  c: 3
a: 2
base: &m {x: 1}
merged:
  <<: *m
  <<: *m
  y: 1
`)
	rs := RepeatedKeys(root)
	require.Len(t, rs, 2)
	lines := func(r RepeatedKey) []int {
		var out []int
		for _, k := range r.Keys {
			out = append(out, k.Line)
		}
		return out
	}
	assert.Equal(t, "c", rs[0].Keys[0].Value)
	assert.Equal(t, []int{3, 4, 5}, lines(rs[0]))
	assert.Equal(t, "a", rs[1].Keys[0].Value)
	assert.Equal(t, []int{1, 6}, lines(rs[1]))
	assert.Empty(t, RepeatedKeys(keysRoot(t, "a: {b: 1}\nc: [d, {e: 1}]\n")))
}

func TestIsNull(t *testing.T) {
	root := keysRoot(t, "a: null\nb: ~\nc:\nd: 'null'\n")
	for _, k := range []string{"a", "b", "c", "missing"} {
		assert.True(t, IsNull(PipelineKeys.Value(root, k)), k)
	}
	assert.False(t, IsNull(PipelineKeys.Value(root, "d")))
}
