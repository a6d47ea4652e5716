package render

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/procstat"
	"github.com/fbc-project/fbc/repo"
)

// benchBundleDirs returns the first n corpus bundle directories that render.
func benchBundleDirs(b testing.TB, n int) []string {
	corpus := corpusDir(b)
	var dirs []string
	for _, cb := range corpusBundles(b, corpus) {
		if len(dirs) == n {
			break
		}
		if !repo.IsBundleDir(cb.Dir) {
			continue
		}
		if _, err := mustNew(b, Options{}).RenderBundle(context.Background(), cb.Dir, "", Request{}); err == nil {
			dirs = append(dirs, cb.Dir)
		}
	}
	if len(dirs) < n {
		b.Fatalf("only %d renderable corpus bundles", len(dirs))
	}
	return dirs
}

// BenchmarkRender100BundleDirs renders 100 corpus bundle directories in
// one Render call. "parse-only" is the floor in the same binary: reading
// the same files and converting each from YAML to JSON, which any renderer
// has to do; the ratio of the two is render's own overhead.
func BenchmarkRender100BundleDirs(b *testing.B) {
	dirs := benchBundleDirs(b, 100)
	var bytes int64
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if st, err := e.Info(); err == nil {
					bytes += st.Size()
				}
			}
			return nil
		})
	}
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(bytes)
		for i := 0; i < b.N; i++ {
			cfg, err := mustNew(b, Options{}).Render(context.Background(), dirs, Request{})
			if err != nil {
				b.Fatal(err)
			}
			if len(cfg.Bundles) != len(dirs) {
				b.Fatalf("%d bundles", len(cfg.Bundles))
			}
		}
		b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MiB")
	})
	b.Run("parse-only", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(bytes)
		for i := 0; i < b.N; i++ {
			for _, d := range dirs {
				err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
					if err != nil || e.IsDir() {
						return err
					}
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					_, err = yaml.YAMLToJSON(data)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// pushCorpusBundles pushes each directory as its own bundle image to host
// and returns digest references.
func pushCorpusBundles(b testing.TB, host string, dirs []string) []string {
	var refs []string
	for i, d := range dirs {
		img, err := imagetest.BundleImage(d, "linux/amd64")
		if err != nil {
			b.Fatal(err)
		}
		ref := fmt.Sprintf("%s/bench/b%03d:v1", host, i)
		if err := imagetest.Push(ref, img, "", ""); err != nil {
			b.Fatal(err)
		}
		digest, err := img.Digest()
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, fmt.Sprintf("%s/bench/b%03d@%s", host, i, digest))
	}
	return refs
}

// BenchmarkRender100BundleImages renders 100 corpus bundles pushed as
// images to a real CNCF Distribution registry (docker-registry), by digest,
// end to end (pull, read, render): with a fresh cache each time ("cold") and
// with a warm one, which makes no request.
func BenchmarkRender100BundleImages(b *testing.B) {
	d, err := imagetest.StartDistribution(b.TempDir(), "127.0.0.1", "")
	if err != nil {
		b.Skip(err)
	}
	defer d.Stop()
	refs := pushCorpusBundles(b, d.Host, benchBundleDirs(b, 100))
	render := func(b *testing.B, cache string) {
		cfg, err := mustNew(b, Options{Image: image.Options{CacheDir: cache}}).Render(context.Background(), refs, Request{})
		if err != nil {
			b.Fatal(err)
		}
		if len(cfg.Bundles) != len(refs) {
			b.Fatalf("%d bundles", len(cfg.Bundles))
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			render(b, filepath.Join(b.TempDir(), strconv.Itoa(i)))
		}
		b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MiB")
	})
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		render(b, cache)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			render(b, cache)
		}
		b.StopTimer()
		b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MiB")
	})
}

// TestPushBenchBundles pushes the benchmark's 100 corpus bundles to the
// registry FBC_BENCH_REGISTRY (host:port) and writes their digest
// references to FBC_BENCH_REFS, for measuring bin/fbc with /usr/bin/time
// (see docs/render.md). It does nothing unless both are set.
func TestPushBenchBundles(t *testing.T) {
	host, out := os.Getenv("FBC_BENCH_REGISTRY"), os.Getenv("FBC_BENCH_REFS")
	if host == "" || out == "" {
		t.Skip("set FBC_BENCH_REGISTRY and FBC_BENCH_REFS to push the benchmark bundles")
	}
	refs := pushCorpusBundles(t, host, benchBundleDirs(t, 100))
	if err := os.WriteFile(out, []byte(strings.Join(refs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustNew returns a Renderer for a test or benchmark.
func mustNew(tb testing.TB, opts Options) *Renderer {
	tb.Helper()
	r, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
