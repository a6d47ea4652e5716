package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// HealthProbeName is the name under which fbc acts as grpc_health_probe.
// OLM's catalog pods probe their server by running
// `grpc_health_probe -addr=:50051` inside the container; an image served by
// fbc (fbc build --server fbc) links that name to /bin/fbc, so the probe
// needs no other binary.
const HealthProbeName = "grpc_health_probe"

// Exit codes of grpc_health_probe, which probes and scripts read.
const (
	probeInvalidArgs  = 1
	probeConnFailure  = 2
	probeRPCFailure   = 3
	probeUnhealthy    = 4
	probeDefaultLimit = time.Second
)

// HealthProbe checks a gRPC server's health the way grpc_health_probe
// does, with its flags (-addr, -service, -connect-timeout, -rpc-timeout;
// plain text only), messages and exit codes: 0 SERVING, 1 bad arguments,
// 2 no connection, 3 the call failed, 4 not SERVING.
func HealthProbe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(HealthProbeName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "(required) tcp host:port to connect")
	service := fs.String("service", "", "service name to check (default: \"\")")
	connTimeout := fs.Duration("connect-timeout", probeDefaultLimit, "timeout for establishing connection")
	rpcTimeout := fs.Duration("rpc-timeout", probeDefaultLimit, "timeout for health check rpc")
	verbose := fs.Bool("v", false, "verbose logs")
	if err := fs.Parse(args); err != nil {
		return probeInvalidArgs
	}
	if *addr == "" {
		fmt.Fprintln(stderr, "error: -addr not specified")
		return probeInvalidArgs
	}
	if *connTimeout <= 0 || *rpcTimeout <= 0 {
		fmt.Fprintln(stderr, "error: -connect-timeout and -rpc-timeout must be greater than zero")
		return probeInvalidArgs
	}
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintf(stderr, "error: failed to connect service at %q: %v\n", *addr, err)
		return probeConnFailure
	}
	defer conn.Close()
	start := time.Now()
	cctx, cancel := context.WithTimeout(context.Background(), *connTimeout)
	conn.Connect()
	for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
		if !conn.WaitForStateChange(cctx, st) {
			cancel()
			fmt.Fprintf(stderr, "timeout: failed to connect service %q within %v\n", *addr, *connTimeout)
			return probeConnFailure
		}
	}
	cancel()
	if *verbose {
		fmt.Fprintf(stderr, "established connection in %v\n", time.Since(start))
	}
	rctx, cancel := context.WithTimeout(context.Background(), *rpcTimeout)
	defer cancel()
	res, err := healthpb.NewHealthClient(conn).Check(rctx, &healthpb.HealthCheckRequest{Service: *service})
	if err != nil {
		fmt.Fprintf(stderr, "error: health rpc failed: %v\n", err)
		return probeRPCFailure
	}
	if res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		fmt.Fprintf(stderr, "service unhealthy (responded with %q)\n", res.GetStatus().String())
		return probeUnhealthy
	}
	fmt.Fprintf(stdout, "status: %v\n", res.GetStatus().String())
	return 0
}
