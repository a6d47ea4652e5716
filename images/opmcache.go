package images

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/serve"
)

// opm serve's cache (--cache-dir), as operator-registry's pkg/cache writes
// it. The preferred backend, pogreb.v1, is a pogreb key-value store of the
// package index and one protocol-buffer bundle per channel entry, under
// pogreb.v1/db, and pogreb.v1/digest: the FNV-64a hash of every blob of the
// catalog in opm's form (walked in path order, one file at a time, the
// documents of a file in order) followed by every key of the store, sorted,
// each with its value. opm serve recomputes that hash at start; when it
// differs (the configs changed after the cache was built, as when a catalog
// is filtered and the old cache is copied along) it refuses to serve with
// --cache-enforce-integrity, which is the default whenever --cache-dir is
// given without --cache-only. The older json backend (a digest file and a
// cache directory of JSON files) hashes a tar of the files instead.

const (
	pogrebDir        = "pogreb.v1"
	pogrebDigestFile = pogrebDir + "/digest"
	pogrebDBDir      = pogrebDir + "/db"
	pogrebHeaderSize = 512
)

var pogrebSignature = []byte("pogreb\x0e\xfd")

// cacheState is what a serve cache says and what its catalog gives.
type cacheState struct {
	backend  string // "pogreb.v1", "json", "" (none), or "unknown"
	stored   string // the digest the cache records
	computed string // the digest the configs (and the store) give
	entries  []string
}

// readServeCache reads the cache in cache (the cache directory of an image)
// for the catalog in configs.
func readServeCache(ctx context.Context, configs, cache fs.FS) (*cacheState, error) {
	st := &cacheState{}
	entries, err := fs.ReadDir(cache, ".")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		st.entries = append(st.entries, e.Name())
	}
	switch {
	case len(entries) == 0:
		return st, nil
	case slices.Contains(st.entries, pogrebDir):
		st.backend = pogrebDir
	case slices.Contains(st.entries, "digest") && slices.Contains(st.entries, "cache"):
		st.backend = "json"
	default:
		st.backend = "unknown"
		return st, nil
	}
	if st.backend != pogrebDir {
		return st, nil
	}
	digest, err := fs.ReadFile(cache, pogrebDigestFile)
	if err != nil {
		return nil, fmt.Errorf("reading the cache digest: %w", err)
	}
	st.stored = strings.TrimSpace(string(digest))
	st.computed, err = pogrebDigest(ctx, configs, cache)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// pogrebDigest computes the digest opm serve checks a pogreb.v1 cache
// against.
func pogrebDigest(ctx context.Context, configs, cache fs.FS) (string, error) {
	h := fnv.New64a()
	var buf bytes.Buffer
	err := declcfg.WalkFS(ctx, configs, "", declcfg.WalkOptions{Concurrency: 1}, func(f *declcfg.File) error {
		for _, e := range f.Errors {
			if !e.Warning {
				return fmt.Errorf("%s: %s", e.Pos, e.Msg)
			}
		}
		for _, d := range f.Docs {
			buf.Reset()
			if err := serve.MetaBlob(&buf, d.Node); err != nil {
				return fmt.Errorf("%s: %w", d.Pos, err)
			}
			h.Write(buf.Bytes())
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("reading the catalog as opm does: %w", err)
	}
	kv, err := readPogreb(cache, pogrebDBDir)
	if err != nil {
		return "", fmt.Errorf("reading the cache store %s: %w", pogrebDBDir, err)
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write(kv[k])
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// readPogreb replays a pogreb store's write-ahead log: its segments
// (NNNNN-SEQ.psg), oldest first, each a 512-byte header and records of key
// size (2 bytes), delete bit and value size (4 bytes), key, value and a
// CRC-32 of all that, little-endian. The last put of a key wins; a delete
// removes it.
func readPogreb(fsys fs.FS, dir string) (map[string][]byte, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	type segment struct {
		name string
		seq  uint64
	}
	var segs []segment
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".psg")
		if !ok || e.IsDir() {
			continue
		}
		_, seqText, ok := strings.Cut(base, "-")
		seq, err := strconv.ParseUint(seqText, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("segment %s: not NNNNN-SEQ.psg", e.Name())
		}
		segs = append(segs, segment{e.Name(), seq})
	}
	slices.SortFunc(segs, func(a, b segment) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	kv := map[string][]byte{}
	for _, s := range segs {
		data, err := fs.ReadFile(fsys, path.Join(dir, s.name))
		if err != nil {
			return nil, err
		}
		if err := replaySegment(data, kv); err != nil {
			return nil, fmt.Errorf("segment %s: %w", s.name, err)
		}
	}
	return kv, nil
}

func replaySegment(data []byte, kv map[string][]byte) error {
	if len(data) < pogrebHeaderSize || !bytes.HasPrefix(data, pogrebSignature) {
		return errors.New("not a pogreb segment (no header)")
	}
	off := pogrebHeaderSize
	for off < len(data) {
		if len(data)-off < 6 {
			return fmt.Errorf("offset %d: a record cut short", off)
		}
		keySize := int(binary.LittleEndian.Uint16(data[off:]))
		valueSize := binary.LittleEndian.Uint32(data[off+2:])
		del := valueSize&(1<<31) != 0
		valueSize &^= 1 << 31
		end := off + 6 + keySize + int(valueSize) + 4
		if int(valueSize) < 0 || end > len(data) || end < off {
			return fmt.Errorf("offset %d: a record cut short", off)
		}
		body := data[off : end-4]
		if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[end-4:]) {
			return fmt.Errorf("offset %d: checksum mismatch", off)
		}
		key := string(body[6 : 6+keySize])
		if del {
			delete(kv, key)
		} else {
			kv[key] = body[6+keySize:]
		}
		off = end
	}
	return nil
}
