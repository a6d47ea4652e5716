package images

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkScanCertifiedV416 is the scan `fbc images list` makes of
// certified-operators v4.16 (51 MB, every bundle with olm.bundle.object
// manifests, whose CSVs say which images are operator containers): the
// goal is under 0.5 s for the command (scripts/bench-images.sh times it
// against opm render).
func BenchmarkScanCertifiedV416(b *testing.B) {
	dir := filepath.Join(sharedtest.Corpus(b), "certified-operators", "catalogs", "v4.16")
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := ScanSources(ctx, []string{dir}, ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if rows := s.Rows(); len(rows) < 6000 {
			b.Fatalf("%d rows", len(rows))
		}
	}
}

// checkWorld is a registry holding the 1,000 images a catalog of 250
// bundles names (each a bundle image, an operator image and two related
// images, all by digest). The catalog names the registry itself (for
// timing); counted names the same images through a front that counts
// requests (a proxy of its own, whose cost is not fbc's).
type checkWorld struct {
	faults           *imagetest.Faults
	catalog, counted string
}

// newCheckWorld pushes the images (under b, which must outlive the
// benchmarks that use the world: a parent benchmark); nil when the
// registry is not available.
func newCheckWorld(b *testing.B, distribution bool) *checkWorld {
	var backend, front string
	var faults *imagetest.Faults
	if distribution {
		d, err := imagetest.StartDistribution(b.TempDir(), "127.0.0.1", "")
		if err != nil {
			b.Logf("not on CNCF Distribution: %v", err)
			return nil
		}
		b.Cleanup(d.Stop)
		backend = d.Host
		faults = imagetest.NewFaults(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: d.Host}))
		srv := httptest.NewServer(faults)
		b.Cleanup(srv.Close)
		front = strings.TrimPrefix(srv.URL, "http://")
	} else {
		reg := imagetest.NewRegistry(b)
		backend, front, faults = reg.Host, reg.Host, reg.Faults
	}
	layer := must(imagetest.Layer(imagetest.Entry{Name: "f", Body: []byte("x")}))
	push := func(repo string, n int) string {
		img := must(imagetest.Image(imagetest.Config{Labels: map[string]string{"n": fmt.Sprint(n)}}, layer))
		if err := imagetest.Push(backend+"/"+repo, img, "", ""); err != nil {
			b.Fatal(err)
		}
		return "HOST/" + strings.SplitN(repo, ":", 2)[0] + "@" + must(img.Digest()).String()
	}
	var sb strings.Builder
	for i := 0; i < 250; i++ {
		bundle := push(fmt.Sprintf("bundles/b%d:v1", i%25), 4*i)
		op := push(fmt.Sprintf("operators/o%d:v1", i%25), 4*i+1)
		ra := push(fmt.Sprintf("related/r%d:a", i%50), 4*i+2)
		rb := push(fmt.Sprintf("related/r%d:b", (i+7)%50), 4*i+3)
		fmt.Fprintf(&sb, `---
schema: olm.bundle
package: p%d
name: p%d.v1.0.0
image: %s
properties:
- type: olm.csv.metadata
  value:
    labels:
      operatorframework.io/arch.amd64: supported
relatedImages:
- {name: "", image: %s}
- {name: "", image: %s}
- {name: a, image: %s}
- {name: b, image: %s}
`, i, i, bundle, bundle, op, ra, rb)
	}
	dir := b.TempDir()
	w := &checkWorld{faults: faults, catalog: filepath.Join(dir, "catalog.yaml"), counted: filepath.Join(dir, "counted.yaml")}
	for file, host := range map[string]string{w.catalog: backend, w.counted: front} {
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(sb.String(), "HOST/", host+"/")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return w
}

// BenchmarkCheck1000 is `fbc images check` of a catalog naming 1,000
// images on a loopback registry, from a cold cache (goal: under 5 s), at
// the default concurrency and at twice it. After the timed runs, one run
// through the counting front checks that each manifest is asked once and
// the registry probed once (requests/op adds the config blobs of the 250
// operator images, whose platforms are checked).
func BenchmarkCheck1000(b *testing.B) {
	for _, c := range []struct {
		name         string
		distribution bool
	}{{"distribution", true}, {"inprocess", false}} {
		w := newCheckWorld(b, c.distribution)
		for _, jobs := range []int{16, 32} {
			b.Run(fmt.Sprintf("%s/jobs=%d", c.name, jobs), func(b *testing.B) {
				if w == nil {
					b.Skip("registry not available")
				}
				check := func(catalog string) *CheckResult {
					client := must(image.NewClient(image.Options{CacheDir: b.TempDir(), Keychain: authn.NewMultiKeychain()}))
					scan, err := ScanSources(context.Background(), []string{catalog}, ScanOptions{})
					if err != nil {
						b.Fatal(err)
					}
					res, err := Check(context.Background(), scan, CheckOptions{Client: client, Jobs: jobs})
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Diagnostics) > 0 || len(res.NotChecked) > 0 || res.Asked != 1000 {
						b.Fatalf("asked %d; %d findings, %d not checked", res.Asked, len(res.Diagnostics), len(res.NotChecked))
					}
					return res
				}
				for i := 0; i < b.N; i++ {
					check(w.catalog)
				}
				b.StopTimer()
				w.faults.Reset()
				check(w.counted)
				requests := w.faults.Requests()
				manifests, pings := 0, 0
				for _, r := range requests {
					switch {
					case strings.Contains(r, "/manifests/"):
						manifests++
					case r == "GET /v2/":
						pings++
					}
				}
				if manifests != 1000 {
					b.Fatalf("%d manifest requests for 1,000 images", manifests)
				}
				// The 1,000 images are in 100 repositories of one registry:
				// it is probed once, not once a repository.
				if pings != 1 {
					b.Fatalf("%d probes (GET /v2/) of one registry", pings)
				}
				b.ReportMetric(float64(manifests), "manifests/op")
				b.ReportMetric(float64(len(requests)), "requests/op")
			})
		}
	}
}
