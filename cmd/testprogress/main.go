// Command testprogress runs `go test -json` with the arguments it is given and
// prints each package's result as soon as that package finishes, instead of
// in import-path order as plain `go test ./...` does (where one slow package
// early in the list holds back every line after it). While packages run it
// says, once a minute, which are still running and for how long. A failed
// test's output is printed whole; at the end come the slowest packages and
// the total time. `make test` runs it; its exit status is go test's.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// event is one line of `go test -json` (test2json's TestEvent).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

func run(args []string, stdout, stderr io.Writer) int {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	c := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	c.Stderr = stderr
	c.Stdin = os.Stdin
	out, err := c.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testprogress: %v\n", err)
		return 2
	}
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "testprogress: %v\n", err)
		return 2
	}
	// go test passes an interrupt on to its test binaries; let it.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	p := newPrinter(stdout, time.Now())
	stop := make(chan struct{})
	go p.tick(stop, time.Minute)
	readErr := p.read(out)
	close(stop)
	waitErr := c.Wait()
	failed := p.summary()
	switch {
	case readErr != nil:
		fmt.Fprintf(stderr, "testprogress: reading go test's output: %v\n", readErr)
		return 2
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "testprogress: %v\n", waitErr)
		return 2
	case failed:
		return 1
	}
	return 0
}

// pkgState is what has been seen of one package.
type pkgState struct {
	start   time.Time
	running bool
	// output holds the package's own lines (not a test's) and the build's.
	output []string
	// tests holds each test's output until it passes (then dropped).
	tests   map[string][]string
	failed  []string
	skipped int
	elapsed float64
}

type printer struct {
	mu       sync.Mutex
	w        io.Writer
	begun    time.Time
	pkgs     map[string]*pkgState
	done     []finished
	anyFail  bool
	lastLine time.Time
}

type finished struct {
	pkg     string
	elapsed float64
}

func newPrinter(w io.Writer, now time.Time) *printer {
	return &printer{w: w, begun: now, pkgs: map[string]*pkgState{}, lastLine: now}
}

func (p *printer) state(pkg string) *pkgState {
	s := p.pkgs[pkg]
	if s == nil {
		s = &pkgState{tests: map[string][]string{}}
		p.pkgs[pkg] = s
	}
	return s
}

// read takes go test's events until its output ends. A line that is not an
// event (go test's own messages) is printed as it is.
func (p *printer) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			p.mu.Lock()
			fmt.Fprintf(p.w, "%s\n", line)
			p.mu.Unlock()
			continue
		}
		p.handle(ev)
	}
	return sc.Err()
}

func (p *printer) handle(ev event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Action == "build-output" || ev.Action == "build-fail" {
		s := p.state(ev.ImportPath)
		if ev.Action == "build-output" {
			s.output = append(s.output, ev.Output)
		}
		return
	}
	if ev.Package == "" {
		return
	}
	s := p.state(ev.Package)
	switch {
	case ev.Action == "start":
		s.start, s.running = ev.Time, true
	case ev.Test != "" && ev.Action == "output":
		s.tests[ev.Test] = append(s.tests[ev.Test], ev.Output)
	case ev.Test != "" && ev.Action == "pass":
		delete(s.tests, ev.Test)
	case ev.Test != "" && ev.Action == "skip":
		s.skipped++
		delete(s.tests, ev.Test)
	case ev.Test != "" && ev.Action == "fail":
		s.failed = append(s.failed, ev.Test)
	case ev.Test == "" && ev.Action == "output":
		s.output = append(s.output, ev.Output)
	case ev.Test == "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
		s.running, s.elapsed = false, ev.Elapsed
		p.finish(ev.Package, s, ev.Action)
	}
}

// finish prints a package's result line, and for a failure what its failed
// tests and the package itself printed.
func (p *printer) finish(pkg string, s *pkgState, action string) {
	note := ""
	if s.skipped > 0 {
		note = fmt.Sprintf(" (%d skipped)", s.skipped)
	}
	switch action {
	case "pass":
		fmt.Fprintf(p.w, "ok  \t%s\t%.1fs%s\n", pkg, s.elapsed, note)
	case "skip":
		fmt.Fprintf(p.w, "?   \t%s\t[no test files]\n", pkg)
	case "fail":
		p.anyFail = true
		fmt.Fprintf(p.w, "--- FAIL %s (%.1fs)\n", pkg, s.elapsed)
		for _, t := range s.failed {
			// A parent test's output is printed with its failed subtests'.
			if slices.ContainsFunc(s.failed, func(o string) bool { return strings.HasPrefix(o, t+"/") }) {
				continue
			}
			for _, l := range s.tests[t] {
				fmt.Fprint(p.w, l)
			}
		}
		for _, l := range s.output {
			fmt.Fprint(p.w, l)
		}
		// The compiler's messages come under the test binary's name
		// ("pkg [pkg.test]").
		for name, b := range p.pkgs {
			if strings.HasPrefix(name, pkg+" [") {
				for _, l := range b.output {
					fmt.Fprint(p.w, l)
				}
				delete(p.pkgs, name)
			}
		}
		fmt.Fprintf(p.w, "FAIL\t%s\t%.1fs%s\n", pkg, s.elapsed, note)
	}
	if action != "skip" {
		p.done = append(p.done, finished{pkg, s.elapsed})
	}
	p.lastLine = time.Now()
	s.tests, s.output = nil, nil
}

// tick says which packages are still running when nothing has been printed
// for a while, so that a long package never leaves the log silent.
func (p *printer) tick(stop <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every / 4)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if now.Sub(p.lastLine) >= every {
				p.stillRunning(now)
				p.lastLine = now
			}
			p.mu.Unlock()
		}
	}
}

func (p *printer) stillRunning(now time.Time) {
	var names []string
	for name, s := range p.pkgs {
		if s.running {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return p.pkgs[names[i]].start.Before(p.pkgs[names[j]].start) })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s (%s)", n, now.Sub(p.pkgs[n].start).Round(time.Second)))
	}
	if len(parts) == 0 {
		fmt.Fprintf(p.w, "... %s: building\n", now.Sub(p.begun).Round(time.Second))
		return
	}
	fmt.Fprintf(p.w, "... %s: still running %s\n", now.Sub(p.begun).Round(time.Second), strings.Join(parts, ", "))
}

// summary prints the slowest packages and the total time, and reports
// whether anything failed.
func (p *printer) summary() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A package that never finished (a build failure, a killed binary)
	// prints what it has.
	var unfinished []string
	for name, s := range p.pkgs {
		if s.running || len(s.output) > 0 && !slices.ContainsFunc(p.done, func(f finished) bool { return f.pkg == name }) {
			unfinished = append(unfinished, name)
		}
	}
	sort.Strings(unfinished)
	for _, name := range unfinished {
		s := p.pkgs[name]
		for _, l := range s.output {
			fmt.Fprint(p.w, l)
		}
		if s.running {
			fmt.Fprintf(p.w, "FAIL\t%s\t(did not finish)\n", name)
		}
		p.anyFail = true
	}
	done := slices.Clone(p.done)
	sort.SliceStable(done, func(i, j int) bool { return done[i].elapsed > done[j].elapsed })
	var slow []string
	for _, f := range done[:min(len(done), 5)] {
		slow = append(slow, fmt.Sprintf("%s %.0fs", strings.TrimPrefix(f.pkg, "github.com/fbc-project/fbc/"), f.elapsed))
	}
	verdict := "all passed"
	if p.anyFail {
		verdict = "FAILED"
	}
	fmt.Fprintf(p.w, "%d packages tested in %s, %s; slowest: %s\n", len(done), time.Since(p.begun).Round(time.Second), verdict, strings.Join(slow, ", "))
	return p.anyFail
}
