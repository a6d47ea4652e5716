package compose

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
)

func bundleWith(name string, props ...declcfg.Property) declcfg.Bundle {
	return declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: "p", Name: name, Image: "quay.io/p/" + name, Properties: props}
}

func value(s string) json.RawMessage { return json.RawMessage(`"` + s + `"`) }

// TestValueSpool: large values of the spooled types leave memory and come
// back unchanged; a value is stored once however often it occurs; what
// decides a placeholder is the value alone.
func TestValueSpool(t *testing.T) {
	s := newValueSpool(t.TempDir())
	require.NotNil(t, s.f)
	defer s.Close()
	big := value(strings.Repeat("QUJD", spoolMin))
	other := value(strings.Repeat("REVG", spoolMin))
	small := json.RawMessage(`{"a":1}`)
	lookalike := json.RawMessage(`{"fbc.spooled":"0-1"}`)
	part := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{
		bundleWith("a", declcfg.Property{Type: declcfg.PropertyBundleObject, Value: big},
			declcfg.Property{Type: declcfg.PropertyCSVMetadata, Value: small},
			declcfg.Property{Type: "custom", Value: other}),
		bundleWith("b", declcfg.Property{Type: declcfg.PropertyBundleObject, Value: big},
			declcfg.Property{Type: declcfg.PropertyBundleObject, Value: other},
			declcfg.Property{Type: declcfg.PropertyCSVMetadata, Value: lookalike}),
	}}
	want, err := json.Marshal(part)
	require.NoError(t, err)
	require.NoError(t, s.stash(part))

	a, b := part.Bundles[0].Properties, part.Bundles[1].Properties
	assert.Less(t, len(a[0].Value), 100, "a large bundle object stays in memory")
	assert.Equal(t, small, a[1].Value, "a small value is not spooled")
	assert.Equal(t, other, a[2].Value, "a custom property's value is not spooled")
	assert.Equal(t, a[0].Value, b[0].Value, "one value, two placeholders")
	assert.NotEqual(t, b[0].Value, b[1].Value, "two values, one placeholder")
	assert.NotEqual(t, lookalike, b[2].Value, "a value that looks like a placeholder is kept as it is")
	assert.Equal(t, int64(len(big)+len(other)+len(lookalike)), s.off, "each value is stored once")

	slim, err := json.Marshal(part)
	require.NoError(t, err)
	got, err := s.restore(part)
	require.NoError(t, err)
	restored, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(restored))
	again, err := json.Marshal(part)
	require.NoError(t, err)
	assert.Equal(t, string(slim), string(again), "restore changed its input")

	// A placeholder the spool did not make is an error, not a value.
	_, err = s.restore(&declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{
		bundleWith("c", declcfg.Property{Type: declcfg.PropertyBundleObject, Value: json.RawMessage(`{"fbc.spooled":"feed-9"}`)})}})
	assert.ErrorContains(t, err, `unknown spooled value "feed-9"`)
}

// TestValueSpoolInMemory: where no temporary file can be made, values stay
// where they are and come back as they are.
func TestValueSpoolInMemory(t *testing.T) {
	s := newValueSpool(filepath.Join(t.TempDir(), "missing"))
	require.Nil(t, s.f)
	big := value(strings.Repeat("QUJD", spoolMin))
	part := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{bundleWith("a", declcfg.Property{Type: declcfg.PropertyBundleObject, Value: big})}}
	require.NoError(t, s.stash(part))
	assert.Equal(t, big, part.Bundles[0].Properties[0].Value)
	got, err := s.restore(part)
	require.NoError(t, err)
	assert.Equal(t, big, got.Bundles[0].Properties[0].Value)
	require.NoError(t, s.Close())
}
