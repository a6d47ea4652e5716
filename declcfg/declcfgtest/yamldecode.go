// Package declcfgtest holds benchmark support shared by declcfg and the
// packages above it. Production code never imports it.
package declcfgtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// DecodeYAMLNodes is the bare-decode baseline of the loader and validate
// benchmarks: it reads every regular file under root and decodes each of its
// documents into a yaml.Node tree with go.yaml.in/yaml/v3, on workers
// goroutines, keeping nothing. A file that does not decode fails tb.
func DecodeYAMLNodes(tb testing.TB, root string, workers int) {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	ch := make(chan string)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range ch {
				if err := decodeFile(f); err != nil {
					tb.Error(err)
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

func decodeFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}
