package serve

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/serve/api"
	"github.com/fbc-project/fbc/serve/servetest"
)

// The goldens in testdata/opm hold opm serve's answers to registry calls on
// a few catalogs, recorded once with
//
//	go test ./serve -run TestRecordOPM -opm ~/.cache/fbc-tools/opm-v1.73.0/opm
//
// (testdata/opm/README.md says which opm and which catalogs). TestGoldens
// replays every recorded call against fbc's server and wants the same
// answers. Tests never need opm.
var opmBinary = flag.String("opm", "", "record the goldens in testdata/opm with this opm binary")

// goldenCatalog is a catalog the goldens cover. Dir is relative to the
// serve directory, or to the corpus when Corpus is set.
type goldenCatalog struct {
	Name   string
	Dir    string
	Corpus bool
	// BundlesPerChannel bounds the GetBundle calls per channel (0: all).
	BundlesPerChannel int
	// CustomSchemas are asked for through the experimental service.
	CustomSchemas []string
}

var goldenCatalogs = []goldenCatalog{
	{Name: "testdata", Dir: "testdata/catalog", CustomSchemas: []string{"fbc.test.note"}},
	// olm.bundle.object bundles, the benchmark catalog.
	{Name: "certified-v4.16", Dir: "certified-operators/catalogs/v4.16", Corpus: true, BundlesPerChannel: 3},
	// olm.csv.metadata bundles: opm makes their CSV up.
	{Name: "certified-v4.22", Dir: "certified-operators/catalogs/v4.22", Corpus: true, BundlesPerChannel: 3},
	// Deprecations of a package's channels and bundles.
	{Name: "securesign-v4.20", Dir: "securesign-fbc/v4.20/rhtas-operator/catalog", Corpus: true},
}

func (g goldenCatalog) path(t testing.TB) string {
	if !g.Corpus {
		return g.Dir
	}
	return filepath.Join(sharedtest.Corpus(t), g.Dir)
}

func (g goldenCatalog) goldenFile() string {
	return filepath.Join("testdata", "opm", g.Name+".jsonl.gz")
}

// goldenCall is one recorded call and opm's answer to it.
type goldenCall struct {
	Method   string            `json:"method"`
	Request  json.RawMessage   `json:"request"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// Code and Message are the gRPC status of the answer.
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
	// Answers are the messages received, normalized (see normalize).
	Answers []any `json:"answers"`
	// Unordered marks streams whose order opm does not define (it comes
	// from map iteration); their answers are compared sorted.
	Unordered bool `json:"unordered,omitempty"`
}

// digestOver is the length above which a string is kept as its digest: a
// csvJson or bundle object compares as exactly by digest, and the goldens
// stay small.
const digestOver = 2048

// normalize turns an answer into plain JSON values, with long strings
// replaced by their SHA-256.
func normalize(m proto.Message) (any, error) {
	data, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return digestStrings(v), nil
}

func digestStrings(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > digestOver {
			return fmt.Sprintf("sha256:%x (%d bytes)", sha256.Sum256([]byte(x)), len(x))
		}
	case []any:
		for i := range x {
			x[i] = digestStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = digestStrings(x[k])
		}
	}
	return v
}

// answerOf runs a call and records its outcome as a goldenCall.
func answerOf(ctx context.Context, conn *grpc.ClientConn, method string, req proto.Message, md map[string]string, unordered bool) (goldenCall, error) {
	reqJSON, err := protojson.MarshalOptions{}.Marshal(req)
	if err != nil {
		return goldenCall{}, err
	}
	c := goldenCall{Method: method, Request: compactJSON(reqJSON), Metadata: md, Unordered: unordered, Answers: []any{}}
	answers, err := servetest.Invoke(ctx, conn, method, req, md)
	st, _ := status.FromError(err)
	c.Code, c.Message = st.Code().String(), st.Message()
	for _, a := range answers {
		v, err := normalize(a)
		if err != nil {
			return c, err
		}
		c.Answers = append(c.Answers, v)
	}
	if unordered {
		sortAnswers(c.Answers)
	}
	return c, nil
}

func compactJSON(data []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return data
	}
	return buf.Bytes()
}

func sortAnswers(answers []any) {
	slices.SortStableFunc(answers, func(a, b any) int {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return bytes.Compare(ja, jb)
	})
}

// plan lists the calls to record on a catalog, from the server's own
// answers: every package, channel head and (up to a bound) bundle, what
// replaces and provides what, and the errors for unknown names.
func plan(ctx context.Context, conn *grpc.ClientConn, g goldenCatalog) ([]goldenCall, error) {
	var calls []goldenCall
	add := func(method string, req proto.Message, md map[string]string, unordered bool) error {
		c, err := answerOf(ctx, conn, method, req, md, unordered)
		if err != nil {
			return fmt.Errorf("%s %v: %w", method, req, err)
		}
		calls = append(calls, c)
		return nil
	}
	rc := api.NewRegistryClient(conn)
	pkgs, err := servetest.Collect(rc.ListPackages(ctx, &api.ListPackageRequest{}))
	if err != nil {
		return nil, err
	}
	if err := add("ListPackages", &api.ListPackageRequest{}, nil, true); err != nil {
		return nil, err
	}
	slices.SortFunc(pkgs, func(a, b *api.PackageName) int { return cmp.Compare(a.Name, b.Name) })
	type chKey struct{ pkg, ch string }
	heads := map[chKey]string{}
	defaults := map[string]string{}
	for _, p := range pkgs {
		if err := add("GetPackage", &api.GetPackageRequest{Name: p.Name}, nil, false); err != nil {
			return nil, err
		}
		pkg, err := rc.GetPackage(ctx, &api.GetPackageRequest{Name: p.Name})
		if err != nil {
			return nil, err
		}
		defaults[pkg.Name] = pkg.DefaultChannelName
		for _, ch := range pkg.Channels {
			heads[chKey{pkg.Name, ch.Name}] = ch.CsvName
			if err := add("GetBundleForChannel", &api.GetBundleInChannelRequest{PkgName: pkg.Name, ChannelName: ch.Name}, nil, false); err != nil {
				return nil, err
			}
		}
	}
	bundles, err := servetest.Collect(rc.ListBundles(ctx, &api.ListBundlesRequest{}))
	if err != nil {
		return nil, err
	}
	if err := add("ListBundles", &api.ListBundlesRequest{}, nil, false); err != nil {
		return nil, err
	}
	perChannel := map[chKey]int{}
	// replacers counts, per channel, the entries that replace or skip a name:
	// opm picks among several at random, so only single ones are recorded.
	replacers := map[chKey]map[string]int{}
	names := map[string]bool{}
	type gvk struct{ group, version, kind string }
	var gvks []gvk
	seenGVK := map[gvk]bool{}
	for _, b := range bundles {
		k := chKey{b.PackageName, b.ChannelName}
		if replacers[k] == nil {
			replacers[k] = map[string]int{}
		}
		targets := map[string]bool{}
		if b.Replaces != "" {
			targets[b.Replaces] = true
		}
		for _, s := range b.Skips {
			targets[s] = true
		}
		for t := range targets {
			replacers[k][t]++
			names[t] = true
		}
		for _, a := range b.ProvidedApis {
			if g := (gvk{a.Group, a.Version, a.Kind}); !seenGVK[g] {
				seenGVK[g] = true
				gvks = append(gvks, g)
			}
		}
		head := heads[k] == b.CsvName
		if g.BundlesPerChannel > 0 && !head && perChannel[k] >= g.BundlesPerChannel-1 {
			continue
		}
		if !head {
			perChannel[k]++
		}
		if err := add("GetBundle", &api.GetBundleRequest{PkgName: b.PackageName, ChannelName: b.ChannelName, CsvName: b.CsvName}, nil, false); err != nil {
			return nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if err := add("GetChannelEntriesThatReplace", &api.GetAllReplacementsRequest{CsvName: name}, nil, true); err != nil {
			return nil, err
		}
	}
	for _, k := range sortedChannels(replacers) {
		for _, name := range slices.Sorted(maps.Keys(replacers[k])) {
			if replacers[k][name] != 1 {
				continue
			}
			if err := add("GetBundleThatReplaces", &api.GetReplacementRequest{CsvName: name, PkgName: k.pkg, ChannelName: k.ch}, nil, false); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(gvks, func(a, b gvk) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.version, b.version), cmp.Compare(a.kind, b.kind))
	})
	for _, a := range gvks {
		if err := add("GetChannelEntriesThatProvide", &api.GetAllProvidersRequest{Group: a.group, Version: a.version, Kind: a.kind}, nil, true); err != nil {
			return nil, err
		}
		if err := add("GetLatestChannelEntriesThatProvide", &api.GetLatestProvidersRequest{Group: a.group, Version: a.version, Kind: a.kind}, nil, true); err != nil {
			return nil, err
		}
		if err := add("GetDefaultBundleThatProvides", &api.GetDefaultProviderRequest{Group: a.group, Version: a.version, Kind: a.kind}, nil, false); err != nil {
			return nil, err
		}
	}
	// What a client gets for names the catalog does not have.
	first := bundles[0]
	unknown := []struct {
		method string
		req    proto.Message
	}{
		{"GetPackage", &api.GetPackageRequest{Name: "no-such-package"}},
		{"GetPackage", &api.GetPackageRequest{}},
		{"GetBundleForChannel", &api.GetBundleInChannelRequest{PkgName: "no-such-package", ChannelName: first.ChannelName}},
		{"GetBundleForChannel", &api.GetBundleInChannelRequest{PkgName: first.PackageName, ChannelName: "no-such-channel"}},
		{"GetBundle", &api.GetBundleRequest{PkgName: "no-such-package", ChannelName: first.ChannelName, CsvName: first.CsvName}},
		{"GetBundle", &api.GetBundleRequest{PkgName: first.PackageName, ChannelName: "no-such-channel", CsvName: first.CsvName}},
		{"GetBundle", &api.GetBundleRequest{PkgName: first.PackageName, ChannelName: first.ChannelName, CsvName: "no-such-bundle"}},
		{"GetBundleThatReplaces", &api.GetReplacementRequest{CsvName: first.CsvName, PkgName: "no-such-package", ChannelName: first.ChannelName}},
		{"GetBundleThatReplaces", &api.GetReplacementRequest{CsvName: first.CsvName, PkgName: first.PackageName, ChannelName: "no-such-channel"}},
		{"GetBundleThatReplaces", &api.GetReplacementRequest{CsvName: "no-such-bundle", PkgName: first.PackageName, ChannelName: first.ChannelName}},
		{"GetChannelEntriesThatReplace", &api.GetAllReplacementsRequest{CsvName: "no-such-bundle"}},
		{"GetChannelEntriesThatProvide", &api.GetAllProvidersRequest{Group: "no.such.group", Version: "v1", Kind: "Nothing"}},
		{"GetLatestChannelEntriesThatProvide", &api.GetLatestProvidersRequest{Group: "no.such.group", Version: "v1", Kind: "Nothing"}},
		{"GetDefaultBundleThatProvides", &api.GetDefaultProviderRequest{Group: "no.such.group", Version: "v1", Kind: "Nothing"}},
	}
	if len(gvks) > 0 {
		// plural is in the request but opm does not look at it.
		a := gvks[0]
		unknown = append(unknown, struct {
			method string
			req    proto.Message
		}{"GetChannelEntriesThatProvide", &api.GetAllProvidersRequest{Group: a.group, Version: a.version, Kind: a.kind, Plural: "whatever"}})
	}
	for _, u := range unknown {
		if err := add(u.method, u.req, nil, true); err != nil {
			return nil, err
		}
	}
	ack := map[string]string{"x-acknowledge-experimental": "true"}
	for _, schema := range g.CustomSchemas {
		if err := add("ExperimentalListPackageCustomSchemas", &api.ExperimentalListPackageCustomSchemasRequest{Schema: schema}, nil, true); err != nil {
			return nil, err
		}
		for _, p := range append([]*api.PackageName{{}}, pkgs...) {
			req := &api.ExperimentalListPackageCustomSchemasRequest{Schema: schema, PackageName: p.Name}
			if err := add("ExperimentalListPackageCustomSchemas", req, ack, true); err != nil {
				return nil, err
			}
		}
	}
	for _, req := range []*api.ExperimentalListPackageCustomSchemasRequest{{}, {Schema: "../etc"}, {Schema: "olm.bundle", PackageName: "a/b"}, {Schema: "no.such.schema"}} {
		if err := add("ExperimentalListPackageCustomSchemas", req, ack, true); err != nil {
			return nil, err
		}
	}
	return calls, nil
}

func sortedChannels[K interface{ comparable }, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b K) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func writeGolden(path string, calls []goldenCall) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, c := range calls {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func readGolden(path string) ([]goldenCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out []goldenCall
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c goldenCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// TestRecordOPM records the goldens from opm serve (only with -opm).
func TestRecordOPM(t *testing.T) {
	if *opmBinary == "" {
		t.Skip("record the goldens with -opm PATH")
	}
	if err := os.MkdirAll(filepath.Join("testdata", "opm"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, g := range goldenCatalogs {
		t.Run(g.Name, func(t *testing.T) {
			addr, stop := startOPM(t, g.path(t))
			defer stop()
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			calls, err := plan(ctx, conn, g)
			if err != nil {
				t.Fatal(err)
			}
			if err := writeGolden(g.goldenFile(), calls); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d calls", g.goldenFile(), len(calls))
		})
	}
}

// startOPM runs opm serve on loopback ports of its own (gRPC and pprof)
// and waits, bounded, until it answers.
func startOPM(t *testing.T, dir string) (string, func()) {
	t.Helper()
	port, pprofPort := freePort(t), freePort(t)
	cmd := exec.Command(*opmBinary, "serve", dir, "-p", strconv.Itoa(port),
		"--pprof-addr", "127.0.0.1:"+strconv.Itoa(pprofPort), "-t", os.DevNull)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	addr := "127.0.0.1:" + strconv.Itoa(port)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	defer conn.Close()
	rc := api.NewRegistryClient(conn)
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := servetest.Collect(rc.ListPackages(ctx, &api.ListPackageRequest{}))
		cancel()
		if err == nil {
			return addr, stop
		}
	}
	stop()
	t.Fatalf("opm serve did not answer within 5 minutes:\n%s", logs.String())
	return "", nil
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer serves dir from fbc's server on a loopback port.
func startServer(t testing.TB, dir string, opts Options) (*Server, *Catalog) {
	t.Helper()
	if opts.GRPCAddr == "" {
		opts.GRPCAddr = "127.0.0.1:0"
	}
	srv, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cat, err := Load(context.Background(), dirSource(dir), LoadOptions{TempDir: t.TempDir()})
	if err != nil {
		var ie *InvalidError
		if errors.As(err, &ie) {
			for _, p := range ie.Problems {
				t.Logf("%s: %s [%s]", p.Pos, p.Message, p.Rule)
			}
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	srv.SetCatalog(cat)
	return srv, cat
}

func dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestGoldens replays every call opm answered and wants fbc's answers equal:
// same messages (fields and values), same status code and message, same
// order where opm's is defined.
func TestGoldens(t *testing.T) {
	for _, g := range goldenCatalogs {
		t.Run(g.Name, func(t *testing.T) {
			calls, err := readGolden(g.goldenFile())
			if err != nil {
				t.Fatal(err)
			}
			srv, _ := startServer(t, g.path(t), Options{})
			conn := dial(t, srv.GRPCAddr().String())
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			failed := 0
			for _, want := range calls {
				req := servetest.Methods[want.Method].Request()
				if err := protojson.Unmarshal(want.Request, req); err != nil {
					t.Fatal(err)
				}
				got, err := answerOf(ctx, conn, want.Method, req, want.Metadata, want.Unordered)
				if err != nil {
					t.Fatal(err)
				}
				if diff := compareCalls(want, got); diff != "" {
					failed++
					if failed <= 10 {
						t.Errorf("%s %s:\n%s", want.Method, want.Request, diff)
					}
				}
			}
			if failed > 10 {
				t.Errorf("... %d calls differ in all (of %d)", failed, len(calls))
			}
		})
	}
}

// compareCalls describes how got differs from want, "" when it does not.
func compareCalls(want, got goldenCall) string {
	if want.Code != got.Code || want.Message != got.Message {
		return fmt.Sprintf("status: want %s %q, got %s %q", want.Code, want.Message, got.Code, got.Message)
	}
	wj, _ := json.Marshal(want.Answers)
	gj, _ := json.Marshal(got.Answers)
	if bytes.Equal(wj, gj) {
		return ""
	}
	if len(want.Answers) != len(got.Answers) {
		return fmt.Sprintf("want %d answers, got %d:\nwant %s\ngot  %s", len(want.Answers), len(got.Answers), clip(wj), clip(gj))
	}
	for i := range want.Answers {
		a, _ := json.Marshal(want.Answers[i])
		b, _ := json.Marshal(got.Answers[i])
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("answer %d:\nwant %s\ngot  %s", i, clip(a), clip(b))
		}
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 3000 {
		return string(b[:3000]) + "..."
	}
	return string(b)
}
