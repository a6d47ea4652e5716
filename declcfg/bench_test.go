package declcfg

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// benchCatalog is the heaviest real catalog in the shared corpus (51 MB of
// YAML with olm.bundle.object properties).
func benchCatalog(b *testing.B) string {
	dir := filepath.Join("..", "..", "shared", "corpus", "certified-operators", "catalogs", "v4.16")
	if d := os.Getenv("FBC_SHARED"); d != "" {
		dir = filepath.Join(d, "corpus", "certified-operators", "catalogs", "v4.16")
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	return dir
}

// bareDecode is the baseline: read every file and decode every YAML document
// into yaml.Node trees with the same parallelism, doing nothing else.
func bareDecode(b *testing.B, dir string) {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	ch := make(chan string)
	var wg sync.WaitGroup
	workers := WalkOptions{}.withDefaults().Concurrency
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range ch {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Error(err)
					continue
				}
				dec := yaml.NewDecoder(bytes.NewReader(data))
				for {
					var n yaml.Node
					if err := dec.Decode(&n); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						b.Error(err)
						break
					}
				}
			}
		}()
	}
	for _, f := range files {
		ch <- f
	}
	close(ch)
	wg.Wait()
}

// BenchmarkLoad compares Load with a bare decode of the same files, in one
// run: the ratio metric is load time / bare decode time.
func BenchmarkLoad(b *testing.B) {
	dir := benchCatalog(b)
	var bare, load float64
	b.Run("bare-decode", func(b *testing.B) {
		for b.Loop() {
			bareDecode(b, dir)
		}
		bare = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(context.Background(), []string{dir}, LoadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		load = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if bare > 0 {
			b.ReportMetric(load/bare, "x-bare-decode")
		}
	})
}
