package declcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spoolCatalog has every tie opm's order can meet: two olm.package blobs of
// a name, channels and bundles of one name, blobs of other schemas in and
// out of packages (the loose ones must stay in load order, whatever their
// schema), and a package whose blobs come before and after another's.
const spoolCatalog = `{"schema":"custom.z","package":"b","n":1}
{"schema":"zzz.loose","n":1}
{"schema":"olm.bundle","package":"b","name":"b.v2","image":"i"}
{"schema":"olm.deprecations","package":"b","entries":[]}
{"schema":"olm.channel","package":"b","name":"z","entries":[{"name":"b.v2"}]}
{"schema":"olm.package","name":"b","defaultChannel":"a"}
{"schema":"custom.a","package":"b","n":2}
{"schema":"aaa.loose","n":2}
{"schema":"olm.bundle","package":"a","name":"a.v1","image":"first"}
{"schema":"olm.bundle","package":"b","name":"b.v1","image":"i"}
{"schema":"olm.channel","package":"b","name":"a","entries":[{"name":"b.v1"}]}
{"schema":"olm.bundle","package":"a","name":"a.v1","image":"second"}
{"schema":"custom.z","package":"b","n":3}
{"schema":"olm.package","name":"a","defaultChannel":"x"}
{"schema":"olm.package","name":"b","defaultChannel":"second"}
{"schema":"olm.channel","package":"b","name":"z","entries":[{"name":"b.v1"}]}
`

// parts splits a catalog file the way a streaming reader hands it over:
// in load order, a few documents at a time.
func parts(t *testing.T, text string, per int) []*DeclarativeConfig {
	t.Helper()
	lines := strings.SplitAfter(strings.TrimSpace(text), "\n")
	var out []*DeclarativeConfig
	for i := 0; i < len(lines); i += per {
		cfg, err := LoadBytes("part.json", []byte(strings.Join(lines[i:min(i+per, len(lines))], "")))
		require.NoError(t, err)
		out = append(out, cfg)
	}
	return out
}

func spoolBytes(t *testing.T, f Format, add func(*Spool)) string {
	t.Helper()
	s, err := NewSpool(f)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	add(s)
	var buf bytes.Buffer
	_, err = s.WriteTo(&buf)
	require.NoError(t, err)
	return buf.String()
}

func TestSpoolWritesWhatWriteWrites(t *testing.T) {
	whole, err := LoadBytes("whole.json", []byte(spoolCatalog))
	require.NoError(t, err)
	for _, f := range []Format{FormatJSON, FormatYAML} {
		var want bytes.Buffer
		require.NoError(t, Write(whole, f, &want))
		for _, per := range []int{1, 3, 100} {
			t.Run(fmt.Sprintf("%s/%d per part", f, per), func(t *testing.T) {
				got := spoolBytes(t, f, func(s *Spool) {
					for _, p := range parts(t, spoolCatalog, per) {
						require.NoError(t, s.Add(0, p))
					}
				})
				assert.Equal(t, want.String(), got)
			})
		}
	}
}

func TestSpoolOrder(t *testing.T) {
	got := spoolBytes(t, FormatJSON, func(s *Spool) {
		for _, p := range parts(t, spoolCatalog, 2) {
			require.NoError(t, s.Add(0, p))
		}
	})
	var order []string
	dec := json.NewDecoder(strings.NewReader(got))
	for dec.More() {
		var b struct {
			Schema, Package, Name, Image, DefaultChannel string
			N                                            int
			Entries                                      []struct{ Name string }
		}
		require.NoError(t, dec.Decode(&b))
		desc := b.Schema + " " + b.Package + b.Name + " " + b.Image + b.DefaultChannel
		if b.N != 0 {
			desc += fmt.Sprint(b.N)
		}
		if b.Schema == SchemaChannel {
			desc += b.Entries[0].Name
		}
		order = append(order, desc)
	}
	assert.Equal(t, []string{
		"olm.package a x",
		"olm.bundle aa.v1 first",
		"olm.bundle aa.v1 second",
		"olm.package b a",
		"olm.package b second",
		"olm.channel ba b.v1",
		"olm.channel bz b.v2",
		"olm.channel bz b.v1",
		"olm.bundle bb.v1 i",
		"olm.bundle bb.v2 i",
		"custom.a b 2",
		"custom.z b 1",
		"custom.z b 3",
		"olm.deprecations b ",
		"zzz.loose  1",
		"aaa.loose  2",
	}, order)
}

// Sources added from several goroutines come out in source order where
// opm's order ties, however their calls interleave.
func TestSpoolSourcesInOrder(t *testing.T) {
	srcs := []string{
		`{"schema":"olm.bundle","package":"p","name":"x","image":"src0"}`,
		`{"schema":"olm.bundle","package":"p","name":"x","image":"src1"}`,
		`{"schema":"olm.bundle","package":"p","name":"x","image":"src2"}`,
	}
	var whole DeclarativeConfig
	for _, s := range srcs {
		cfg, err := LoadBytes("s.json", []byte(s))
		require.NoError(t, err)
		whole.Merge(cfg)
	}
	var want bytes.Buffer
	require.NoError(t, WriteJSON(&whole, &want))
	for range 20 {
		got := spoolBytes(t, FormatJSON, func(s *Spool) {
			var wg sync.WaitGroup
			for i := len(srcs) - 1; i >= 0; i-- {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cfg, err := LoadBytes("s.json", []byte(srcs[i]))
					assert.NoError(t, err)
					assert.NoError(t, s.Add(i, cfg))
				}()
			}
			wg.Wait()
		})
		require.Equal(t, want.String(), got)
	}
}

// Without a usable temporary directory the spool keeps its bytes in memory
// and writes the same output.
func TestSpoolInMemory(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	whole, err := LoadBytes("whole.json", []byte(spoolCatalog))
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, WriteJSON(whole, &want))
	s, err := NewSpool(FormatJSON)
	require.NoError(t, err)
	assert.Nil(t, s.file)
	require.NoError(t, s.Add(0, whole))
	assert.Equal(t, 16, s.Len())
	var buf bytes.Buffer
	_, err = s.WriteTo(&buf)
	require.NoError(t, err)
	assert.Equal(t, want.String(), buf.String())
	require.NoError(t, s.Close())
}

func TestSpoolRefusesUnknownFormat(t *testing.T) {
	_, err := NewSpool("toml")
	assert.ErrorContains(t, err, `unknown output format "toml"`)
}
