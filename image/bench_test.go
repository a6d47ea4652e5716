package image_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/procstat"
)

// distinctBundles pushes n bundle images that differ by one file to host
// (with push), and returns their digest references.
func distinctBundles(b testing.TB, host string, push func(ref string, img v1.Image) error, n int) []string {
	base, err := imagetest.DirEntries(bundleDir+"/manifests", "manifests")
	if err != nil {
		b.Fatal(err)
	}
	meta, err := imagetest.DirEntries(bundleDir+"/metadata", "metadata")
	if err != nil {
		b.Fatal(err)
	}
	var refs []string
	for i := 0; i < n; i++ {
		entries := append(append(append([]imagetest.Entry{}, base...), meta...),
			imagetest.Entry{Name: "metadata/build.txt", Body: []byte(strconv.Itoa(i))})
		l := must(imagetest.Layer(entries...))
		img := must(imagetest.Image(imagetest.Config{Labels: map[string]string{image.LabelBundlePackage: "skupper-operator"}}, l))
		repo := fmt.Sprintf("bundles/b%03d", i)
		if err := push(host+"/"+repo+":v1", img); err != nil {
			b.Fatal(err)
		}
		refs = append(refs, digestRef(b, host, repo, img))
	}
	return refs
}

func pushTo(reg *imagetest.Registry, b testing.TB) func(string, v1.Image) error {
	return func(ref string, img v1.Image) error {
		reg.Push(b, strings.TrimPrefix(ref, reg.Host+"/"), img)
		return nil
	}
}

// pullAll opens refs eight at a time and reads their bundle directories.
func pullAll(b testing.TB, c *image.Client, refs []string) {
	errs := make([]error, len(refs))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, ref := range refs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			img, err := c.Open(context.Background(), ref)
			if err != nil {
				errs[i] = err
				return
			}
			fsys, err := img.ReadFiles(context.Background(), []string{"manifests/", "metadata/"}, image.Limits{})
			if err == nil && len(image.Paths(fsys)) != 3 {
				err = fmt.Errorf("%s: read %v", ref, image.Paths(fsys))
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPull100Bundles pulls 100 digest-pinned bundle images and reads
// their manifests/ and metadata/, with a cold cache (every blob fetched)
// and a warm one (no request at all), from go-containerregistry's
// in-process registry (allocations of the cold case include the
// registry's own) and from a real CNCF Distribution registry process.
func BenchmarkPull100Bundles(b *testing.B) {
	b.Run("inproc", func(b *testing.B) {
		reg := imagetest.NewRegistry(b)
		refs := distinctBundles(b, reg.Host, pushTo(reg, b), 100)
		benchColdWarm(b, refs, func() int { return len(reg.Requests()) }, reg.Reset)
	})
	b.Run("distribution", func(b *testing.B) {
		d, err := imagetest.StartDistribution(b.TempDir(), "127.0.0.1", "")
		if err != nil {
			b.Fatal(err)
		}
		defer d.Stop()
		push := func(ref string, img v1.Image) error { return imagetest.Push(ref, img, "", "") }
		refs := distinctBundles(b, d.Host, push, 100)
		benchColdWarm(b, refs, nil, nil)
	})
}

// benchColdWarm pulls refs with a fresh cache each time, then with a warm
// one; requests counts what the registry saw (nil: not counted).
func benchColdWarm(b *testing.B, refs []string, requests func() int, reset func()) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		if reset != nil {
			reset()
		}
		for i := 0; i < b.N; i++ {
			pullAll(b, must(image.NewClient(testOptions(b))), refs)
		}
		if requests != nil {
			b.ReportMetric(float64(requests())/float64(b.N), "requests/op")
		}
		b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MiB")
	})
	b.Run("warm", func(b *testing.B) {
		opts := testOptions(b)
		pullAll(b, must(image.NewClient(opts)), refs)
		if reset != nil {
			reset()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			pullAll(b, must(image.NewClient(opts)), refs)
		}
		b.StopTimer()
		if requests != nil {
			if n := requests(); n != 0 {
				b.Fatalf("warm pulls made %d requests", n)
			}
			b.ReportMetric(0, "requests/op")
		}
		b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MiB")
	})
}

// TestWarmCache100NoRequests is the assertion behind the benchmark: 100
// digest-pinned images with a warm cache, zero requests.
func TestWarmCache100NoRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 100 images")
	}
	reg := imagetest.NewRegistry(t)
	refs := distinctBundles(t, reg.Host, pushTo(reg, t), 100)
	opts := testOptions(t)
	pullAll(t, must(image.NewClient(opts)), refs)
	reg.Reset()
	pullAll(t, must(image.NewClient(opts)), refs)
	if r := reg.Requests(); len(r) != 0 {
		t.Errorf("warm pull of 100 images made %d requests: %v", len(r), r[:min(5, len(r))])
	}
}
