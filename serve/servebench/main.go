// Command servebench compares fbc serve with opm serve on one catalog, in
// one run: how soon each answers its first ListPackages after it starts,
// its peak resident memory, and a load test of mixed registry calls from
// many concurrent clients (latency percentiles, calls per second, errors).
// `make bench` runs it through scripts/bench-serve.sh. Every loop is bounded
// in count and time, and every server it starts listens on loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/fbc-project/fbc/internal/procstat"
	"github.com/fbc-project/fbc/serve/api"
	"github.com/fbc-project/fbc/serve/servetest"
)

func main() {
	var o options
	flag.StringVar(&o.catalog, "catalog", "", "catalog directory to serve")
	flag.StringVar(&o.fbc, "fbc", "bin/fbc", "fbc binary (empty: measure opm alone)")
	flag.StringVar(&o.opm, "opm", "", "opm binary (empty: measure fbc alone)")
	flag.IntVar(&o.clients, "clients", 64, "concurrent clients in the load test")
	flag.IntVar(&o.calls, "calls", 1000, "calls per client in the load test")
	flag.DurationVar(&o.readyTimeout, "ready-timeout", 120*time.Second, "give up on a server not answering by then")
	flag.DurationVar(&o.loadTimeout, "load-timeout", 15*time.Minute, "stop a load test running longer (the calls not made are reported)")
	flag.Parse()
	if o.catalog == "" {
		fmt.Fprintln(os.Stderr, "servebench: -catalog is required")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

type options struct {
	catalog, fbc, opm         string
	clients, calls            int
	readyTimeout, loadTimeout time.Duration
}

// result is what one server measured.
type result struct {
	name     string
	ready    time.Duration
	rssReady int64 // peak RSS (bytes) when the first answer came
	rssPeak  int64 // peak RSS (bytes) at the end of the load test
	load     loadResult
}

func run(o options) error {
	var results []result
	var calls []call
	for _, s := range servers(o) {
		r, cs, err := measure(o, s, calls)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if calls == nil {
			calls = cs
		}
		results = append(results, r)
		printResult(r)
	}
	if len(results) == 2 {
		f, p := results[0], results[1]
		fmt.Printf("ratio   ready %.1fx sooner (target >= 10), peak RSS at ready %.2f of opm's (target <= 0.33), overall peak %.2f; calls/s %.2fx, p99 %.2fx of opm's\n",
			p.ready.Seconds()/f.ready.Seconds(), float64(f.rssReady)/float64(p.rssReady), float64(f.rssPeak)/float64(p.rssPeak),
			f.load.perSecond()/p.load.perSecond(), f.load.percentile(0.99).Seconds()/p.load.percentile(0.99).Seconds())
	}
	for _, r := range results {
		if r.load.errors > 0 {
			fmt.Printf("%s: %d calls failed (first: %v)\n", r.name, r.load.errors, r.load.firstErr)
		}
		if r.load.notRun > 0 {
			fmt.Printf("%s: %d calls not made within the load timeout\n", r.name, r.load.notRun)
		}
	}
	// fbc must answer every call; opm's shortfalls are reported above.
	if len(results) > 0 && results[0].name == "fbc" {
		if f := results[0]; f.load.errors > 0 || f.load.notRun > 0 {
			return fmt.Errorf("fbc: %d errors, %d calls not made", f.load.errors, f.load.notRun)
		}
	}
	return nil
}

type server struct {
	name string
	argv func(port, pprofPort int) []string
}

func servers(o options) []server {
	var out []server
	if o.fbc != "" {
		out = append(out, server{name: "fbc", argv: func(port, _ int) []string {
			return []string{o.fbc, "serve", o.catalog, "-p", fmt.Sprintf("127.0.0.1:%d", port)}
		}})
	}
	if o.opm != "" {
		// opm listens on every interface (":port"); only loopback is
		// dialled. Its profiling endpoint gets a port of its own.
		out = append(out, server{name: "opm", argv: func(port, pprofPort int) []string {
			return []string{o.opm, "serve", o.catalog, "-p", strconv.Itoa(port),
				"--pprof-addr", fmt.Sprintf("127.0.0.1:%d", pprofPort), "-t", os.DevNull}
		}})
	}
	return out
}

// measure starts one server, times its first answer, runs the load test
// and stops it with SIGTERM. calls, when nil, are derived from this
// server's answers (the first server measured).
func measure(o options, s server, calls []call) (result, []call, error) {
	res := result{name: s.name}
	port, err := freePort()
	if err != nil {
		return res, nil, err
	}
	pprofPort, err := freePort()
	if err != nil {
		return res, nil, err
	}
	argv := s.argv(port, pprofPort)
	cmd := exec.Command(argv[0], argv[1:]...)
	logf, err := os.CreateTemp("", "servebench-"+s.name+"-*.log")
	if err != nil {
		return res, nil, err
	}
	defer os.Remove(logf.Name())
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// The server binds its port a moment after it starts: a connection
	// refused then puts a client into gRPC's reconnect backoff (1 s at
	// first), which would be measured instead of the server. Retry as
	// often as the poll below.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 10 * time.Millisecond,
			Multiplier: 1, MaxDelay: 10 * time.Millisecond}, MinConnectTimeout: time.Second}))
	if err != nil {
		return res, nil, err
	}
	defer conn.Close()
	client := api.NewRegistryClient(conn)
	if err := waitReady(client, o.readyTimeout, exited); err != nil {
		return res, nil, fmt.Errorf("%w\n%s", err, tail(logf.Name()))
	}
	res.ready = time.Since(start)
	res.rssReady = procstat.Running(cmd.Process.Pid)
	fmt.Printf("%-4s    ready %7.3f s, peak RSS at ready %6.1f MB\n", s.name, res.ready.Seconds(), float64(res.rssReady)/(1<<20))
	if calls == nil {
		if calls, err = deriveCalls(client); err != nil {
			return res, nil, err
		}
	}
	res.load = loadTest(addr, calls, o.clients, o.calls, o.loadTimeout)
	res.rssPeak = procstat.Running(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		return res, nil, errors.New("did not exit within 30s of SIGTERM")
	}
	stopped = true
	return res, calls, nil
}

// waitReady polls ListPackages every 10ms until one call succeeds; the
// poll is bounded by the timeout (and so in count).
func waitReady(client api.RegistryClient, timeout time.Duration, exited <-chan error) error {
	deadline := time.Now().Add(timeout)
	for attempt := 0; time.Now().Before(deadline); attempt++ {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before answering: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		n, err := drain(client.ListPackages(ctx, &api.ListPackageRequest{}))
		cancel()
		if err == nil && n > 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("no ListPackages answer within %s", timeout)
}

// drain reads a stream to its end and counts the answers.
func drain[T any](s servetest.Receiver[T], err error) (int, error) {
	all, err := servetest.Collect(s, err)
	return len(all), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 2000 {
		data = data[len(data)-2000:]
	}
	return string(data)
}

func printResult(r result) {
	fmt.Printf("%-4s    load: %d calls, %d errors, %d not made, p50 %s p99 %s, %.0f calls/s; peak RSS after load %.1f MB\n",
		r.name, r.load.total, r.load.errors, r.load.notRun, r.load.percentile(0.5).Round(time.Microsecond),
		r.load.percentile(0.99).Round(time.Microsecond), r.load.perSecond(), float64(r.rssPeak)/(1<<20))
}

// call is one registry call of the load mix.
type call struct {
	name string
	do   func(ctx context.Context, c api.RegistryClient) error
}

// deriveCalls builds the load mix from the catalog's own answers, keeping
// only calls that must succeed on a correct server: every bundle's
// GetBundle, its channel's head, what replaces it, the providers of its
// APIs (latest and default only where a head provides them).
func deriveCalls(c api.RegistryClient) ([]call, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pkgNames, err := servetest.Collect(c.ListPackages(ctx, &api.ListPackageRequest{}))
	if err != nil {
		return nil, err
	}
	type chKey struct{ pkg, ch string }
	heads := map[chKey]string{}
	defaults := map[string]string{}
	var calls []call
	for _, p := range pkgNames {
		pkg, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: p.Name})
		if err != nil {
			return nil, err
		}
		defaults[pkg.Name] = pkg.DefaultChannelName
		name := pkg.Name
		calls = append(calls, call{"GetPackage", func(ctx context.Context, c api.RegistryClient) error {
			_, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: name})
			return err
		}})
		for _, ch := range pkg.Channels {
			heads[chKey{pkg.Name, ch.Name}] = ch.CsvName
			chName := ch.Name
			calls = append(calls, call{"GetBundleForChannel", func(ctx context.Context, c api.RegistryClient) error {
				//lint:ignore SA1019 deprecated in the API, still served and called by OLM
				_, err := c.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: name, ChannelName: chName})
				return err
			}})
		}
	}
	bundles, err := servetest.Collect(c.ListBundles(ctx, &api.ListBundlesRequest{}))
	if err != nil {
		return nil, err
	}
	latest := map[gvk]bool{}
	dflt := map[gvk]bool{}
	all := map[gvk]bool{}
	for _, b := range bundles {
		pkg, ch, name, replaces := b.PackageName, b.ChannelName, b.CsvName, b.Replaces
		calls = append(calls, call{"GetBundle", func(ctx context.Context, c api.RegistryClient) error {
			_, err := c.GetBundle(ctx, &api.GetBundleRequest{PkgName: pkg, ChannelName: ch, CsvName: name})
			return err
		}})
		if replaces != "" {
			calls = append(calls,
				call{"GetChannelEntriesThatReplace", func(ctx context.Context, c api.RegistryClient) error {
					_, err := drain(c.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: replaces}))
					return err
				}},
				call{"GetBundleThatReplaces", func(ctx context.Context, c api.RegistryClient) error {
					_, err := c.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: replaces, PkgName: pkg, ChannelName: ch})
					return err
				}})
		}
		head := heads[chKey{pkg, ch}] == name
		for _, g := range b.ProvidedApis {
			k := gvk{g.Group, g.Version, g.Kind}
			all[k] = true
			if head {
				latest[k] = true
				if defaults[pkg] == ch {
					dflt[k] = true
				}
			}
		}
	}
	for _, k := range sortedGVKs(all) {
		calls = append(calls, call{"GetChannelEntriesThatProvide", func(ctx context.Context, c api.RegistryClient) error {
			_, err := drain(c.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: k.Group, Version: k.Version, Kind: k.Kind}))
			return err
		}})
	}
	for _, k := range sortedGVKs(latest) {
		calls = append(calls, call{"GetLatestChannelEntriesThatProvide", func(ctx context.Context, c api.RegistryClient) error {
			_, err := drain(c.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: k.Group, Version: k.Version, Kind: k.Kind}))
			return err
		}})
	}
	for _, k := range sortedGVKs(dflt) {
		calls = append(calls, call{"GetDefaultBundleThatProvides", func(ctx context.Context, c api.RegistryClient) error {
			_, err := c.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: k.Group, Version: k.Version, Kind: k.Kind})
			return err
		}})
	}
	calls = append(calls, call{"ListPackages", func(ctx context.Context, c api.RegistryClient) error {
		_, err := drain(c.ListPackages(ctx, &api.ListPackageRequest{}))
		return err
	}})
	return calls, nil
}

type gvk struct{ Group, Version, Kind string }

func sortedGVKs(m map[gvk]bool) []gvk {
	out := make([]gvk, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b gvk) int {
		return strings.Compare(a.Group+"/"+a.Version+"/"+a.Kind, b.Group+"/"+b.Version+"/"+b.Kind)
	})
	return out
}

// loadResult is a load test's outcome.
type loadResult struct {
	// total counts the calls made; notRun those the timeout left undone.
	total, errors, notRun int
	firstErr              error
	latencies             []time.Duration // sorted
	elapsed               time.Duration
}

func (l loadResult) percentile(p float64) time.Duration {
	if len(l.latencies) == 0 {
		return 0
	}
	return l.latencies[min(len(l.latencies)-1, int(p*float64(len(l.latencies))))]
}

func (l loadResult) perSecond() float64 {
	if l.elapsed <= 0 {
		return 0
	}
	return float64(l.total) / l.elapsed.Seconds()
}

// loadTest runs clients goroutines, each on its own connection, each making
// perClient calls drawn from the mix (seeded per client, so both servers
// see the same sequence). One ListBundles in 200 calls streams the whole
// catalog.
func loadTest(addr string, calls []call, clients, perClient int, timeout time.Duration) loadResult {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	listBundles := call{"ListBundles", func(ctx context.Context, c api.RegistryClient) error {
		_, err := drain(c.ListBundles(ctx, &api.ListBundlesRequest{}))
		return err
	}}
	var (
		mu  sync.Mutex
		out loadResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			lat := make([]time.Duration, 0, perClient)
			errs := 0
			var first error
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				mu.Lock()
				out.errors += perClient
				out.total += perClient
				out.firstErr = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			c := api.NewRegistryClient(conn)
			notRun := 0
			for n := range perClient {
				if ctx.Err() != nil {
					notRun = perClient - n
					break
				}
				cl := calls[rng.IntN(len(calls))]
				if rng.IntN(200) == 0 {
					cl = listBundles
				}
				t := time.Now()
				cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
				err := cl.do(cctx, c)
				ccancel()
				if ctx.Err() != nil {
					// Cut off by the load timeout, not failed.
					notRun = perClient - n
					break
				}
				lat = append(lat, time.Since(t))
				if err != nil {
					errs++
					if first == nil {
						first = fmt.Errorf("%s: %w", cl.name, err)
					}
				}
			}
			mu.Lock()
			out.total += len(lat)
			out.errors += errs
			out.notRun += notRun
			out.latencies = append(out.latencies, lat...)
			if out.firstErr == nil {
				out.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	slices.Sort(out.latencies)
	return out
}
