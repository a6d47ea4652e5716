package declcfg

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// Spool writes blobs in opm render's order (as Write does) without holding
// them: each blob is encoded when it is added and the bytes go to an
// unlinked temporary file; only the blob's place in the order stays in
// memory. Blobs can be added in any grouping, from several goroutines, so a
// streaming reader hands over a file's blobs at a time and memory follows
// the files being read, not the catalog. Nothing reaches the output before
// WriteTo, which callers run once everything is known to be good: an error
// leaves the output untouched.
type Spool struct {
	format Format

	mu     sync.Mutex
	file   *os.File // nil when the spool is held in memory
	name   string   // the file's name while it is still linked
	mem    []byte
	size   int64
	blobs  []spooled
	seq    int
	names  map[string]string // package names, interned
	failed error
}

type spooled struct {
	place place
	off   int64
	n     int
}

// NewSpool returns a Spool for the format, backed by a temporary file in
// os.TempDir (in memory if none can be made there). Close removes it.
func NewSpool(f Format) (*Spool, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	s := &Spool{format: f}
	file, err := os.CreateTemp("", "fbc-spool-*")
	if err != nil {
		return s, nil // a read-only or full TMPDIR: keep the bytes in memory
	}
	s.file = file
	// Unlinked at once where the system allows it, so that a killed run
	// leaves nothing behind; elsewhere Close removes it.
	if os.Remove(file.Name()) != nil {
		s.name = file.Name()
	}
	return s, nil
}

// Add encodes cfg's blobs and records their places. src orders the callers'
// sources: blobs of a lower src come first where opm's order ties (several
// olm.package blobs of a name, channels or bundles of a name, blobs of a
// schema); within a src, blobs keep the order of the calls. cfg is not kept.
func (s *Spool) Add(src int, cfg *DeclarativeConfig) error {
	enc := newBlobEncoder(s.format)
	for _, b := range placed(cfg, src, 0) {
		data, err := enc.encode(b.value)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", describe(b.value), err)
		}
		if err := s.put(b.place, data); err != nil {
			return err
		}
	}
	return nil
}

// put appends one encoded blob; blobs of one src are numbered in the
// order they come.
func (s *Spool) put(p place, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	if s.file != nil {
		if _, err := s.file.WriteAt(data, s.size); err != nil {
			s.failed = fmt.Errorf("spooling the output to %s: %w", os.TempDir(), err)
			return s.failed
		}
	} else {
		s.mem = append(s.mem, data...)
	}
	// The names may point into a whole file's bytes: copies keep only the
	// names alive, one per package.
	p.pkg = s.intern(p.pkg)
	p.key = strings.Clone(p.key)
	p.seq = s.seq
	s.seq++
	s.blobs = append(s.blobs, spooled{place: p, off: s.size, n: len(data)})
	s.size += int64(len(data))
	return nil
}

func (s *Spool) intern(name string) string {
	if v, ok := s.names[name]; ok {
		return v
	}
	if s.names == nil {
		s.names = map[string]string{}
	}
	v := strings.Clone(name)
	s.names[v] = v
	return v
}

// describe names a blob in an encoding error.
func describe(v any) string {
	switch b := v.(type) {
	case *Package:
		return fmt.Sprintf("package %q", b.Name)
	case *Channel:
		return fmt.Sprintf("channel %q of package %q", b.Name, b.Package)
	case *Bundle:
		return fmt.Sprintf("bundle %q", b.Name)
	case *Deprecation:
		return fmt.Sprintf("the deprecations of package %q", b.Package)
	case *Meta:
		return fmt.Sprintf("a %s blob at %s", b.Schema, b.Pos)
	}
	return "a blob"
}

// Len is the number of blobs added.
func (s *Spool) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.blobs)
}

// WriteTo writes every blob added, in opm render's order.
func (s *Spool) WriteTo(w io.Writer) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return 0, s.failed
	}
	slices.SortFunc(s.blobs, func(a, b spooled) int { return a.place.compare(b.place) })
	bw := bufio.NewWriterSize(w, 256<<10)
	var written int64
	var buf []byte
	for _, e := range s.blobs {
		var data []byte
		if s.file == nil {
			data = s.mem[e.off : e.off+int64(e.n)]
		} else {
			if cap(buf) < e.n {
				buf = make([]byte, e.n)
			}
			data = buf[:e.n]
			if _, err := s.file.ReadAt(data, e.off); err != nil {
				return written, fmt.Errorf("reading the spooled output back: %w", err)
			}
		}
		n, err := bw.Write(data)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}

// Close releases the spool's file.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	if s.name != "" {
		err = errors.Join(err, os.Remove(s.name))
	}
	s.file, s.mem, s.blobs = nil, nil, nil
	return err
}
