package profiles

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/olmv1gate"
	"github.com/fbc-project/fbc/internal/slab"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
)

// Checker runs the profiles of one validation run (validate/profile's
// Checker): CheckBundle from several goroutines at once, then CheckCatalog
// once.
type Checker interface {
	CheckBundle(b *validate.BundleContents) []declcfg.Finding
	CheckCatalog(cat *model.Catalog) []declcfg.Finding
}

// NewChecker makes the checker of a run from what fbc's hello asks for.
type NewChecker func(set Set, sourcesOnly bool, warn fault.Warn) Checker

// Serve answers one exchange (see the package documentation): fbc's
// requests on in, the responses on out. It returns once the catalog's
// findings are written, or with the reason the exchange could not go on
// (after telling fbc, when it still listens).
func Serve(ctx context.Context, in io.Reader, out io.Writer, newChecker NewChecker) error {
	s := &server{w: bufio.NewWriterSize(out, 64<<10)}
	// Payloads are read a chunk at a time, and a read as large as the
	// buffer goes from the pipe straight into the payload's own buffer,
	// not through this one.
	r := bufio.NewReaderSize(in, chunk)
	var hello Hello
	req, err := readRequest(r, nil)
	switch {
	case err != nil:
		return s.refuse(err)
	case req.Hello == nil:
		return s.refuse(errors.New("the exchange does not start with a hello"))
	default:
		hello = *req.Hello
	}
	local := buildinfo.Read().Identity()
	if err := s.send(&Response{Hello: &Hello{Protocol: Protocol, Version: local}}); err != nil {
		return err
	}
	if hello.Protocol != Protocol || hello.Version != local {
		return fmt.Errorf("fbc is version %s (protocol %d), fbc-profile is %s (protocol %d): the two executables must come from the same build",
			hello.Version, hello.Protocol, local, Protocol)
	}
	set, err := Parse([]string{hello.Profiles})
	if err != nil {
		return s.refuse(fmt.Errorf("profiles %q: %v", hello.Profiles, err))
	}
	if set.Gates, err = olmv1gate.Parse(hello.Gates); err != nil {
		return s.refuse(fmt.Errorf("feature gates %q: %v", hello.Gates, err))
	}
	checker := newChecker(set, hello.SourcesOnly, func(msg string) { _ = s.send(&Response{Warning: msg}) })

	workers := hello.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each worker reads the next request itself, in turn, and checks the
	// bundle it read: no goroutine hands bundles on, and a bundle waits in
	// the pipe, not in this process's memory, until a worker is free. A
	// bundle's payload buffer is reused once its findings are sent: the
	// checker keeps no reference to the bytes it was given (it copies what
	// it keeps).
	payloads := slab.New(workers)
	var (
		rmu  sync.Mutex
		last *Request // the request after the bundles, or nil
		stop error    // why the bundles ended
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rmu.Lock()
				if last != nil || stop != nil {
					rmu.Unlock()
					return
				}
				if err := ctx.Err(); err != nil {
					stop = err
					rmu.Unlock()
					return
				}
				req, err := readRequest(r, payloads)
				switch {
				case err != nil:
					stop = err
				case req.Bundle == nil || req.Bundle.Contents == nil:
					last = req
				}
				ended := last != nil || stop != nil
				rmu.Unlock()
				if ended {
					return
				}
				fs := checker.CheckBundle(req.Bundle.Contents)
				if fs == nil {
					fs = []declcfg.Finding{}
				}
				_ = s.send(&Response{Findings: &BundleFindings{ID: req.Bundle.ID, Findings: fs}})
				req.Bundle.release(payloads)
			}
		}()
	}
	wg.Wait()
	switch {
	case stop != nil && ctx.Err() != nil && errors.Is(stop, ctx.Err()):
		return stop
	case errors.Is(stop, io.EOF):
		return errors.New("fbc ended the exchange before it sent the catalog")
	case stop != nil:
		return s.refuse(stop)
	case last.Catalog != nil:
		fs := checker.CheckCatalog(last.Catalog.Model())
		if fs == nil {
			fs = []declcfg.Finding{}
		}
		return s.send(&Response{Done: &Done{Findings: fs}})
	default:
		return s.refuse(errors.New("a request is neither a bundle with contents nor the catalog"))
	}
}

// server writes responses, one whole line at a time.
type server struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (s *server) send(resp *Response) error {
	l, err := encode(resp)
	if err != nil {
		return err
	}
	defer l.free()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(l.Bytes()); err != nil {
		s.err = err
		return err
	}
	s.err = s.w.Flush()
	return s.err
}

// refuse tells fbc why the exchange ends, and returns that reason.
func (s *server) refuse(err error) error {
	_ = s.send(&Response{Error: err.Error()})
	return err
}

// readRequest reads one line of fbc's requests: exactly one of a Request's
// fields, nothing else. A bundle's payload goes into a buffer of payloads
// (nil: a new one).
func readRequest(r *bufio.Reader, payloads *slab.Pool) (*Request, error) {
	line, err := r.ReadBytes('\n')
	if len(bytes.TrimSpace(line)) == 0 {
		if err == nil {
			return readRequest(r, payloads)
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("%q is not a request: %v", shorten(line), err)
	}
	set := 0
	for _, ok := range []bool{req.Hello != nil, req.Bundle != nil, req.Catalog != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("%q is not one request", shorten(line))
	}
	if b := req.Bundle; b != nil && b.Contents != nil {
		if err := readPayload(r, b, payloads); err != nil {
			return nil, fmt.Errorf("bundle %d: %w", b.ID, err)
		}
	}
	return &req, nil
}

// readPayload reads the raw bytes that follow a bundle request into its
// objects and files, all in one buffer of payloads.
func readPayload(r *bufio.Reader, b *BundleRequest, payloads *slab.Pool) error {
	c := b.Contents
	var props []declcfg.Property
	if c.Bundle != nil {
		props = c.Bundle.Properties
	}
	if len(b.Payload) != len(c.Objects)+len(c.Files)+len(props) {
		return fmt.Errorf("payload lists %d sizes for %d objects, %d files and %d property values", len(b.Payload), len(c.Objects), len(c.Files), len(props))
	}
	total := 0
	for _, n := range b.Payload {
		if n < 0 || n > maxPayload || total+n > maxPayload {
			return fmt.Errorf("payload size %d is out of range", n)
		}
		total += n
	}
	var buf []byte
	if payloads != nil {
		buf = payloads.Get(total)[:total]
	} else {
		buf = make([]byte, total)
	}
	for rest := buf; len(rest) > 0; {
		n, err := io.ReadFull(r, rest[:min(len(rest), chunk)])
		if err != nil {
			return fmt.Errorf("reading its payload: %w", err)
		}
		rest = rest[n:]
	}
	b.buf = buf
	for i, n := range b.Payload {
		data := buf[:n:n]
		buf = buf[n:]
		switch {
		case i < len(c.Objects):
			c.Objects[i].JSON = data
		case i < len(c.Objects)+len(c.Files):
			c.Files[i-len(c.Objects)].Data = data
		default:
			props[i-len(c.Objects)-len(c.Files)].Value = data
		}
	}
	return nil
}

// release hands the request's payload buffer back once the bundle is
// checked.
func (b *BundleRequest) release(payloads *slab.Pool) {
	if b.buf != nil {
		payloads.Put(b.buf)
		b.buf = nil
	}
}

// InProcess runs a Checker in this process, as validate.ProfileChecker:
// for tests and benchmarks of the checks themselves, which link them.
func InProcess(c Checker) validate.ProfileChecker { return inProcess{c} }

type inProcess struct{ c Checker }

func (p inProcess) CheckBundle(b *validate.BundleContents) []declcfg.Finding {
	return p.c.CheckBundle(b)
}

func (p inProcess) CheckCatalog(cat *model.Catalog) ([]declcfg.Finding, error) {
	return p.c.CheckCatalog(cat), nil
}
