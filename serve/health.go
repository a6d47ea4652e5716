package serve

import (
	"context"
	"sync"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// healthServer is grpc's health service, except that every service name
// has the server's status and a Watch ends once the server is stopping and
// the watcher has been told it is not serving.
//
// Every name: opm's health service answers SERVING whatever service is
// asked about, and clients rely on it: operator-registry's own
// client.HealthCheck asks about "Registry", which names no gRPC service,
// and grpc's health service would answer NotFound. So the name is not
// looked up: Check and Watch report on the server as a whole ("").
//
// Watch: grpc's own keeps every Watch open until the client leaves, and a
// graceful stop waits for every call: one watcher would hold up the whole
// drain.
type healthServer struct {
	*health.Server
	mu       sync.Mutex
	stopping bool
	watches  map[*watchStream]struct{}
}

func newHealthServer() *healthServer {
	return &healthServer{Server: health.NewServer(), watches: map[*watchStream]struct{}{}}
}

// watchStream is one Watch call: its context ends when the watch is done.
type watchStream struct {
	healthpb.Health_WatchServer
	ctx    context.Context
	cancel context.CancelFunc
	h      *healthServer
	// sent and last (guarded by h.mu) are the status last sent, if any.
	sent  bool
	last  healthpb.HealthCheckResponse_ServingStatus
	ended bool
}

func (w *watchStream) Context() context.Context { return w.ctx }

func (w *watchStream) Send(m *healthpb.HealthCheckResponse) error {
	err := w.Health_WatchServer.Send(m)
	w.h.mu.Lock()
	w.sent, w.last = true, m.Status
	w.endIfTold()
	w.h.mu.Unlock()
	return err
}

// endIfTold ends the watch when the server is stopping and the watcher's
// last news is that it does not serve. h.mu is held.
func (w *watchStream) endIfTold() {
	if w.h.stopping && w.sent && w.last != healthpb.HealthCheckResponse_SERVING {
		w.ended = true
		w.cancel()
	}
}

// wholeServer is a request about the server as a whole, which is what a
// request about any service name is answered with.
var wholeServer = &healthpb.HealthCheckRequest{}

// Check answers with the server's status, whatever service is named.
func (h *healthServer) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return h.Server.Check(ctx, wholeServer)
}

// Watch is grpc's Watch of the server's status, whatever service is
// named, ended by the server when it stops.
func (h *healthServer) Watch(_ *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	req := wholeServer
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	w := &watchStream{Health_WatchServer: stream, ctx: ctx, cancel: cancel, h: h}
	h.mu.Lock()
	h.watches[w] = struct{}{}
	h.mu.Unlock()
	err := h.Server.Watch(req, w)
	h.mu.Lock()
	delete(h.watches, w)
	ended := w.ended
	h.mu.Unlock()
	if ended && stream.Context().Err() == nil {
		// The server ended it: the call completes normally.
		return nil
	}
	return err
}

// shutdown sets every status to NOT_SERVING for good and ends each watch
// once the watcher has that news (at once for those told already).
func (h *healthServer) shutdown() {
	h.mu.Lock()
	h.stopping = true
	for w := range h.watches {
		w.endIfTold()
	}
	h.mu.Unlock()
	// Watchers still told SERVING get NOT_SERVING now; Send ends them.
	h.Server.Shutdown()
}
