package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestPrinter feeds go test's events for two packages, the slow one started
// first, and checks that the quick one's result comes out as soon as it
// finishes, that a failed test's output and the compiler's are printed,
// and that a passing test's is not.
func TestPrinter(t *testing.T) {
	events := `{"Action":"start","Package":"m/slow"}
{"Action":"start","Package":"m/quick"}
{"Action":"run","Package":"m/quick","Test":"TestA"}
{"Action":"output","Package":"m/quick","Test":"TestA","Output":"quiet pass\n"}
{"Action":"pass","Package":"m/quick","Test":"TestA","Elapsed":0.1}
{"Action":"skip","Package":"m/quick","Test":"TestB","Elapsed":0}
{"Action":"pass","Package":"m/quick","Elapsed":0.5}
{"Action":"output","Package":"m/slow","Test":"TestC/sub","Output":"    c_test.go:9: boom\n"}
{"Action":"fail","Package":"m/slow","Test":"TestC/sub","Elapsed":1}
{"Action":"output","Package":"m/slow","Test":"TestC","Output":"--- FAIL: TestC\n"}
{"Action":"fail","Package":"m/slow","Test":"TestC","Elapsed":1}
{"Action":"fail","Package":"m/slow","Elapsed":30}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-output","Output":"broken_test.go:3:1: syntax error\n"}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-fail"}
{"Action":"start","Package":"m/broken"}
{"Action":"output","Package":"m/broken","Output":"FAIL\tm/broken [build failed]\n"}
{"Action":"fail","Package":"m/broken","Elapsed":0}
`
	var out bytes.Buffer
	p := newPrinter(&out, time.Now())
	if err := p.read(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	if !p.summary() {
		t.Error("summary reports no failure")
	}
	got := out.String()
	for _, want := range []string{"ok  \tm/quick\t0.5s (1 skipped)\n", "boom", "--- FAIL m/slow", "syntax error", "FAIL\tm/broken", "FAILED"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet pass") {
		t.Errorf("a passing test's output is printed:\n%s", got)
	}
	if strings.Index(got, "m/quick") > strings.Index(got, "m/slow") {
		t.Errorf("the quick package is not printed first:\n%s", got)
	}
}

// TestStillRunning: a package running for long is named, with its time.
func TestStillRunning(t *testing.T) {
	var out bytes.Buffer
	start := time.Now().Add(-3 * time.Minute)
	p := newPrinter(&out, start)
	p.handle(event{Action: "start", Package: "m/slow", Time: start})
	p.stillRunning(time.Now())
	if !strings.Contains(out.String(), "still running m/slow (3m0s)") {
		t.Errorf("got %q", out.String())
	}
}
