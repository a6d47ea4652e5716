package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/fbc-project/fbc/serve/api"
	"github.com/fbc-project/fbc/serve/servetest"
)

// loadOnce loads dir for servers that share the catalog.
func loadOnce(t *testing.T, dir string) *Catalog {
	t.Helper()
	cat, err := Load(context.Background(), dirSource(dir), LoadOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// serveWith starts a server on loopback answering from cat.
func serveWith(t *testing.T, cat *Catalog, lim Limits) *Server {
	t.Helper()
	srv, err := Listen(Options{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Name: "limits", Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if cat != nil {
		srv.SetCatalog(cat)
	}
	return srv
}

// rawGet sends a GET for path (unless empty) on a connection of its own.
func rawGet(t *testing.T, srv *Server, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", srv.HTTPAddr().String(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if path != "" {
		if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path); err != nil {
			t.Fatal(err)
		}
	}
	return c, bufio.NewReader(c)
}

// listBundlesStarted starts a ListBundles and takes its first answer: a
// call in flight.
func listBundlesStarted(ctx context.Context, t *testing.T, rc api.RegistryClient) api.Registry_ListBundlesClient {
	t.Helper()
	stream, err := rc.ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	return stream
}

// The HTTP server closes idle keep-alive connections, cuts off a response
// its client does not read in time, holds a bounded number of connections,
// and answers a query it cannot parse with 400 rather than everything.
func TestHTTPLimits(t *testing.T) {
	t.Parallel()
	// About 14 MB of /all: more than the socket buffers of a client that
	// does not read hold (its receive window grows only as it reads).
	cat := loadOnce(t, imagelessCatalog(t, 40, 256<<10))
	all := "/catalogs/limits/api/v1/all"

	t.Run("idle", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{IdleTimeout: 200 * time.Millisecond})
		c, r := rawGet(t, srv, "/catalogs/limits/api/v1/metas?schema=olm.package")
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil || res.StatusCode != 200 {
			t.Fatalf("metas: %d %v", res.StatusCode, err)
		}
		start := time.Now()
		_ = c.SetReadDeadline(start.Add(10 * time.Second))
		if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Fatalf("idle keep-alive connection: read %d bytes, %v; want it closed", n, err)
		}
		t.Logf("idle connection closed after %s", time.Since(start).Round(time.Millisecond))
	})

	t.Run("slow-reader", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{WriteTimeout: 300 * time.Millisecond})
		c, r := rawGet(t, srv, all)
		time.Sleep(time.Second)
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		if err == nil || n >= res.ContentLength {
			t.Fatalf("a client that did not read for 1s got %d of %d bytes (%v); want it cut off", n, res.ContentLength, err)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server held the connection open after %d of %d bytes: %v", n, res.ContentLength, err)
		}
		t.Logf("cut off after %d of %d bytes: %v", n, res.ContentLength, err)
	})

	t.Run("connections", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{MaxConnections: 2})
		first, _ := rawGet(t, srv, "")
		rawGet(t, srv, "")
		third, r := rawGet(t, srv, "/catalogs/limits/api/v1/metas?schema=olm.package")
		_ = third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := r.Peek(1); err == nil {
			t.Fatal("a third connection was answered while two were open")
		}
		first.Close()
		_ = third.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(r, nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("the third connection once the first closed: %v", err)
		}
	})

	t.Run("malformed-query", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{})
		base := "http://" + srv.HTTPAddr().String() + "/catalogs/limits/api/v1/metas?"
		for query, why := range map[string]string{
			"package=x%":                     `malformed query: invalid URL escape "%"`,
			"schema=a;b=1":                   "malformed query: invalid semicolon separator in query",
			"schema=olm.bundle&package=%zz":  `malformed query: invalid URL escape "%zz"`,
			"schema=olm.bundle&name":         "", // a key without a value is no filter: answered
			"schema=olm.package&Package=big": `unknown query parameter "Package"`,
		} {
			res, body := get(t, http.MethodGet, base+query)
			switch {
			case why == "" && res.StatusCode != http.StatusOK:
				t.Errorf("metas?%s: %d %q", query, res.StatusCode, body)
			case why != "" && (res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "400 Bad Request: "+why)):
				t.Errorf("metas?%s: %d %q, want 400 saying %q", query, res.StatusCode, body, why)
			}
		}
	})

	t.Run("drain", func(t *testing.T) {
		// A response still being written when the drain time ends is cut
		// off, and Shutdown says so.
		srv := serveWith(t, cat, Limits{})
		_, r := rawGet(t, srv, all)
		if _, err := r.Peek(1); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		err := srv.Shutdown(ctx)
		if err == nil || err.Error() != "cut off 1 HTTP request still running when the drain time ended" {
			t.Fatalf("Shutdown with /all half read: %v", err)
		}
	})
}

// The gRPC server bounds the calls in flight on a connection and the
// connections it holds, and sends away a client that pings too often.
func TestGRPCLimits(t *testing.T) {
	t.Parallel()
	cat := loadOnce(t, imagelessCatalog(t, 20, 64<<10))

	t.Run("streams", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{MaxStreams: 1})
		rc := api.NewRegistryClient(dial(t, srv.GRPCAddr().String()))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		stream := listBundlesStarted(ctx, t, rc)
		short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancelShort()
		if _, err := rc.GetPackage(short, &api.GetPackageRequest{Name: "big"}); status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("a second call while one is in flight on the connection: %v, want it to wait", err)
		}
		if rest, err := servetest.Collect(stream, nil); err != nil || len(rest) != 19 {
			t.Fatalf("the rest of ListBundles: %d, %v", len(rest), err)
		}
		if _, err := rc.GetPackage(ctx, &api.GetPackageRequest{Name: "big"}); err != nil {
			t.Fatalf("a call once the first ended: %v", err)
		}
	})

	t.Run("connections", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{MaxConnections: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		first := dial(t, srv.GRPCAddr().String())
		if _, err := api.NewRegistryClient(first).GetPackage(ctx, &api.GetPackageRequest{Name: "big"}); err != nil {
			t.Fatal(err)
		}
		second := api.NewRegistryClient(dial(t, srv.GRPCAddr().String()))
		short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancelShort()
		if _, err := second.GetPackage(short, &api.GetPackageRequest{Name: "big"}); status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("a second connection while one is open: %v, want it to wait", err)
		}
		first.Close()
		if _, err := second.GetPackage(ctx, &api.GetPackageRequest{Name: "big"}); err != nil {
			t.Fatalf("the second connection once the first closed: %v", err)
		}
	})

	t.Run("drain", func(t *testing.T) {
		// A call still in flight when the drain time ends is cut off and
		// counted; an open health watch is ended, not counted.
		srv := serveWith(t, cat, Limits{})
		conn := dial(t, srv.GRPCAddr().String())
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			t.Fatal(err)
		}
		listBundlesStarted(ctx, t, api.NewRegistryClient(conn))
		short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancelShort()
		err = srv.Shutdown(short)
		if err == nil || err.Error() != "cut off 1 gRPC call still running when the drain time ended" {
			t.Fatalf("Shutdown with ListBundles half read: %v", err)
		}
	})

	t.Run("ping-flood", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{})
		c, err := net.DialTimeout("tcp", srv.GRPCAddr().String(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
			t.Fatal(err)
		}
		fr := http2.NewFramer(c, c)
		if err := fr.WriteSettings(); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if err := fr.WritePing(false, [8]byte{byte(i)}); err != nil {
				break // sent away already
			}
		}
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("no GOAWAY for a client that pinged 10 times at once: %v", err)
			}
			if ga, ok := f.(*http2.GoAwayFrame); ok {
				if ga.ErrCode != http2.ErrCodeEnhanceYourCalm || string(ga.DebugData()) != "too_many_pings" {
					t.Fatalf("GOAWAY %v %q, want ENHANCE_YOUR_CALM too_many_pings", ga.ErrCode, ga.DebugData())
				}
				return
			}
		}
	})
}

// A health Watch does not hold up a stop: it is told NOT_SERVING and
// ended, the stop waits for the real call in flight and no longer, and
// nothing is reported cut off.
func TestShutdownEndsWatches(t *testing.T) {
	t.Parallel()
	cat := loadOnce(t, imagelessCatalog(t, 20, 64<<10))
	watch := func(t *testing.T, hc healthpb.HealthClient, service string, first healthpb.HealthCheckResponse_ServingStatus) healthpb.Health_WatchClient {
		w, err := hc.Watch(context.Background(), &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := w.Recv(); err != nil || m.Status != first {
			t.Fatalf("watch %q: first %v %v, want %v", service, m, err, first)
		}
		return w
	}
	ended := func(t *testing.T, w healthpb.Health_WatchClient, service string, told bool) {
		if told {
			if m, err := w.Recv(); err != nil || m.Status != healthpb.HealthCheckResponse_NOT_SERVING {
				t.Fatalf("watch %q after Shutdown: %v %v, want NOT_SERVING", service, m, err)
			}
		}
		if m, err := w.Recv(); err != io.EOF {
			t.Fatalf("watch %q after NOT_SERVING: %v %v, want its end", service, m, err)
		}
	}

	t.Run("serving", func(t *testing.T) {
		srv := serveWith(t, cat, Limits{})
		conn := dial(t, srv.GRPCAddr().String())
		hc := healthpb.NewHealthClient(conn)
		whole := watch(t, hc, "", healthpb.HealthCheckResponse_SERVING)
		registry := watch(t, hc, "api.Registry", healthpb.HealthCheckResponse_SERVING)
		// Every name has the server's status (as opm answers), so a
		// watch of any name is told NOT_SERVING and ended too.
		unknown := watch(t, hc, "no.such.Service", healthpb.HealthCheckResponse_SERVING)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		stream := listBundlesStarted(ctx, t, api.NewRegistryClient(conn))
		done := make(chan error, 1)
		go func() { done <- srv.Shutdown(ctx) }()
		ended(t, whole, "", true)
		ended(t, registry, "api.Registry", true)
		ended(t, unknown, "no.such.Service", true)
		select {
		case err := <-done:
			t.Fatalf("Shutdown returned (%v) with ListBundles in flight", err)
		case <-time.After(100 * time.Millisecond):
		}
		if rest, err := servetest.Collect(stream, nil); err != nil || len(rest) != 19 {
			t.Fatalf("the rest of ListBundles: %d, %v", len(rest), err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Shutdown still waiting 20s after the last call ended")
		}
	})

	t.Run("loading", func(t *testing.T) {
		// Stopped before the catalog is set: the watcher has been told
		// NOT_SERVING already, and is ended at once.
		srv := serveWith(t, nil, Limits{})
		w := watch(t, healthpb.NewHealthClient(dial(t, srv.GRPCAddr().String())), "", healthpb.HealthCheckResponse_NOT_SERVING)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- srv.Shutdown(ctx) }()
		ended(t, w, "", false)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Shutdown still waiting 20s after the watch ended")
		}
	})
}
