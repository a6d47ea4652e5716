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
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
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
	health   *health.Server
	http     *http.Server
	grpcLis  net.Listener
	httpLis  net.Listener
	catalog  atomic.Pointer[Catalog]
	errc     chan error
	stopOnce sync.Once
}

// servingNames are the service names health reports on: "" (the whole
// server, what grpc_health_probe and OLM ask about) and the registry.
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
	s.grpc = grpc.NewServer()
	cat := s.catalog.Load
	api.RegisterRegistryServer(s.grpc, &registry{cat: cat})
	api.RegisterExperimentalRegistryServer(s.grpc, &experimental{cat: cat})
	s.health = health.NewServer()
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
		s.http = &http.Server{Handler: catalogdHandler(opts.Name, cat), ReadHeaderTimeout: 10 * time.Second}
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

// Shutdown reports NOT_SERVING, stops taking calls and waits for those in
// flight to finish, until ctx ends (then it cuts them off).
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() {
		s.health.Shutdown()
		done := make(chan struct{})
		go func() {
			s.grpc.GracefulStop()
			close(done)
		}()
		if s.http != nil {
			if herr := s.http.Shutdown(ctx); herr != nil {
				_ = s.http.Close()
			}
		}
		select {
		case <-done:
		case <-ctx.Done():
			s.grpc.Stop()
			<-done
			err = fmt.Errorf("calls still running after the drain time were cut off")
		}
	})
	return err
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
