package profiles

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
)

// StartOptions say how to run fbc-profile.
type StartOptions struct {
	// Path is the fbc-profile executable.
	Path string
	// Set is the profiles to run.
	Set Set
	// SourcesOnly checks bundle directories and images only, not the
	// bundles of catalogs.
	SourcesOnly bool
	// Concurrency bounds the bundles checked at once (0: fbc-profile's
	// processors).
	Concurrency int
	// Warn receives fbc-profile's notes.
	Warn fault.Warn
	// HelloTimeout bounds the wait for fbc-profile's first answer
	// (default 30 s): a program that does not speak the protocol may never
	// answer.
	HelloTimeout time.Duration
}

// VersionError is an fbc-profile of another build than the running fbc.
type VersionError struct {
	Path          string
	Plugin, Local string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s is version %s, but this fbc is %s: the two executables must come from the same build", e.Path, e.Plugin, e.Local)
}

// FaultKind is Run: the installation is at fault, not the input.
func (e *VersionError) FaultKind() fault.Kind { return fault.Run }

// Client runs the profiles in an fbc-profile process; it implements
// validate.ProfileChecker. One Client serves one validation run: Start it,
// hand it to validate.Options.Profiles, and Close it when the run is over
// (CheckCatalog ends the exchange; Close kills a process a failed run
// left).
type Client struct {
	path    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	outFile *os.File
	warn    fault.Warn
	// stderr keeps the start of what fbc-profile writes there: the
	// reason it gives when it fails, or a crash's panic line. It is read
	// from a pipe of fbc's own until the pipe ends (stderrDone).
	stderr     headBuffer
	stderrDone chan struct{}

	wmu      sync.Mutex // guards w and inClosed
	w        *bufio.Writer
	inClosed bool

	next atomic.Int64
	pmu  sync.Mutex
	// pending are the bundles sent and not answered; once the exchange
	// has failed (broken), each gets nil at once.
	pending map[int64]func([]declcfg.Finding)
	broken  bool

	done   chan []declcfg.Finding // the catalog's findings
	exited chan struct{}          // closed when the process has been waited for
	exit   error                  // its exit status, once exited is closed

	failOnce sync.Once
	failed   chan struct{}
	err      error
}

// Start runs fbc-profile and opens the exchange. It fails when the program
// cannot be run. One that does not answer as fbc-profile (within
// StartOptions.HelloTimeout) or is another build (*VersionError) fails
// the run: CheckBundle returns nothing and CheckCatalog that error.
func Start(ctx context.Context, opts StartOptions) (*Client, error) {
	c := &Client{
		path:       opts.Path,
		warn:       opts.Warn,
		pending:    map[int64]func([]declcfg.Finding){},
		done:       make(chan []declcfg.Finding, 1),
		exited:     make(chan struct{}),
		failed:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	c.cmd = exec.CommandContext(ctx, opts.Path)
	c.cmd.WaitDelay = 2 * time.Second
	ownGroup(c.cmd)
	// All three are pipes of our own rather than exec's: Wait closes
	// exec's when the process exits, and the last message could be lost
	// unread; Wait waits for exec's to be drained, so that a child that
	// keeps one open would cost fbc-profile's exit status; and ours can
	// be made larger (growPipe).
	var pipes [6]*os.File // read, write: stdin, stdout, stderr
	for i := 0; i < len(pipes); i += 2 {
		var err error
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			for _, p := range pipes[:i] {
				p.Close()
			}
			return nil, fault.Errorf(fault.Run, "running %s: %v", opts.Path, err)
		}
	}
	inR, in, out, outW, errR, errW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	growPipe(in)
	growPipe(out)
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = inR, outW, errW
	c.in, c.w, c.out = in, bufio.NewWriterSize(in, chunk), bufio.NewReaderSize(out, 64<<10)
	err := c.cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		in.Close()
		out.Close()
		errR.Close()
		return nil, fault.Errorf(fault.Run, "running %s: %v", opts.Path, err)
	}
	c.outFile = out
	go func() {
		// All of it is read, only the start kept (headBuffer): a process
		// that writes without end must not block on a full pipe.
		_, _ = io.Copy(&c.stderr, errR)
		errR.Close()
		close(c.stderrDone)
	}()
	go func() {
		c.exit = c.cmd.Wait()
		// What fbc-profile started and left behind goes with it: a child
		// holding its output open would keep fbc reading for ever.
		killGroup(c.cmd)
		close(c.exited)
	}()
	local := buildinfo.Read().Identity()
	hello := &Hello{Protocol: Protocol, Version: local, Profiles: opts.Set.String(), Gates: opts.Set.Gates.Changed(),
		SourcesOnly: opts.SourcesOnly, Concurrency: opts.Concurrency}
	if err := c.send(&Request{Hello: hello}); err != nil {
		err = c.stopped(fmt.Errorf("sending the hello: %w", err))
		c.Close()
		return nil, err
	}
	// fbc-profile's answer is awaited beside the caller's work: its
	// start-up (the Kubernetes libraries' initialisation) overlaps fbc's
	// reading of the catalog instead of preceding it. Requests sent
	// meanwhile wait in the pipe; a wrong answer fails the run as any
	// failure of fbc-profile does (CheckCatalog returns it).
	go func() {
		answer, err := c.handshake(ctx, opts.HelloTimeout)
		switch {
		case err != nil:
			c.fail(err)
		case answer.Protocol != Protocol || answer.Version != local:
			c.fail(&VersionError{Path: opts.Path, Plugin: answer.Version, Local: local})
		default:
			c.read()
		}
	}()
	return c, nil
}

// handshake reads fbc-profile's answer to fbc's hello.
func (c *Client) handshake(ctx context.Context, timeout time.Duration) (*Hello, error) {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	type answer struct {
		line []byte
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := readMessage(c.out)
		got <- answer{line, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case a := <-got:
		var tl *MessageTooLongError
		if errors.As(a.err, &tl) {
			return nil, c.protocolError(tl)
		}
		if len(a.line) == 0 && a.err != nil {
			c.awaitExit(2 * time.Second)
			return nil, c.stopped(nil)
		}
		resp, err := parseResponse(a.line)
		if err != nil {
			return nil, c.protocolError(err)
		}
		if resp.Hello == nil {
			if resp.Error != "" {
				return nil, fault.Errorf(fault.Run, "%s: %s", c.path, plainText(resp.Error))
			}
			return nil, c.protocolError(errors.New("its first message is not a hello"))
		}
		return resp.Hello, nil
	case <-timer.C:
		return nil, fault.Errorf(fault.Run, "%s did not answer within %s: it does not speak fbc's profile protocol", c.path, timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Send sends one bundle and returns once it is written: done receives its
// findings when fbc-profile answers, on the goroutine that reads its
// answers, or nil once the exchange has failed (CheckCatalog reports the
// failure). Bundles wait in the pipe while fbc-profile is busy: Send
// blocks when the pipe is full, which keeps fbc's reading of the catalog
// from racing ahead of the checks, and fbc holds no bundle's manifests
// meanwhile.
func (c *Client) Send(b *validate.BundleContents, done func([]declcfg.Finding)) {
	id := c.next.Add(1)
	c.pmu.Lock()
	if c.broken {
		c.pmu.Unlock()
		done(nil)
		return
	}
	c.pending[id] = done
	c.pmu.Unlock()
	contents, payload := wireContents(b)
	req := &BundleRequest{ID: id, Contents: contents}
	for _, p := range payload {
		req.Payload = append(req.Payload, len(p))
	}
	if err := c.send(&Request{Bundle: req}, payload...); err != nil {
		c.writeFailed(err)
	}
}

// CheckBundle sends one bundle and waits for its findings. After a
// failure it returns nothing at once; CheckCatalog reports the failure.
func (c *Client) CheckBundle(b *validate.BundleContents) []declcfg.Finding {
	ch := make(chan []declcfg.Finding, 1)
	c.Send(b, func(fs []declcfg.Finding) { ch <- fs })
	return <-ch
}

// CheckCatalog sends the catalog, ends the exchange and returns the
// catalog-wide findings, or why the profiles could not run.
func (c *Client) CheckCatalog(cat *model.Catalog) ([]declcfg.Finding, error) {
	if err := c.send(&Request{Catalog: CatalogOf(cat)}); err != nil {
		c.writeFailed(err)
	}
	c.closeInput()
	select {
	case fs := <-c.done:
		select {
		case <-c.exited:
		case <-c.failed:
		}
		select {
		case <-c.failed:
			return nil, c.err
		default:
		}
		return fs, nil
	case <-c.failed:
		return nil, c.err
	}
}

// Close ends the exchange and the process, if it is still running, and
// waits for it. It may be called more than once.
func (c *Client) Close() {
	c.closeInput()
	if !c.awaitExit(100 * time.Millisecond) {
		c.fail(fault.Errorf(fault.Run, "%s: stopped", c.path))
	}
	<-c.exited
	c.outFile.Close()
}

// awaitExit waits up to d for the process to exit, and kills it if it has
// not; it reports whether it exited on its own.
func (c *Client) awaitExit(d time.Duration) bool {
	select {
	case <-c.exited:
		return true
	case <-time.After(d):
	}
	killGroup(c.cmd)
	<-c.exited
	return false
}

// send writes one request, and the raw bytes that follow it (a chunk at a
// time). Requests are encoded by the caller's goroutine and written whole,
// one at a time.
func (c *Client) send(req *Request, payload ...[]byte) error {
	l, err := encode(req)
	if err != nil {
		return err
	}
	defer l.free()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.inClosed {
		return errors.New("the exchange is over")
	}
	if _, err := c.w.Write(l.Bytes()); err != nil {
		return err
	}
	for _, p := range payload {
		for len(p) > 0 {
			n := min(len(p), chunk)
			if _, err := c.w.Write(p[:n]); err != nil {
				return err
			}
			p = p[n:]
		}
	}
	return c.w.Flush()
}

func (c *Client) closeInput() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.inClosed {
		c.inClosed = true
		_ = c.in.Close()
	}
}

// read dispatches fbc-profile's responses until its output ends, then
// waits for the process.
func (c *Client) read() {
	finished := false
	for {
		line, err := readMessage(c.out)
		var tl *MessageTooLongError
		if errors.As(err, &tl) {
			c.fail(c.protocolError(tl))
			break
		}
		if len(bytes.TrimSpace(line)) > 0 {
			resp, perr := parseResponse(line)
			if perr != nil {
				c.fail(c.protocolError(perr))
				break
			}
			switch {
			case resp.Findings != nil:
				c.pmu.Lock()
				done, ok := c.pending[resp.Findings.ID]
				delete(c.pending, resp.Findings.ID)
				c.pmu.Unlock()
				if !ok {
					c.fail(c.protocolError(fmt.Errorf("it answered bundle %d, which was not asked for", resp.Findings.ID)))
					break
				}
				done(resp.Findings.Findings)
			case resp.Warning != "":
				c.warn.Printf("%s", plainText(resp.Warning))
			case resp.Done != nil:
				finished = true
				c.done <- resp.Done.Findings
			case resp.Error != "":
				c.fail(fault.Errorf(fault.Run, "%s: %s", c.path, plainText(resp.Error)))
			default:
				c.fail(c.protocolError(errors.New("it sent a second hello")))
			}
		}
		if err != nil {
			break
		}
	}
	// The output has ended: the process is exiting, or must be made to.
	if !finished {
		c.awaitExit(2 * time.Second)
		c.fail(c.stopped(nil))
		return
	}
	if !c.awaitExit(5*time.Second) || c.exit != nil {
		c.fail(c.stopped(nil))
	}
}

// writeFailed handles a request that could not be written: fbc-profile
// has most likely exited, and its exit says more than the broken pipe.
func (c *Client) writeFailed(err error) {
	select {
	case <-c.failed:
	case <-time.After(5 * time.Second):
		c.fail(fault.Errorf(fault.Run, "%s: sending a request: %v", c.path, err))
	}
}

func (c *Client) fail(err error) {
	c.failOnce.Do(func() {
		c.err = err
		close(c.failed)
		killGroup(c.cmd)
		c.pmu.Lock()
		c.broken = true
		pending := c.pending
		c.pending = nil
		c.pmu.Unlock()
		for _, done := range pending {
			done(nil)
		}
	})
}

// stopped is the error of an fbc-profile that ended before the exchange
// did: its exit status and the first line it wrote to standard error,
// without the control sequences a terminal would act on.
func (c *Client) stopped(cause error) error {
	msg := c.path + " stopped before it finished"
	select {
	case <-c.exited:
		if c.exit != nil {
			msg += " (" + c.exit.Error() + ")"
		}
		// Its standard error ends with its process group; what it wrote
		// before is read by then.
		select {
		case <-c.stderrDone:
		case <-time.After(time.Second):
		}
	default:
	}
	if line := plainText(c.stderr.firstLine()); line != "" {
		msg += ": " + line
	} else if cause != nil {
		msg += ": " + cause.Error()
	}
	return fault.Errorf(fault.Run, "%s", msg)
}

// protocolError is a message from fbc-profile that is not the protocol's.
func (c *Client) protocolError(err error) error {
	return fault.Errorf(fault.Run, "%s does not speak fbc's profile protocol: %v", c.path, err)
}

// parseResponse reads one line of fbc-profile's output: exactly one of a
// Response's fields, nothing else.
func parseResponse(line []byte) (*Response, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var r Response
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%q is not a message: %v", shorten(line), err)
	}
	set := 0
	for _, ok := range []bool{r.Hello != nil, r.Findings != nil, r.Warning != "", r.Done != nil, r.Error != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("%q is not one message", shorten(line))
	}
	return &r, nil
}

func shorten(line []byte) string {
	s := strings.TrimSpace(string(line))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// MaxMessage bounds one message of fbc-profile's, its line: the findings
// of a whole catalog's catalog-wide checks are a few megabytes; a line
// that runs on past this is a broken exchange, not a report, and reading
// it whole would take all of fbc's memory.
const MaxMessage = 64 << 20

// MessageTooLongError is a message of fbc-profile's that did not end
// within MaxMessage bytes.
type MessageTooLongError struct{ Limit int }

func (e *MessageTooLongError) Error() string {
	return fmt.Sprintf("it sent a message that does not end within %d MiB, the most one message may hold", e.Limit>>20)
}

// readMessage reads one line of fbc-profile's output, no longer than
// MaxMessage.
func readMessage(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > MaxMessage {
			return nil, &MessageTooLongError{Limit: MaxMessage}
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// plainText is s without what a terminal would act on: escape sequences
// (colours, cursor moves, a window title), other control characters (a
// tab reads as a space) and invalid UTF-8. fbc prints what fbc-profile
// says about itself, and that is text, not instructions to the terminal.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b: // ESC: skip the sequence it starts
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // CSI in one character
			i += size + csiLen(s[i+size:])
			continue
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeLen is the length of the escape sequence at the start of s (which
// begins with ESC): a control sequence (ESC [ ... final byte), an
// operating system command or string (ESC ] ... up to BEL or ESC \), or
// ESC and one character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	return 2
}

// csiLen is the length of a control sequence's parameters and final byte.
func csiLen(s string) int {
	for j := 0; j < len(s); j++ {
		if s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1
		}
	}
	return len(s)
}

// wireContents is b as the protocol carries it, and the payload that
// follows its line: a catalog bundle's olm.bundle.object properties are its
// Objects already, and the values of its other properties travel after
// the objects and files, as they are (the line has each property's type).
func wireContents(b *validate.BundleContents) (*validate.BundleContents, [][]byte) {
	payload := make([][]byte, 0, len(b.Objects)+len(b.Files)+8)
	for _, o := range b.Objects {
		payload = append(payload, o.JSON)
	}
	for _, f := range b.Files {
		payload = append(payload, f.Data)
	}
	if b.Bundle == nil {
		return b, payload
	}
	slim := *b.Bundle
	slim.Properties = make([]declcfg.Property, 0, len(b.Bundle.Properties))
	for _, p := range b.Bundle.Properties {
		if p.Type != declcfg.PropertyBundleObject {
			payload = append(payload, p.Value)
			slim.Properties = append(slim.Properties, declcfg.Property{Type: p.Type})
		}
	}
	out := *b
	out.Bundle = &slim
	return &out, payload
}

// headBuffer keeps the first 4 KiB written to it.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := 4<<10 - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// firstLine is the first line that is not blank.
func (h *headBuffer) firstLine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range strings.Split(string(h.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
