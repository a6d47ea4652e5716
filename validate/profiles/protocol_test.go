package profiles

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/validate"
)

// echoChecker reports, for each bundle, one finding per object and file
// that repeats its content (so a test sees that the raw payload arrived
// intact), one per property,, and for the catalog one finding per upgrade
// edge of the model it was given.
type echoChecker struct {
	set         Set
	sourcesOnly bool
	warn        fault.Warn
	bundles     atomic.Int64
}

func (c *echoChecker) CheckBundle(b *validate.BundleContents) []declcfg.Finding {
	c.bundles.Add(1)
	if b.Bundle != nil && b.Bundle.Name == "warn" {
		c.warn.Printf("a note about %s", b.Bundle.Name)
	}
	var out []declcfg.Finding
	for _, o := range b.Objects {
		out = append(out, declcfg.Finding{Rule: "object", Severity: declcfg.SeverityError, Pos: o.Pos, Message: o.Name + " " + string(o.JSON)})
	}
	for _, f := range b.Files {
		out = append(out, declcfg.Finding{Rule: "file", Severity: declcfg.SeverityWarning, Pos: declcfg.Pos{File: f.Name}, Message: fmt.Sprintf("%d %q", len(f.Data), string(f.Data))})
	}
	if b.Bundle != nil {
		for _, p := range b.Bundle.Properties {
			out = append(out, declcfg.Finding{Rule: "property", Severity: declcfg.SeverityWarning, Message: p.Type + " " + string(p.Value)})
		}
	}
	return out
}

func (c *echoChecker) CheckCatalog(cat *model.Catalog) []declcfg.Finding {
	out := []declcfg.Finding{{Rule: "profiles", Severity: declcfg.SeverityWarning, Message: fmt.Sprintf("%s sourcesOnly=%v bundles=%d", c.set, c.sourcesOnly, c.bundles.Load())}}
	for _, p := range cat.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Edges() {
				if e.FromBundle == nil || e.To.Bundle == nil {
					continue
				}
				out = append(out, declcfg.Finding{Rule: "edge", Severity: declcfg.SeverityWarning, Pos: e.To.Bundle.Pos, Package: p.Name, Channel: ch.Name,
					Message: fmt.Sprintf("%s -> %s (%s) at %s", e.FromBundle.Name, e.To.Bundle.Name, e.Kind, ch.Pos)})
			}
		}
	}
	return out
}

func newEcho(set Set, sourcesOnly bool, warn fault.Warn) Checker {
	return &echoChecker{set: set, sourcesOnly: sourcesOnly, warn: warn}
}

// TestMain makes this test binary an fbc-profile over echoChecker when
// $FBC_PROFILES_TEST_SERVE is set, for the tests of Client.
func TestMain(m *testing.M) {
	switch os.Getenv("FBC_PROFILES_TEST_SERVE") {
	case "":
		os.Exit(m.Run())
	case "echo":
		if err := Serve(context.Background(), os.Stdin, os.Stdout, newEcho); err != nil {
			fmt.Fprintln(os.Stderr, "fbc-profile:", err)
			os.Exit(2)
		}
		os.Exit(0)
	case "dies":
		// Answers two bundles, then exits in the middle of the third.
		if err := Serve(context.Background(), os.Stdin, os.Stdout, func(Set, bool, fault.Warn) Checker { return &dyingChecker{} }); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	case "silent":
		// Reads and never answers: not fbc-profile.
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(3)
}

// plugin is this test binary run as an fbc-profile of the given kind.
func plugin(t *testing.T, kind string) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	t.Setenv("FBC_PROFILES_TEST_SERVE", kind)
	return exe
}

// testCatalog is a small catalog with positions: a package, a channel
// with a replaces and a skipRange edge, and three bundles.
func testCatalog() *model.Catalog {
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "p", DefaultChannel: "stable", Pos: declcfg.Pos{File: "c.yaml", Line: 1, Col: 1}, DefaultChannelPos: declcfg.Pos{File: "c.yaml", Line: 3, Col: 17}}},
		Channels: []declcfg.Channel{{Schema: declcfg.SchemaChannel, Package: "p", Name: "stable", Pos: declcfg.Pos{File: "c.yaml", Line: 5, Col: 1}, Entries: []declcfg.ChannelEntry{
			{Name: "p.v1.0.0", Pos: declcfg.Pos{File: "c.yaml", Line: 9, Col: 3}},
			{Name: "p.v1.1.0", Replaces: "p.v1.0.0", Pos: declcfg.Pos{File: "c.yaml", Line: 10, Col: 3}},
			{Name: "p.v1.2.0", SkipRange: "<1.2.0", Pos: declcfg.Pos{File: "c.yaml", Line: 12, Col: 3}, SkipRangePos: declcfg.Pos{File: "c.yaml", Line: 13, Col: 14}},
		}}},
	}
	for i, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: "p", Name: "p.v" + v, Image: "quay.io/p:v" + v,
			Pos:        declcfg.Pos{File: "c.yaml", Line: 20 + 10*i, Col: 1},
			Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageProperty{PackageName: "p", Version: v})}})
	}
	return model.New(cfg)
}

// TestCatalogRoundTrip: the catalog fbc sends builds, on fbc-profile's
// side, a model with the same channels, edges and positions.
func TestCatalogRoundTrip(t *testing.T) {
	cat := testCatalog()
	data, err := json.Marshal(CatalogOf(cat))
	require.NoError(t, err)
	var back Catalog
	require.NoError(t, json.Unmarshal(data, &back))
	got := back.Model()
	want := (&echoChecker{}).CheckCatalog(cat)
	assert.Equal(t, want, (&echoChecker{}).CheckCatalog(got))
	assert.Len(t, want, 4) // the set line and three edges: replaces, and two skipRange
	require.Len(t, got.Packages, 1)
	assert.Equal(t, cat.Packages[0].Pos, got.Packages[0].Pos)
	assert.Equal(t, cat.Packages[0].Channels[0].Entries[2].SkipRangePos, got.Packages[0].Channels[0].Entries[2].SkipRangePos)
	assert.Equal(t, "1.2.0", got.Packages[0].Bundles[2].Version)
}

// TestClient runs a whole exchange with a real process: bundles from
// several goroutines, raw payloads, warnings, the catalog.
func TestClient(t *testing.T) {
	var warnings []string
	set, err := Parse([]string{"operatorhub,k8s-version=1.33"})
	require.NoError(t, err)
	c, err := Start(context.Background(), StartOptions{Path: plugin(t, "echo"), Set: set, Concurrency: 3,
		Warn: func(msg string) { warnings = append(warnings, msg) }})
	require.NoError(t, err)
	defer c.Close()

	// Payloads with every byte value, newlines included: they travel raw.
	raw := make([]byte, 300)
	for i := range raw {
		raw[i] = byte(i)
	}
	const n = 40
	results := make([][]declcfg.Finding, n)
	done := make(chan int)
	for i := range n {
		go func() {
			b := &validate.BundleContents{
				Bundle: &declcfg.Bundle{Name: fmt.Sprintf("b%d", i), Properties: []declcfg.Property{
					{Type: declcfg.PropertyBundleObject, Value: json.RawMessage(`{"data":"e30="}`)},
					{Type: "olm.maxOpenShiftVersion", Value: json.RawMessage(`"<4.20"`)},
				}},
				Objects: []validate.BundleObject{{Name: "csv", JSON: []byte(fmt.Sprintf(`{"kind":"ClusterServiceVersion","n":%d}`, i)), Pos: declcfg.Pos{File: "c.yaml", Line: i + 1}}},
				Files:   []validate.BundleFile{{Name: "metadata/raw", Data: raw[:i*7%len(raw)]}},
			}
			if i == 7 {
				b.Bundle.Name = "warn"
			}
			results[i] = c.CheckBundle(b)
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i, fs := range results {
		require.Len(t, fs, 3, "bundle %d", i)
		assert.Equal(t, declcfg.Pos{File: "c.yaml", Line: i + 1}, fs[0].Pos)
		assert.Equal(t, fmt.Sprintf(`csv {"kind":"ClusterServiceVersion","n":%d}`, i), fs[0].Message)
		assert.Equal(t, fmt.Sprintf("%d %q", i*7%len(raw), string(raw[:i*7%len(raw)])), fs[1].Message, "bundle %d: the raw payload changed", i)
		// The olm.bundle.object property stays behind (its manifest is
		// the object); others arrive as the catalog wrote them, "<" too.
		assert.Equal(t, `olm.maxOpenShiftVersion "<4.20"`, fs[2].Message)
	}
	fs, err := c.CheckCatalog(testCatalog())
	require.NoError(t, err)
	require.Len(t, fs, 4)
	assert.Equal(t, fmt.Sprintf("operatorhub,k8s-version=1.33 sourcesOnly=false bundles=%d", n), fs[0].Message)
	assert.Equal(t, "p.v1.0.0 -> p.v1.1.0 (replaces) at c.yaml:5:1", fs[1].Message)
	assert.Equal(t, []string{"a note about warn"}, warnings)
}

// dyingChecker answers two bundles and exits on the third.
type dyingChecker struct{ bundles atomic.Int64 }

func (c *dyingChecker) CheckBundle(b *validate.BundleContents) []declcfg.Finding {
	if c.bundles.Add(1) == 3 {
		os.Exit(5)
	}
	return []declcfg.Finding{{Rule: "seen", Message: b.Bundle.Name}}
}

func (c *dyingChecker) CheckCatalog(*model.Catalog) []declcfg.Finding { return nil }

// TestSendWhenFBCProfileDies: bundles sent without waiting get their
// answer once each, nil for those fbc-profile never answered, whether they
// were sent before it died or after; the run then fails, naming the exit.
func TestSendWhenFBCProfileDies(t *testing.T) {
	set, err := Parse([]string{"operatorhub"})
	require.NoError(t, err)
	c, err := Start(context.Background(), StartOptions{Path: plugin(t, "dies"), Set: set, Concurrency: 1})
	require.NoError(t, err)
	defer c.Close()
	const n = 30
	var mu sync.Mutex
	answers := map[string]int{}
	answered := map[string]bool{}
	var wg sync.WaitGroup
	payload := make([]byte, 200<<10) // more than the pipe holds in a few bundles
	for i := range n {
		name := fmt.Sprintf("b%d", i)
		wg.Add(1)
		c.Send(&validate.BundleContents{Bundle: &declcfg.Bundle{Name: name}, Objects: []validate.BundleObject{{Name: "csv", JSON: payload}}},
			func(fs []declcfg.Finding) {
				defer wg.Done()
				mu.Lock()
				defer mu.Unlock()
				answers[name]++
				answered[name] = len(fs) == 1 && fs[0].Message == name
			})
	}
	wg.Wait()
	_, err = c.CheckCatalog(testCatalog())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stopped before it finished (exit status 5)")
	assert.Len(t, answers, n)
	got := 0
	for name, times := range answers {
		assert.Equal(t, 1, times, name)
		if answered[name] {
			got++
		}
	}
	assert.Equal(t, 2, got, "the two bundles it checked")
}

// TestClientFailures: a program that is not fbc-profile, or not there,
// fails the run with a clear error of kind Run: at the start when it cannot
// be run, else when the catalog's findings are asked for (the answer to
// the hello is awaited beside fbc's own work).
func TestClientFailures(t *testing.T) {
	failed := func(opts StartOptions) error {
		t.Helper()
		c, err := Start(context.Background(), opts)
		require.NoError(t, err)
		defer c.Close()
		b := &validate.BundleContents{Bundle: &declcfg.Bundle{Name: "b"}}
		assert.Nil(t, c.CheckBundle(b))
		_, err = c.CheckCatalog(testCatalog())
		require.Error(t, err)
		assert.Equal(t, fault.Run, fault.KindOf(err))
		return err
	}
	err := failed(StartOptions{Path: plugin(t, "silent"), HelloTimeout: 200 * time.Millisecond})
	assert.Contains(t, err.Error(), "did not answer within 200ms")

	err = failed(StartOptions{Path: plugin(t, "unknown kind")})
	assert.Contains(t, err.Error(), "stopped before it finished (exit status 3)")

	_, err = Start(context.Background(), StartOptions{Path: "/nonexistent/fbc-profile"})
	require.Error(t, err)
	assert.Equal(t, fault.Run, fault.KindOf(err))
}

// exchange runs Serve over echoChecker on the given input and returns its
// responses and error.
func exchange(t *testing.T, input string) ([]Response, error) {
	t.Helper()
	var out bytes.Buffer
	err := Serve(context.Background(), strings.NewReader(input), &out, newEcho)
	var rs []Response
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r Response
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
		rs = append(rs, r)
	}
	return rs, err
}

func hello(version string) string {
	data, _ := json.Marshal(Request{Hello: &Hello{Protocol: Protocol, Version: version, Profiles: "olmv1"}})
	return string(data) + "\n"
}

// TestServeRefuses: fbc-profile answers what is not the protocol with an
// error message and an error, and another build with its own hello.
func TestServeRefuses(t *testing.T) {
	self := buildinfo.Read().Identity()
	for _, c := range []struct{ name, input, err string }{
		{"garbage", "hello there\n", `"hello there" is not a request`},
		{"no hello", `{"catalog":{}}` + "\n", "does not start with a hello"},
		{"two requests in one", hello(self) + `{"catalog":{},"bundle":{"id":1}}` + "\n", "is not one request"},
		{"unknown field", hello(self) + `{"catalog":{},"extra":1}` + "\n", "unknown field"},
		{"payload sizes", hello(self) + `{"bundle":{"id":1,"contents":{"objects":[{"name":"x"}]},"payload":[]}}` + "\n", "payload lists 0 sizes for 1 objects, 0 files and 0 property values"},
		{"property values", hello(self) + `{"bundle":{"id":1,"contents":{"bundle":{"name":"b","properties":[{"type":"olm.package"}]}},"payload":[]}}` + "\n", "payload lists 0 sizes for 0 objects, 0 files and 1 property values"},
		{"payload too short", hello(self) + `{"bundle":{"id":1,"contents":{"objects":[{"name":"x"}]},"payload":[100]}}` + "\nabc", "reading its payload"},
		{"negative size", hello(self) + `{"bundle":{"id":1,"contents":{"objects":[{"name":"x"}]},"payload":[-1]}}` + "\n", "out of range"},
		{"bad profiles", strings.Replace(hello(self), "olmv1", "nonsense", 1), `unknown profile "nonsense"`},
		{"no catalog", hello(self), "before it sent the catalog"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := exchange(t, c.input)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.err)
		})
	}
	rs, err := exchange(t, hello("v0.0.1"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("fbc is version v0.0.1 (protocol %d), fbc-profile is %s", Protocol, self))
	require.Len(t, rs, 1)
	assert.Equal(t, self, rs[0].Hello.Version)
}
