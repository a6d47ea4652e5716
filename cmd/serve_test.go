package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/fbc-project/fbc/serve/servetest"
)

// Script commands for fbc serve (testdata/script/serve*.txtar). Servers run
// in the background on loopback ports; every wait is bounded.
//
//	freeport VAR...                 set each VAR to a free loopback port
//	grpcready ADDR                  wait (up to 60s) until health says SERVING
//	grpchealth ADDR [SERVICE]       print the health status (of SERVICE)
//	grpc ADDR METHOD [JSON] [K=V]   call a registry method; answers on stdout,
//	                                one compact JSON per line; a failed call
//	                                prints CODE: MESSAGE on stderr and fails
//	httpget URL [Header:Value...]   GET (or HEAD with -head) and print status,
//	                                the catalogd headers and the body (gunzipped)
//	sigterm PORT                    send SIGTERM to the fbc serve started with PORT
//	watchstop PORT                  watch health on 127.0.0.1:PORT until SERVING,
//	                                send that fbc serve SIGTERM, and print what the
//	                                watch then receives and how it ends (within 10s)
func init() {
	scriptCmds["freeport"] = func(ts *testscript.TestScript, neg bool, args []string) {
		for _, v := range args {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			ts.Check(err)
			ts.Setenv(v, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
			l.Close()
		}
	}
	scriptCmds["grpcready"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: grpcready ADDR")
		}
		conn := scriptDial(ts, args[0])
		defer conn.Close()
		hc := healthpb.NewHealthClient(conn)
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
			cancel()
			if err == nil && res.Status == healthpb.HealthCheckResponse_SERVING {
				return
			}
		}
		ts.Fatalf("%s did not report SERVING within 60s", args[0])
	}
	scriptCmds["grpchealth"] = func(ts *testscript.TestScript, neg bool, args []string) {
		conn := scriptDial(ts, args[0])
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := &healthpb.HealthCheckRequest{}
		if len(args) > 1 {
			req.Service = args[1]
		}
		res, err := healthpb.NewHealthClient(conn).Check(ctx, req)
		ts.Check(err)
		fmt.Fprintln(ts.Stdout(), res.Status)
	}
	scriptCmds["grpc"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: grpc ADDR METHOD [JSON] [KEY=VALUE...]")
		}
		reqJSON := ""
		md := map[string]string{}
		for _, a := range args[2:] {
			if k, v, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(a, "{") {
				md[k] = v
			} else {
				reqJSON = a
			}
		}
		req, err := servetest.Request(args[1], reqJSON)
		ts.Check(err)
		conn := scriptDial(ts, args[0])
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		answers, err := servetest.Invoke(ctx, conn, args[1], req, md)
		for _, a := range answers {
			data, merr := protojson.Marshal(a)
			ts.Check(merr)
			var buf bytes.Buffer
			ts.Check(json.Compact(&buf, data))
			fmt.Fprintln(ts.Stdout(), buf.String())
		}
		if err != nil {
			st, _ := status.FromError(err)
			fmt.Fprintf(ts.Stderr(), "%s: %s\n", st.Code(), st.Message())
			if !neg {
				ts.Fatalf("%s failed", args[1])
			}
			return
		}
		if neg {
			ts.Fatalf("%s succeeded unexpectedly", args[1])
		}
	}
	scriptCmds["httpget"] = func(ts *testscript.TestScript, neg bool, args []string) {
		method := "GET"
		if len(args) > 0 && args[0] == "-head" {
			method, args = "HEAD", args[1:]
		}
		if len(args) < 1 {
			ts.Fatalf("usage: httpget [-head] URL [Header:Value...]")
		}
		req, err := http.NewRequest(method, args[0], nil)
		ts.Check(err)
		for _, h := range args[1:] {
			k, v, _ := strings.Cut(h, ":")
			req.Header.Set(k, strings.TrimSpace(v))
		}
		tr := &http.Transport{DisableCompression: true}
		defer tr.CloseIdleConnections()
		res, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
		ts.Check(err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		ts.Check(err)
		if res.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			ts.Check(err)
			body, err = io.ReadAll(zr)
			ts.Check(err)
		}
		fmt.Fprintf(ts.Stdout(), "%s\n", res.Status)
		for _, h := range []string{"Content-Type", "Content-Encoding", "Content-Length", "Last-Modified"} {
			if v := res.Header.Get(h); v != "" {
				if h == "Last-Modified" {
					v = "(set)"
				}
				fmt.Fprintf(ts.Stdout(), "%s: %s\n", h, v)
			}
		}
		fmt.Fprintf(ts.Stdout(), "\n%s", body)
	}
	scriptCmds["watchstop"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: watchstop PORT")
		}
		conn := scriptDial(ts, "127.0.0.1:"+args[0])
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 70*time.Second)
		defer cancel()
		w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
		ts.Check(err)
		for {
			m, err := w.Recv()
			ts.Check(err)
			if m.Status == healthpb.HealthCheckResponse_SERVING {
				break
			}
		}
		ts.Check(syscall.Kill(childServing(ts, args[0]), syscall.SIGTERM))
		// A watch still open 10s after SIGTERM is cut here, and says so.
		timer := time.AfterFunc(10*time.Second, cancel)
		defer timer.Stop()
		for {
			m, err := w.Recv()
			if err == io.EOF {
				fmt.Fprintln(ts.Stdout(), "ended")
				return
			}
			if err != nil {
				st, _ := status.FromError(err)
				fmt.Fprintf(ts.Stdout(), "ended: %s: %s\n", st.Code(), st.Message())
				return
			}
			fmt.Fprintln(ts.Stdout(), m.Status)
		}
	}
	scriptCmds["sigterm"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: sigterm PORT")
		}
		pid := childServing(ts, args[0])
		ts.Check(syscall.Kill(pid, syscall.SIGTERM))
	}
}

func scriptDial(ts *testscript.TestScript, addr string) *grpc.ClientConn {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	ts.Check(err)
	return conn
}

// childServing finds the fbc serve this test process started with port in
// its arguments (scripts run in parallel, each on ports of its own).
func childServing(ts *testscript.TestScript, port string) int {
	self := strconv.Itoa(os.Getpid())
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	ts.Check(err)
	for _, stat := range procs {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// The parent pid is the 4th field, after the ")" that ends the name.
		rest := string(data[bytes.LastIndexByte(data, ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		dir := filepath.Dir(stat)
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 1 && args[1] == "serve" && strings.Contains(string(cmdline), ":"+port) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			return pid
		}
	}
	ts.Fatalf("no fbc serve on port %s among this test's children", port)
	return 0
}
