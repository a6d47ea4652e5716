// Package serve serves a file-based catalog the two ways clusters read
// catalogs: opm's gRPC registry API (api.Registry, which OLM classic's
// CatalogSource pods answer, with gRPC health and server reflection) and
// catalogd's HTTP API (/catalogs/NAME/api/v1/all and .../metas, which
// OLM v1 reads). Answers match opm serve's and catalogd's.
//
// A Server binds its addresses first and answers at once: health reports
// NOT_SERVING, and registry calls fail with Unavailable, until a loaded
// Catalog is set. Loading (Load) streams the catalog once and keeps only a
// compact index in memory; manifests are read back on demand.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/fbc-project/fbc/serve/api"
)

// Options configure a Server.
type Options struct {
	// GRPCAddr is where the registry API listens (host:port; ":50051"
	// listens on every interface, as opm does).
	GRPCAddr string
	// HTTPAddr, when set, is where catalogd's HTTP API listens.
	HTTPAddr string
	// Name is the catalog's name in HTTP paths: /catalogs/NAME/api/v1/all.
	Name string
	// Limits; zero takes the default.
	Limits Limits
}

// Limits bound what clients can hold of a server, so that many idle or
// slow clients cannot grow its memory without end.
type Limits struct {
	// MaxConnections bounds the connections each listener holds open
	// (default 1024); those beyond wait to be accepted until one closes.
	MaxConnections int
	// IdleTimeout closes an HTTP keep-alive connection that has waited
	// this long for its next request (default 1 minute).
	IdleTimeout time.Duration
	// WriteTimeout bounds how long an HTTP response may take to write
	// (default 5 minutes, catalogd's): a client that reads /all slower
	// than that is cut off.
	WriteTimeout time.Duration
	// MaxStreams bounds the gRPC calls in flight on one connection
	// (default 128); more wait until one ends.
	MaxStreams uint32
}

// Defaults.
const (
	defaultMaxConnections = 1024
	defaultIdleTimeout    = time.Minute
	defaultWriteTimeout   = 5 * time.Minute
	defaultMaxStreams     = 128
	// A client may ping as often as every pingMinTime, with or without
	// calls in flight (grpc-go clients cannot ping more often than every
	// 10 s); one that pings more often is sent away (GOAWAY
	// too_many_pings), as the gRPC specification says.
	pingMinTime = 5 * time.Second
	// The server pings a connection quiet for keepaliveTime and closes it
	// when no answer comes within keepaliveTimeout: a client that vanished
	// without closing its connection does not keep a place.
	keepaliveTime    = 2 * time.Minute
	keepaliveTimeout = 20 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.MaxConnections <= 0 {
		l.MaxConnections = defaultMaxConnections
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = defaultIdleTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = defaultWriteTimeout
	}
	if l.MaxStreams == 0 {
		l.MaxStreams = defaultMaxStreams
	}
	return l
}

// ListenError reports an address that could not be bound.
type ListenError struct {
	// What is "gRPC" or "HTTP".
	What string
	Addr string
	Err  error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("cannot listen on %s for %s: %v", e.Addr, e.What, unwrapOpError(e.Err))
}

func (e *ListenError) Unwrap() error { return e.Err }

// unwrapOpError drops the "listen tcp ADDR:" prefix the address already
// says.
func unwrapOpError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// Server serves one catalog over gRPC and, optionally, HTTP.
type Server struct {
	opts     Options
	grpc     *grpc.Server
	health   *healthServer
	http     *http.Server
	grpcLis  net.Listener
	httpLis  net.Listener
	catalog  atomic.Pointer[Catalog]
	errc     chan error
	stopOnce sync.Once
	// Calls being answered, so that a stop reports cutting off only
	// what it did cut off.
	grpcCalls, httpCalls atomic.Int64
}

// servingNames are the service names health keeps a status for: "" (the
// whole server, what grpc_health_probe and OLM ask about) and the
// registry, which List shows. Check and Watch answer any name with the
// whole server's status (healthServer).
var servingNames = []string{"", "api.Registry"}

// Listen binds the addresses and starts serving: health says NOT_SERVING
// and registry calls fail with Unavailable until SetCatalog.
func Listen(opts Options) (*Server, error) {
	s := &Server{opts: opts, errc: make(chan error, 2)}
	var err error
	if s.grpcLis, err = net.Listen("tcp", opts.GRPCAddr); err != nil {
		return nil, &ListenError{What: "gRPC", Addr: opts.GRPCAddr, Err: err}
	}
	if opts.HTTPAddr != "" {
		if s.httpLis, err = net.Listen("tcp", opts.HTTPAddr); err != nil {
			s.grpcLis.Close()
			return nil, &ListenError{What: "HTTP", Addr: opts.HTTPAddr, Err: err}
		}
	}
	lim := opts.Limits.withDefaults()
	s.grpcLis = netutil.LimitListener(s.grpcLis, lim.MaxConnections)
	s.grpc = grpc.NewServer(
		grpc.MaxConcurrentStreams(lim.MaxStreams),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: pingMinTime, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			s.grpcCalls.Add(1)
			defer s.grpcCalls.Add(-1)
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			s.grpcCalls.Add(1)
			defer s.grpcCalls.Add(-1)
			return h(srv, ss)
		}),
	)
	cat := s.catalog.Load
	api.RegisterRegistryServer(s.grpc, &registry{cat: cat})
	api.RegisterExperimentalRegistryServer(s.grpc, &experimental{cat: cat})
	s.health = newHealthServer()
	for _, name := range servingNames {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	go func() {
		if err := s.grpc.Serve(s.grpcLis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.errc <- fmt.Errorf("gRPC server: %w", err)
		}
	}()
	if s.httpLis != nil {
		s.httpLis = netutil.LimitListener(s.httpLis, lim.MaxConnections)
		handler := catalogdHandler(opts.Name, cat)
		s.http = &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				s.httpCalls.Add(1)
				defer s.httpCalls.Add(-1)
				handler.ServeHTTP(w, r)
			}),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       lim.IdleTimeout,
			WriteTimeout:      lim.WriteTimeout,
			ErrorLog:          log.New(semicolonFilter{log.Writer()}, "", log.LstdFlags),
		}
		go func() {
			if err := s.http.Serve(s.httpLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.errc <- fmt.Errorf("HTTP server: %w", err)
			}
		}()
	}
	return s, nil
}

// GRPCAddr is the bound gRPC address (useful with port 0).
func (s *Server) GRPCAddr() net.Addr { return s.grpcLis.Addr() }

// HTTPAddr is the bound HTTP address, nil without HTTP.
func (s *Server) HTTPAddr() net.Addr {
	if s.httpLis == nil {
		return nil
	}
	return s.httpLis.Addr()
}

// SetCatalog makes the server answer from c and report SERVING.
func (s *Server) SetCatalog(c *Catalog) {
	s.catalog.Store(c)
	for _, name := range servingNames {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
}

// Err delivers a server that stopped on its own.
func (s *Server) Err() <-chan error { return s.errc }

// Shutdown reports NOT_SERVING, ends health watches once they have said
// so, stops taking calls and waits for those in flight to finish, until
// ctx ends: then it cuts them off, and says so if any were still running.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() {
		s.health.shutdown()
		done := make(chan struct{})
		go func() {
			s.grpc.GracefulStop()
			close(done)
		}()
		var cut []string
		if s.http != nil {
			if s.http.Shutdown(ctx) != nil {
				if n := s.httpCalls.Load(); n > 0 {
					cut = append(cut, counted(n, "HTTP request"))
				}
				_ = s.http.Close()
			}
		}
		select {
		case <-done:
		case <-ctx.Done():
			if n := s.grpcCalls.Load(); n > 0 {
				cut = append([]string{counted(n, "gRPC call")}, cut...)
			}
			s.grpc.Stop()
			<-done
		}
		if len(cut) > 0 {
			err = fmt.Errorf("cut off %s still running when the drain time ended", strings.Join(cut, " and "))
		}
	})
	return err
}

// counted is "1 thing" or "n things".
func counted(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Close stops everything at once.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		s.grpc.Stop()
		if s.http != nil {
			_ = s.http.Close()
		}
	})
}
