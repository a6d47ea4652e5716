package jsonstream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/jsonstream"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// splitValues cuts a JSON stream into its values with encoding/json.
func splitValues(b *testing.B, data []byte) []json.RawMessage {
	var values []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return values
		} else if err != nil {
			b.Fatal(err)
		}
		values = append(values, v)
	}
}

// BenchmarkParse parses the same real JSON catalogs with the Parser and
// with the library declcfg would fall back to, yaml.v3 into yaml.Node, one
// value at a time (a JSON stream is no YAML stream: the values are cut apart
// beforehand, outside the timing, which flatters yaml.v3); the ratio metric
// of the jsonstream run is the yaml.v3 time over its own. encoding/json's
// Decoder into any (UseNumber) is there for reference: it builds no nodes and
// keeps no positions.
func BenchmarkParse(b *testing.B) {
	// securesign-fbc's rendered rhtas-operator catalogs: opm's indented
	// JSON streams, 15 files.
	files, size := sharedtest.ReadCorpus(b, "securesign-fbc/*/*/catalog/*/catalog.json")
	var library float64
	b.Run("yaml.v3", func(b *testing.B) {
		var values []json.RawMessage
		for _, data := range files {
			values = append(values, splitValues(b, data)...)
		}
		b.SetBytes(size)
		for b.Loop() {
			for _, v := range values {
				var n yaml.Node
				if err := yaml.Unmarshal(v, &n); err != nil {
					b.Fatal(err)
				}
			}
		}
		library = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range files {
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.UseNumber()
				for {
					var v any
					if err := dec.Decode(&v); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("jsonstream", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range files {
				p := jsonstream.NewParser(data, false)
				for p.More() {
					if _, err := p.Value(); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		if library > 0 {
			b.ReportMetric(library/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-yaml.v3")
		}
	})
}
