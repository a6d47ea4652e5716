package profile_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fbc-project/fbc/internal/procstat"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate"
	"github.com/fbc-project/fbc/validate/profile"
	"github.com/fbc-project/fbc/validate/profiles"
)

// BenchmarkProfiles measures fbc validate over certified-operators v4.16
// (379 bundles with full olm.bundle.object manifests) without profiles and
// with them, in one run:
//
//	go test ./validate/profile -run '^$' -bench Profiles -benchtime 3x -benchmem
//
// Add -cpuprofile cpu.out or -memprofile mem.out (with -bench
// Profiles/lib) to see where the time goes. The profiles are
//
//   - plain: fbc validate v4.16/
//   - four: --profile operatorframework,operatorhub,good-practices,k8s-version=1.33
//     (issue 14 asks for at most 2x plain's time)
//   - olmv1: the four and olmv1 (crdify along every upgrade edge)
//
// lib/* calls validate.Validate in this process, where what a run
// compiles once (CUE schemas) stays compiled; cli/* runs a freshly built
// fbc binary, as a user does, and so counts its start and the schemas. Each
// reports x-plain, its wall time as a multiple of plain's of the same
// kind, and, as the machine is shared and wall time says as much about
// the neighbours, cpu-ns/op and x-plain-cpu, the same for CPU time
// (user and system), and maxrss-MB, the peak resident memory: for lib, of
// the benchmark process so far (the sub-benchmarks run in the order
// above, so each one's includes the previous ones'); for cli, of the fbc
// process, but Linux counts in it the benchmark process it was started
// from, so measure it with -bench Profiles/cli alone.
func BenchmarkProfiles(b *testing.B) {
	dir := sharedtest.Path(b, "corpus", "certified-operators", "catalogs", "v4.16")
	cases := []struct{ name, profiles string }{
		{"plain", ""},
		{"four", "operatorframework,operatorhub,good-practices,k8s-version=1.33"},
		{"olmv1", "operatorframework,operatorhub,good-practices,k8s-version=1.33,olmv1"},
	}
	// report adds the metrics of one sub-benchmark; plain's times are
	// the base of the others'.
	var plain, plainCPU time.Duration
	report := func(b *testing.B, name string, per, perCPU time.Duration, rss int64) {
		if name == "plain" {
			plain, plainCPU = per, perCPU
		}
		if plain > 0 && plainCPU > 0 {
			b.ReportMetric(float64(per)/float64(plain), "x-plain")
			b.ReportMetric(float64(perCPU)/float64(plainCPU), "x-plain-cpu")
		}
		b.ReportMetric(float64(perCPU.Nanoseconds()), "cpu-ns/op")
		b.ReportMetric(float64(rss)/(1<<20), "maxrss-MB")
	}

	b.Run("lib", func(b *testing.B) {
		plain, plainCPU = 0, 0
		for _, c := range cases {
			var set profile.Set
			if c.profiles != "" {
				var err error
				if set, err = profiles.Parse([]string{c.profiles}); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(c.name, func(b *testing.B) {
				var diags int
				start, startCPU := time.Now(), procstat.CPUTime()
				for range b.N {
					opts := validate.Options{}
					if !set.Empty() {
						opts.Profiles = profiles.InProcess(profile.New(set))
					}
					res, err := validate.Validate(context.Background(), []string{dir}, opts)
					if err != nil {
						b.Fatal(err)
					}
					diags = len(res.Diagnostics)
				}
				n := time.Duration(b.N)
				report(b, c.name, time.Since(start)/n, (procstat.CPUTime()-startCPU)/n, procstat.PeakRSS())
				b.ReportMetric(float64(diags), "diagnostics")
			})
		}
	})

	b.Run("cli", func(b *testing.B) {
		plain, plainCPU = 0, 0
		// fbc and fbc-profile, side by side as make build leaves them.
		dir := b.TempDir()
		bin := filepath.Join(dir, "fbc")
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "./cmd/fbc-profile")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		for _, c := range cases {
			args := []string{"validate", "-o", "json", dir}
			if c.profiles != "" {
				args = append(args, "--profile", c.profiles)
			}
			b.Run(c.name, func(b *testing.B) {
				var wall, cpu time.Duration
				var rss int64
				for range b.N {
					cmd := exec.Command(bin, args...)
					start := time.Now()
					err := cmd.Run()
					wall += time.Since(start)
					if st := cmd.ProcessState; st == nil || st.ExitCode() > 1 {
						b.Fatalf("fbc %v: %v", args, err)
					}
					c, r := procstat.Child(cmd.ProcessState)
					cpu += c
					rss = max(rss, r)
				}
				n := time.Duration(b.N)
				report(b, c.name, wall/n, cpu/n, rss)
			})
		}
	})
}
