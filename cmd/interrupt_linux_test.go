package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests interrupt a real fbc process (this test binary, which
// testscript.Main put on PATH as fbc) with a real signal, at a moment the
// test observes from outside (a temporary tree that appeared, output that
// started, a connection to a registry, standard input being read), and
// check what is left: the exit status, "fbc: interrupted", the output as
// it was, and no temporary file or directory.

// fbcProc is a running fbc.
type fbcProc struct {
	cmd    *exec.Cmd
	stderr syncBuffer
	done   chan struct{}
	err    error
}

// syncBuffer is a buffer the process's output is copied into while the
// test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startFBC starts fbc in dir with TMPDIR=dir/tmp. stdin and stdout may be
// nil (stdout then goes to a buffer nobody looks at).
func startFBC(t *testing.T, dir string, stdin io.Reader, stdout io.Writer, args ...string) *fbcProc {
	t.Helper()
	bin, err := exec.LookPath("fbc")
	if err != nil {
		t.Skipf("no fbc on PATH (testscript.Main puts this binary there): %v", err)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	p := &fbcProc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(dir, "tmp"), "NO_COLOR=1")
	p.cmd.Stdin = stdin
	if stdout == nil {
		stdout = io.Discard
	}
	p.cmd.Stdout = stdout
	p.cmd.Stderr = &p.stderr
	require.NoError(t, p.cmd.Start())
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *fbcProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signalAndWait sends sig and waits for the end: the exit code (-1 for a
// death by signal) and how long the end took.
func (p *fbcProc) signalAndWait(t *testing.T, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	require.NoError(t, p.cmd.Process.Signal(sig))
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("fbc %s still runs 20s after %v", strings.Join(p.cmd.Args[1:], " "), sig)
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), took
	}
	require.NoError(t, p.err)
	return 0, took
}

// assertInterrupted checks an interrupted fbc's end: exit 2, the one line
// that says so, and an end soon after the signal. The bound is loose (the
// machine may be loaded); the grace fbc gives a stuck command is 1s.
func assertInterrupted(t *testing.T, p *fbcProc, code int, took time.Duration) {
	t.Helper()
	assert.Equal(t, ExitTrouble, code, "exit status; stderr:\n%s", p.stderr.String())
	assert.Contains(t, p.stderr.String(), "fbc: interrupted\n")
	assert.Less(t, took, 5*time.Second, "time from the signal to the end")
}

// assertNoTemporaries checks that nothing fbc writes for a while is left
// in dir (TMPDIR is dir/tmp): temporary trees and files (.NAME.tmp-*), the
// layer of a build, spools.
func assertNoTemporaries(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.Contains(name, ".tmp-") || strings.HasPrefix(name, "fbc-") || strings.Contains(name, ".old-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	require.NoError(t, err)
}

// waitFor polls cond until it holds; false when the process ended first or
// the time ran out.
func waitFor(p *fbcProc, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		if p.exited() {
			return cond()
		}
		time.Sleep(200 * time.Microsecond)
	}
	return false
}

// writeBigCatalog writes a catalog of n packages, one folder each, whose
// bundles carry a property of size bytes: large enough that writing it
// takes a moment the tests can interrupt.
func writeBigCatalog(t *testing.T, dir string, n, size int) int64 {
	t.Helper()
	pad := strings.Repeat("x", size)
	var total int64
	for i := range n {
		pkg := fmt.Sprintf("pkg-%04d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		blob := fmt.Sprintf(`{"schema":"olm.package","name":%[1]q,"defaultChannel":"stable"}
{"schema":"olm.channel","package":%[1]q,"name":"stable","entries":[{"name":"%[1]s.v1.0.0"}]}
{"schema":"olm.bundle","package":%[1]q,"name":"%[1]s.v1.0.0","image":"example.com/%[1]s:v1.0.0","properties":[{"type":"olm.package","value":{"packageName":%[1]q,"version":"1.0.0"}},{"type":"example.padding","value":%[2]q}]}
`, pkg, pad)
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "catalog.json"), []byte(blob), 0o644))
		total += int64(len(blob))
	}
	return total
}

// stopped runs fn with the process stopped (SIGSTOP), so that a signal sent
// in fn arrives at the moment the test observed, then lets it go on.
func (p *fbcProc) stopped(t *testing.T, fn func()) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGSTOP))
	defer p.cmd.Process.Signal(syscall.SIGCONT)
	fn()
}

// An interrupt while compose writes OUTDIR (its temporary tree is there)
// leaves OUTDIR as it was, and no temporary tree.
func TestInterruptComposeWhileWriting(t *testing.T) {
	dir := t.TempDir()
	writeBigCatalog(t, filepath.Join(dir, "src"), 600, 16<<10)
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(filepath.Join(out, "old"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "old", "catalog.json"), []byte(`{"schema":"olm.package","name":"old"}`), 0o644))

	p := startFBC(t, dir, nil, nil, "compose", "out", "src", "--force", "--no-validate")
	tree := waitForTree(t, p, dir, "out")
	var code int
	var took time.Duration
	p.stopped(t, func() {
		// The tree is being filled: it exists now, with the process frozen.
		_, err := os.Stat(filepath.Join(dir, tree))
		require.NoError(t, err, "the temporary tree vanished before the signal")
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	})
	code, took = p.signalAndWaitSent(t)
	assertInterrupted(t, p, code, took)
	assertOldTree(t, out)
	assertNoTemporaries(t, dir)
}

// waitForTree waits until the temporary tree that will become dir/name
// appears (the command is writing it) and returns its name.
func waitForTree(t *testing.T, p *fbcProc, dir, name string) string {
	t.Helper()
	var tree string
	seen := waitFor(p, 3*time.Minute, func() bool {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "."+name+".tmp-") {
				tree = e.Name()
				return true
			}
		}
		return false
	})
	require.True(t, seen && !p.exited(), "fbc ended (or never wrote) before the test saw its temporary tree; stderr:\n%s", p.stderr.String())
	return tree
}

// assertOldTree checks that an output directory holds its old content
// only: the folder old.
func assertOldTree(t *testing.T, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, ents, 1, "the output directory holds its old content only")
	assert.Equal(t, "old", ents[0].Name())
}

// An interrupt while fbc mirror plan writes its plan (the temporary tree is
// there) leaves DIR as it was, and no temporary tree.
func TestInterruptMirrorPlanWhileWriting(t *testing.T) {
	dir := t.TempDir()
	writeBigCatalog(t, filepath.Join(dir, "src"), 600, 16<<10)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "isc.yaml"), []byte("apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\nmirror:\n  operators:\n  - catalog: src\n    full: true\n"), 0o644))
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(filepath.Join(out, "old"), 0o755))

	p := startFBC(t, dir, nil, nil, "mirror", "plan", "isc.yaml", "-o", "out", "--force", "--to", "mirror.example.com/olm")
	waitForTree(t, p, dir, "out")
	p.stopped(t, func() { require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT)) })
	code, took := p.signalAndWaitSent(t)
	assertInterrupted(t, p, code, took)
	assertOldTree(t, out)
	assertNoTemporaries(t, dir)
}

// signalAndWaitSent waits for the end of a process already signalled.
func (p *fbcProc) signalAndWaitSent(t *testing.T) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("fbc %s still runs 20s after the signal", strings.Join(p.cmd.Args[1:], " "))
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), time.Since(start)
	}
	return 0, time.Since(start)
}

// fbc render streaming into a file (fbc render BIG > f.json) stops writing
// at the interrupt: the file grows by no more than the pieces in flight.
func TestInterruptRenderToAFile(t *testing.T) {
	dir := t.TempDir()
	// 600 packages (39 MB of output): what a loaded machine writes between
	// the signal and the writer's next look at the context stays the same
	// few MB whatever the size, and at 300 one run wrote 4.98 MB of 19.8
	// after the signal, over the quarter this allows.
	size := writeBigCatalog(t, filepath.Join(dir, "src"), 600, 64<<10)
	f, err := os.Create(filepath.Join(dir, "f.json"))
	require.NoError(t, err)
	defer f.Close()
	p := startFBC(t, dir, nil, f, "render", "src")
	var at int64
	seen := waitFor(p, 3*time.Minute, func() bool {
		st, err := f.Stat()
		return err == nil && st.Size() > 0
	})
	require.True(t, seen && !p.exited(), "render ended before the test saw its output; stderr:\n%s", p.stderr.String())
	p.stopped(t, func() {
		st, err := f.Stat()
		require.NoError(t, err)
		at = st.Size()
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	})
	code, took := p.signalAndWaitSent(t)
	assertInterrupted(t, p, code, took)
	st, err := f.Stat()
	require.NoError(t, err)
	// What is written between the signal and the moment the writer sees
	// the cancelled context depends on scheduling (a loaded machine writes
	// a few MB meanwhile), but the output stops far before its end.
	t.Logf("%d of %d bytes written at the signal, %d at the end", at, size, st.Size())
	assert.Less(t, st.Size()-at, size/4, "bytes written after the signal")
	assert.Less(t, st.Size(), size/2, "the output stopped well before its end")
	assertNoTemporaries(t, dir)
}

// fbc render into a pipe: stopped by SIGTERM while it streams; and, when
// nobody reads the pipe (the write cannot return), ended after the grace.
func TestInterruptRenderToAPipe(t *testing.T) {
	dir := t.TempDir()
	size := writeBigCatalog(t, filepath.Join(dir, "src"), 300, 64<<10)

	r, w, err := os.Pipe()
	require.NoError(t, err)
	p := startFBC(t, dir, nil, w, "render", "src")
	w.Close()
	first := make([]byte, 64<<10)
	_, err = io.ReadFull(r, first)
	require.NoError(t, err, "stderr:\n%s", p.stderr.String())
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	rest, _ := io.ReadAll(r) // drained until fbc closes its end
	r.Close()
	code, took := p.signalAndWaitSent(t)
	assertInterrupted(t, p, code, took)
	assert.Less(t, int64(len(first)+len(rest)), size/2, "the output stopped well before its end")

	// Nobody reads: fbc is stuck in a write no context reaches.
	r, w, err = os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	p = startFBC(t, dir, nil, w, "render", "src")
	w.Close()
	_, err = io.ReadFull(r, first[:1])
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the pipe fills up
	code, took = p.signalAndWait(t, syscall.SIGINT)
	assertInterrupted(t, p, code, took)
	assertNoTemporaries(t, dir)
}

// silentRegistry accepts connections and never answers: a push to it
// waits until interrupted. It reports each connection on the channel.
func silentRegistry(t *testing.T) (string, <-chan struct{}) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	conns := make(chan struct{}, 16)
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
			select {
			case conns <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String(), conns
}

// fbc build, interrupted while it pushes (its layer is built and the
// registry does not answer): exit 2 at once, nothing left in TMPDIR. Killed
// (SIGKILL, no cleanup possible), it leaves no layer file either: the file
// is unlinked when it is made.
func TestInterruptBuild(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			writeBigCatalog(t, filepath.Join(dir, "cat"), 20, 256<<10)
			addr, conns := silentRegistry(t)
			p := startFBC(t, dir, nil, nil, "build", "cat", "--tag", addr+"/cat:v1", "--push", "--use-http", "--base-image", "scratch", "--no-validate")
			select {
			case <-conns:
			case <-p.done:
				t.Fatalf("build ended before it pushed: %s", p.stderr.String())
			case <-time.After(3 * time.Minute):
				t.Fatal("build never reached the registry")
			}
			code, took := p.signalAndWait(t, sig)
			if sig == syscall.SIGKILL {
				assert.Equal(t, -1, code)
			} else {
				assertInterrupted(t, p, code, took)
			}
			assertNoTemporaries(t, dir)
		})
	}
}

// pipeBuffered is the number of bytes waiting in a pipe (FIONREAD).
func pipeBuffered(f *os.File) int {
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		return -1
	}
	return int(n)
}

// Every command that reads standard input stops when interrupted while it
// waits for more: nothing is written, nothing is left.
func TestInterruptWhileReadingStandardInput(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "-"},
		{"render", "-"},
		{"compose", "out", "-"},
		{"list", "packages", "-"},
		{"graph", "-"},
		{"template", "-"},
		{"resolve", "-f", "-", "--catalog", "ops/local=catalog.yaml"},
		{"serve", "-", "-p", "127.0.0.1:0"},
		{"diff", "catalog.yaml", "-"},
		{"upgrade-path", "-", "--package", "x"},
		{"init", "pkg", "--default-channel", "stable", "--description", "-"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte("schema: olm.package\nname: x\n"), 0o644))
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer w.Close()
			p := startFBC(t, dir, r, nil, args...)
			r.Close()
			// A comment, which every reader takes and then waits for more.
			_, err = w.WriteString("# more to come\n")
			require.NoError(t, err)
			require.True(t, waitFor(p, 2*time.Minute, func() bool { return pipeBuffered(w) == 0 }),
				"fbc %s never read standard input; stderr:\n%s", strings.Join(args, " "), p.stderr.String())
			require.False(t, p.exited(), "fbc %s ended before the interrupt: %s", strings.Join(args, " "), p.stderr.String())
			code, took := p.signalAndWait(t, syscall.SIGINT)
			assertInterrupted(t, p, code, took)
			_, err = os.Stat(filepath.Join(dir, "out"))
			assert.True(t, os.IsNotExist(err), "compose wrote OUTDIR")
			assertNoTemporaries(t, dir)
		})
	}
}

// An interrupt while fbc graph -o html simulates a big catalog's upgrades
// for its page stops it promptly, and writes no page.
func TestInterruptGraphPage(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	// 80 packages of one 300-entry channel: seconds of simulation.
	for i := range 80 {
		pkg := fmt.Sprintf("pkg-%02d", i)
		var b strings.Builder
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", pkg)
		var entries []string
		for j := range 300 {
			e := fmt.Sprintf(`{"name":"%s.v1.%d.0"`, pkg, j)
			if j > 0 {
				e += fmt.Sprintf(`,"replaces":"%s.v1.%d.0"`, pkg, j-1)
			}
			entries = append(entries, e+"}")
			fmt.Fprintf(&b, `{"schema":"olm.bundle","package":%[1]q,"name":"%[1]s.v1.%[2]d.0","image":"example.com/%[1]s:v1.%[2]d.0","properties":[{"type":"olm.package","value":{"packageName":%[1]q,"version":"1.%[2]d.0"}}]}`+"\n", pkg, j)
		}
		fmt.Fprintf(&b, `{"schema":"olm.channel","package":%q,"name":"stable","entries":[%s]}`+"\n", pkg, strings.Join(entries, ","))
		require.NoError(t, os.MkdirAll(filepath.Join(src, pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(src, pkg, "catalog.json"), []byte(b.String()), 0o644))
	}
	p := startFBC(t, dir, nil, nil, "graph", "src", "-o", "html", "--output-file", "page.html")
	time.Sleep(time.Second)
	if p.exited() {
		t.Fatalf("fbc graph ended within a second, before the signal: %v\n%s", p.err, p.stderr.String())
	}
	code, took := p.signalAndWait(t, syscall.SIGINT)
	assertInterrupted(t, p, code, took)
	assert.NoFileExists(t, filepath.Join(dir, "page.html"))
	assertNoTemporaries(t, dir)
}
