package compose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"os"
	"strconv"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// Most of a catalog's bytes are a few property values of its bundles: the
// manifests of olm.bundle.object and the CSV of olm.csv.metadata. Merging
// and selecting never read them, so compose keeps them in an unlinked
// temporary file while it reads its sources and puts them back a package at
// a time, when the result is validated and written: memory follows the
// catalog's structure and its largest package, not its size.

// spoolMin is the smallest property value that is spooled.
const spoolMin = 1024

// spooledTypes are the property types whose values are spooled.
var spooledTypes = map[string]bool{declcfg.PropertyBundleObject: true, declcfg.PropertyCSVMetadata: true}

// spoolKey is the member of a placeholder that names a spooled value.
const spoolKey = "fbc.spooled"

// valueSpool holds spooled values. Each distinct value is stored once and
// stands in the catalog as a placeholder that only its content decides
// ({"fbc.spooled":"HASH-LENGTH[-N]"}), so that two sources that define a
// package with the same values still compare equal once written (merging
// compares packages that way) and different values never do.
type valueSpool struct {
	mu     sync.Mutex
	f      *os.File
	off    int64
	seed   maphash.Seed
	values map[string]spooledValue // by placeholder id
	// ids lists the ids of a content hash, for the rare collision.
	ids map[uint64][]string
	err error
}

type spooledValue struct {
	off int64
	n   int
}

// newValueSpool makes a spool in dir (the system's temporary directory
// when ""). Where no file can be made there, the values stay in memory.
func newValueSpool(dir string) *valueSpool {
	s := &valueSpool{seed: maphash.MakeSeed(), values: map[string]spooledValue{}, ids: map[uint64][]string{}}
	f, err := os.CreateTemp(dir, "fbc-compose-*.spool")
	if err != nil {
		return s
	}
	// Unlinked at once: nothing is left behind however the process ends.
	_ = os.Remove(f.Name())
	s.f = f
	return s
}

// Close releases the spool's file.
func (s *valueSpool) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// stash replaces the large values of part's bundles by placeholders.
func (s *valueSpool) stash(part *declcfg.DeclarativeConfig) error {
	if s.f == nil {
		return nil
	}
	for i := range part.Bundles {
		props := part.Bundles[i].Properties
		for j := range props {
			// A small value is spooled too when it looks like a
			// placeholder, so that every placeholder is one of ours.
			if !spooledTypes[props[j].Type] || len(props[j].Value) < spoolMin && !bytes.HasPrefix(props[j].Value, placeholderPrefix) {
				continue
			}
			id, err := s.put(props[j].Value)
			if err != nil {
				return err
			}
			props[j].Value = placeholder(id)
		}
	}
	return nil
}

var (
	placeholderPrefix = []byte(`{"` + spoolKey + `"`)
	placeholderOpen   = []byte(`{"` + spoolKey + `":"`)
	placeholderClose  = []byte(`"}`)
)

func placeholder(id string) json.RawMessage {
	return json.RawMessage(string(placeholderOpen) + id + string(placeholderClose))
}

// put stores a value once and returns its id.
func (s *valueSpool) put(v []byte) (string, error) {
	h := maphash.Bytes(s.seed, v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return "", s.err
	}
	for _, id := range s.ids[h] {
		if sv := s.values[id]; sv.n == len(v) {
			same, err := s.equal(sv, v)
			if err != nil {
				return "", err
			}
			if same {
				return id, nil
			}
		}
	}
	id := strconv.FormatUint(h, 16) + "-" + strconv.Itoa(len(v))
	if n := len(s.ids[h]); n > 0 {
		id += "-" + strconv.Itoa(n)
	}
	if _, err := s.f.WriteAt(v, s.off); err != nil {
		s.err = fmt.Errorf("writing the compose spool file: %w", err)
		return "", s.err
	}
	s.values[id] = spooledValue{off: s.off, n: len(v)}
	s.ids[h] = append(s.ids[h], id)
	s.off += int64(len(v))
	return id, nil
}

func (s *valueSpool) equal(sv spooledValue, v []byte) (bool, error) {
	got, err := s.read(sv)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, v), nil
}

func (s *valueSpool) read(sv spooledValue) ([]byte, error) {
	buf := make([]byte, sv.n)
	if _, err := s.f.ReadAt(buf, sv.off); err != nil {
		return nil, fmt.Errorf("reading the compose spool file: %w", err)
	}
	return buf, nil
}

// restore returns part with its spooled values put back: the bundles are
// copies, part is not changed.
func (s *valueSpool) restore(part *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	out := *part
	out.Bundles = nil
	for _, b := range part.Bundles {
		nb := b
		nb.Properties = nil
		for _, p := range b.Properties {
			if id, ok := spooledID(p); ok {
				s.mu.Lock()
				sv, known := s.values[id]
				s.mu.Unlock()
				if !known {
					return nil, fmt.Errorf("bundle %q: property %s holds an unknown spooled value %q", b.Name, p.Type, id)
				}
				v, err := s.read(sv)
				if err != nil {
					return nil, err
				}
				p.Value = v
			}
			nb.Properties = append(nb.Properties, p)
		}
		out.Bundles = append(out.Bundles, nb)
	}
	return &out, nil
}

// spooledID reads a placeholder. Every value that starts like one was
// spooled (stash), so one that does is ours, written by placeholder.
func spooledID(p declcfg.Property) (string, bool) {
	if !spooledTypes[p.Type] {
		return "", false
	}
	rest, ok := bytes.CutPrefix(p.Value, placeholderOpen)
	if !ok {
		return "", false
	}
	id, ok := bytes.CutSuffix(rest, placeholderClose)
	return string(id), ok
}
