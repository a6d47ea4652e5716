package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/serve"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

func newServeCmd() *cobra.Command {
	var (
		port, httpAddr, name string
		drain                time.Duration
		pull                 image.Options
	)
	cmd := &cobra.Command{
		Use:   "serve SOURCE [-p PORT] [--http ADDR] [--name NAME]",
		Short: "Serve a catalog over opm's gRPC registry API and catalogd's HTTP API",
		Long: `Serve SOURCE (anything fbc render reads: a catalog directory or file, a catalog
image by registry reference, oci:, oci-archive: or docker-archive:) the two ways
clusters read catalogs:

  gRPC (-p, default 50051, every interface, as opm serve): the api.Registry
  service a CatalogSource pod answers for OLM classic, with the same answers as
  opm serve; grpc.health.v1 (NOT_SERVING until the catalog is loaded, then
  SERVING); server reflection (grpcurl needs no .proto file).

  HTTP (--http ADDR): catalogd's API for OLM v1 tooling under /catalogs/NAME/:
  api/v1/all (every blob, one JSON object per line) and
  api/v1/metas?schema=&package=&name= .

The catalog is read once at startup and must be valid: what OLM's rules
reject is printed with file and line, and fbc exits 1. SIGTERM or SIGINT
stops taking calls, waits for those in flight (up to --drain-timeout) and
exits 0. Exit 2: the port is in use, the source cannot be read.`,
		Example: `  fbc serve catalog/
  fbc serve catalog/ -p 127.0.0.1:50051 --http 127.0.0.1:8080 --name my-catalog
  fbc serve quay.io/me/catalog:v1`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src := args[0]
			grpcAddr, err := listenAddr(port)
			if err != nil {
				return usageErrorf("-p %s: %v", port, err)
			}
			opts := serve.Options{GRPCAddr: grpcAddr, Name: name}
			if httpAddr != "" {
				if opts.HTTPAddr, err = listenAddr(httpAddr); err != nil {
					return usageErrorf("--http %s: %v", httpAddr, err)
				}
			}
			if opts.Name == "" {
				opts.Name = serve.DefaultName(src)
			} else if err := serve.CheckName(opts.Name); err != nil {
				return usageErrorf("--name %s: %v", opts.Name, err)
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			r, err := newRenderer(cmd, pull, 0)
			if err != nil {
				return err
			}
			return runServe(cmd.Context(), cmd, src, opts, r, drain)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&port, "port", "p", "50051", "gRPC port, or HOST:PORT to listen on one address")
	f.StringVar(&httpAddr, "http", "", "serve catalogd's HTTP API on this address (HOST:PORT, :PORT or PORT)")
	f.StringVar(&name, "name", "", "catalog name in HTTP paths /catalogs/NAME/ (default: from SOURCE)")
	f.DurationVar(&drain, "drain-timeout", 25*time.Second, "how long calls in flight may run after SIGTERM")
	addPullFlags(f, &pull)
	return withProgress(cmd, "loading")
}

// listenAddr accepts PORT, :PORT or HOST:PORT.
func listenAddr(s string) (string, error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", err
	}
	if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("want a port number from 0 to 65535")
	}
	return net.JoinHostPort(host, p), nil
}

func runServe(ctx context.Context, cmd *cobra.Command, src string, opts serve.Options, r *render.Renderer, drain time.Duration) error {
	stderr := cmd.ErrOrStderr()
	srv, err := serve.Listen(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	start := time.Now()
	cat, err := serve.Load(ctx, func(ctx context.Context, fn func(*declcfg.File) error) error {
		// One file at a time (the next one read meanwhile), parsed a
		// document at a time as Load takes it (Stream), its long values
		// not copied, and read into the buffer of a file done with: Load
		// parses each file before it returns and keeps nothing of its
		// documents once it has indexed them.
		return r.WalkCatalog(ctx, src, declcfg.WalkOptions{Concurrency: 1, Ahead: 1, Borrow: true, Stream: true, Reuse: true}, fn)
	}, serve.LoadOptions{LowMemory: true})
	endProgress(cmd)
	switch {
	case ctx.Err() != nil:
		// Stopped while loading: nothing was served, the run was cut
		// short (exit 2, interrupted); once serving, a signal is the
		// normal way to stop.
		return ctx.Err()
	case err != nil:
		return serveLoadError(stderr, src, err)
	}
	defer cat.Close()
	st := cat.Stats()
	if st.Packages == 0 {
		// A wrong path or an empty image: serving nothing would look
		// healthy to every client.
		return nothingThere(fmt.Errorf("nothing to serve: %s holds no packages; %s", src, checkEmpty([]string{src})))
	}
	srv.SetCatalog(cat)
	where := "gRPC on " + srv.GRPCAddr().String()
	if a := srv.HTTPAddr(); a != nil {
		where += fmt.Sprintf(", HTTP on %s (/catalogs/%s/api/v1/all)", a, opts.Name)
	}
	fmt.Fprintf(stderr, "fbc serve: %s: %s, %s, %s loaded in %s; serving %s\n", src,
		counted(st.Packages, "package", "packages"), counted(st.Channels, "channel", "channels"), counted(st.Bundles, "bundle", "bundles"),
		time.Since(start).Round(time.Millisecond), where)
	// Once serving, an interrupt drains the calls in flight instead of
	// ending fbc within the usual second (a second signal still does).
	interruptGrace.Store(int64(drain + 5*time.Second))
	select {
	case <-ctx.Done():
	case err := <-srv.Err():
		return err
	}
	fmt.Fprintln(stderr, "fbc serve: stopping: waiting for calls in flight")
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		fmt.Fprintf(stderr, "fbc serve: %v\n", err)
	}
	return nil
}

// serveLoadError prints an invalid catalog's problems as fbc validate
// does; the error that ends the command keeps the failure's kind.
func serveLoadError(stderr io.Writer, src string, err error) error {
	var ie *serve.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	res := &validate.Result{Diagnostics: ie.Problems}
	if err := vreport.WriteText(stderr, res, vreport.Options{}); err != nil {
		return err
	}
	nerr, nwarn := res.Count()
	unread := 0
	for _, p := range ie.Problems {
		if p.Rule == declcfg.RuleIO {
			unread++
		}
	}
	if unread > 0 {
		// What could not be read leaves the catalog unknown, not invalid.
		return fault.Wrap(fault.KindOf(err), fmt.Errorf("%s: could not read %s; not serving a catalog read in part",
			src, counted(unread, "catalog file", "catalog files")))
	}
	summary := counted(nerr, "error", "errors")
	if nwarn > 0 {
		summary += ", " + counted(nwarn, "warning", "warnings")
	}
	return fault.Wrap(fault.KindOf(err), fmt.Errorf("%s: not serving an invalid catalog (%s)", src, summary))
}
