package images

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzTopLevelKind holds topLevelKind, which reads an object's kind from
// the start of its JSON, to encoding/json: on a whole document it reads what
// encoding/json reads (when it reads anything), and on any prefix of it it
// reads that or nothing.
func FuzzTopLevelKind(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"ClusterServiceVersion","metadata":{"name":"x"}}`,
		`{"spec":{"names":{"kind":"Widget"}},"kind":"CustomResourceDefinition"}`,
		`{"a":[1,{"kind":"x"},"]"],"b":"\"kind\"","kind":"K"}`,
		` { "kind" : "K" }`,
		`{"kind":1}`,
		`[{"kind":"x"}]`,
	} {
		f.Add([]byte(s), 10)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		var v struct {
			Kind *string `json:"kind"`
		}
		valid := json.Unmarshal(data, &v) == nil && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
		kind, ok := topLevelKind(data)
		// Escapes are read as written, and invalid UTF-8 as it is
		// (encoding/json repairs it): a CSV's kind has neither.
		if valid && ok && v.Kind != nil && !bytes.ContainsAny([]byte(kind), "\\\"") && utf8.ValidString(kind) && kind != *v.Kind {
			t.Fatalf("read kind %q, encoding/json %q", kind, *v.Kind)
		}
		if cut < 0 || cut > len(data) {
			return
		}
		if pk, pok := topLevelKind(data[:cut]); valid && pok && ok && pk != kind {
			t.Fatalf("prefix %d read kind %q, the whole %q", cut, pk, kind)
		}
	})
}

// FuzzReplaySegment: any bytes replay or fail, never panic; a segment of
// records written as pogreb writes them replays to those records.
func FuzzReplaySegment(f *testing.F) {
	f.Add([]byte("k"), []byte("v"), []byte{})
	f.Add([]byte("packages.json"), []byte(`{}`), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, key, value, tail []byte) {
		if len(key) > 0xffff {
			return
		}
		seg := make([]byte, pogrebHeaderSize)
		copy(seg, pogrebSignature)
		rec := make([]byte, 6, 6+len(key)+len(value)+4)
		binary.LittleEndian.PutUint16(rec, uint16(len(key)))
		binary.LittleEndian.PutUint32(rec[2:], uint32(len(value)))
		rec = append(append(rec, key...), value...)
		rec = binary.LittleEndian.AppendUint32(rec, crc32.ChecksumIEEE(rec))
		seg = append(seg, rec...)
		kv := map[string][]byte{}
		if err := replaySegment(seg, kv); err != nil || !bytes.Equal(kv[string(key)], value) {
			t.Fatalf("a well-formed record: %v, %q", err, kv[string(key)])
		}
		_ = replaySegment(append(seg, tail...), map[string][]byte{})
		_ = replaySegment(tail, map[string][]byte{})
	})
}

// FuzzCSVRead holds csvDoc.readFast, the one-pass reading of a CSV, to
// encoding/json: what it answers for (ok), encoding/json reads the same;
// what it calls invalid, encoding/json refuses.
func FuzzCSVRead(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"op.v1","labels":{"operatorframework.io/arch.amd64":"supported"},"annotations":{"containerImage":"q.io/op@sha256:1","alm-examples":"[{\"a\":1}]"}},"spec":{"description":"x","relatedImages":[{"name":"a","image":"q.io/a:1"}],"install":{"strategy":"deployment","spec":{"deployments":[{"name":"d","spec":{"template":{"spec":{"initContainers":[{"name":"i","image":"q.io/i"}],"containers":[{"name":"m","image":"q.io/m","env":[{"name":"RELATED_IMAGE_X","value":"q.io/x"},{"name":"N","value":"1"}]}]}}}}]}}}}`,
		`{"kind":"ClusterServiceVersion","Kind":"X"}`,
		`{"kind":"ClusterServiceVersion","metadata":{"labels":{"a":"1","a":"2"}},"metadata":{"name":"n"}}`,
		`{"kind":"ClusterServiceVersion","spec":{"relatedImages":null,"install":{"spec":{"deployments":[]}}}}`,
		`{"kind":"ClusterServiceVersion","metadata":{"name":5}}`,
		`{"kind":"ClusterServiceVersion","metadata":{"name":"a\u00e9\ud800","labels":{"k\u212a":"v"}}}`,
		"{\"kind\":\"ClusterServiceVersion\",\"metadata\":{\"name\":\"\xff\"}}",
		`{"kind":"CustomResourceDefinition","spec":{"names":{"kind":"ClusterServiceVersion"}}}`,
		`[]`, `{"kind":`, `{"kind":"ClusterServiceVersion"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast csvDoc
		ok, valid := fast.readFast(data)
		var want csvDoc
		err := json.Unmarshal(data, &want)
		switch {
		case !valid:
			if err == nil {
				t.Fatalf("readFast called %q invalid; encoding/json read it", data)
			}
		case ok:
			if err != nil {
				t.Fatalf("readFast read %q; encoding/json: %v", data, err)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Fatalf("%q:\nreadFast     %+v\nencoding/json %+v", data, fast, want)
			}
		}
	})
}
