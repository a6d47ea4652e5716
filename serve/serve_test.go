package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/serve/api"
	"github.com/fbc-project/fbc/serve/servetest"
)

func healthOf(t *testing.T, client healthpb.HealthClient, service string) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

// Health says NOT_SERVING and registry calls fail with Unavailable until
// the catalog is set; then SERVING, and reflection lists the services.
func TestLifecycle(t *testing.T) {
	srv, err := Listen(Options{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Name: "life"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conn := dial(t, srv.GRPCAddr().String())
	hc := healthpb.NewHealthClient(conn)
	rc := api.NewRegistryClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every name has the server's status, as opm answers: "Registry" is
	// what operator-registry's client.HealthCheck asks about.
	names := []string{"", "api.Registry", "Registry", "no.such.Service"}
	for _, svc := range names {
		if got := healthOf(t, hc, svc); got != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("health %q while loading: %v", svc, got)
		}
	}
	_, err = rc.GetPackage(ctx, &api.GetPackageRequest{Name: "alpha-operator"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("GetPackage while loading: %v, want Unavailable", err)
	}
	// catalogd's API says when to come back while loading; a catalog of
	// another name is not found whatever the state.
	base := "http://" + srv.HTTPAddr().String() + "/catalogs/"
	for _, path := range []string{"life/api/v1/all", "life/api/v1/metas?schema=olm.package"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			res, _ := get(t, method, base+path)
			if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" {
				t.Errorf("%s %s while loading: %d, Retry-After %q; want 503, 1", method, path, res.StatusCode, res.Header.Get("Retry-After"))
			}
		}
	}
	if res, _ := get(t, http.MethodGet, base+"other/api/v1/all"); res.StatusCode != http.StatusNotFound {
		t.Errorf("another catalog while loading: %d, want 404", res.StatusCode)
	}
	watch, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := watch.Recv(); err != nil || first.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("first watched status: %v %v", first, err)
	}
	watchNamed, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: "Registry"})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := watchNamed.Recv(); err != nil || first.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("first watched status of \"Registry\": %v %v", first, err)
	}
	cat, err := Load(ctx, dirSource("testdata/catalog"), LoadOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	srv.SetCatalog(cat)
	if next, err := watch.Recv(); err != nil || next.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("watched status after loading: %v %v", next, err)
	}
	if next, err := watchNamed.Recv(); err != nil || next.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("watched status of \"Registry\" after loading: %v %v", next, err)
	}
	for _, svc := range names {
		if got := healthOf(t, hc, svc); got != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health %q after loading: %v", svc, got)
		}
	}
	if _, err := rc.GetPackage(ctx, &api.GetPackageRequest{Name: "alpha-operator"}); err != nil {
		t.Errorf("GetPackage after loading: %v", err)
	}
	if res, body := get(t, http.MethodGet, base+"life/api/v1/all"); res.StatusCode != http.StatusOK || res.Header.Get("Retry-After") != "" || !bytes.Contains(body, []byte(`"alpha-operator"`)) {
		t.Errorf("all after loading: %d, Retry-After %q, %d bytes", res.StatusCode, res.Header.Get("Retry-After"), len(body))
	}

	refl, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := refl.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	res, err := refl.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var services []string
	for _, s := range res.GetListServicesResponse().GetService() {
		services = append(services, s.Name)
	}
	for _, want := range []string{"api.Registry", "api.ExperimentalRegistry", "grpc.health.v1.Health"} {
		if !strings.Contains(strings.Join(services, " "), want) {
			t.Errorf("reflection lists %v, want %s among them", services, want)
		}
	}
	if err := refl.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "api.Registry"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := refl.Recv(); err != nil || len(res.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("no file descriptor for api.Registry: %v %v", res, err)
	}
}

// A second server on a bound address fails naming the address.
func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	_, err = Listen(Options{GRPCAddr: addr})
	var le *ListenError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Listen on a bound address: %v", err)
	}
	_, err = Listen(Options{GRPCAddr: "127.0.0.1:0", HTTPAddr: addr})
	if !errors.As(err, &le) || le.What != "HTTP" || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Listen with a bound HTTP address: %v", err)
	}
}

// imagelessCatalog writes a package of n bundles without images, each with
// a manifest of about size bytes: ListBundles must read every one back.
func imagelessCatalog(t *testing.T, n, size int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, `{"schema":"olm.package","name":"big","defaultChannel":"stable"}`+"\n")
	var entries []string
	for i := range n {
		e := fmt.Sprintf(`{"name":"big.v1.0.%d"`, i)
		if i > 0 {
			e += fmt.Sprintf(`,"replaces":"big.v1.0.%d"`, i-1)
		}
		entries = append(entries, e+"}")
	}
	fmt.Fprintf(&b, `{"schema":"olm.channel","package":"big","name":"stable","entries":[%s]}`+"\n", strings.Join(entries, ","))
	for i := range n {
		obj := fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c%d"},"data":{"x":"%s"}}`, i, strings.Repeat("x", size))
		fmt.Fprintf(&b, `{"schema":"olm.bundle","package":"big","name":"big.v1.0.%d","image":"","properties":[{"type":"olm.package","value":{"packageName":"big","version":"1.0.%d"}},{"type":"olm.bundle.object","value":{"data":"%s"}}]}`+"\n",
			i, i, base64.StdEncoding.EncodeToString([]byte(obj)))
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A client that goes away mid-stream stops the stream: the server neither
// reads nor converts the bundles it has not sent yet, and its goroutines
// return.
func TestDisconnectMidStream(t *testing.T) {
	const bundles = 300
	srv, cat := startServer(t, imagelessCatalog(t, bundles, 64<<10), Options{})
	var loads atomic.Int64
	cat.cache.onLoad = func() { loads.Add(1) }
	before := runtime.NumGoroutine()
	conn := dial(t, srv.GRPCAddr().String())
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := api.NewRegistryClient(conn).ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	conn.Close()
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+2 {
		t.Errorf("%d goroutines after the client left, %d before it came", g, before)
	}
	t.Logf("%d of %d bundles read back", loads.Load(), bundles)
	if n := loads.Load(); n > bundles/10 {
		t.Errorf("%d of %d bundles read back for a client that took one", n, bundles)
	}
}

// Shutdown lets a call in flight finish and refuses new ones.
func TestShutdownDrains(t *testing.T) {
	srv, _ := startServer(t, imagelessCatalog(t, 50, 64<<10), Options{})
	conn := dial(t, srv.GRPCAddr().String())
	rc := api.NewRegistryClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := listBundlesStarted(ctx, t, rc)
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	rest, err := servetest.Collect(stream, nil)
	if err != nil || len(rest) != 49 {
		t.Fatalf("in-flight ListBundles after Shutdown: %d more answers, %v", len(rest), err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := rc.GetPackage(ctx, &api.GetPackageRequest{Name: "big"}); err == nil {
		t.Error("a call after Shutdown was answered")
	}
}

// opmBlobs is how opm (and so catalogd) writes a catalog's blobs: each
// document read through sigs.k8s.io/yaml into a map and written back by
// encoding/json with HTML escaping off. It is the reference for api/v1/all.
func opmBlobs(t *testing.T, files ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]byte
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, raw)
			}
		} else {
			for _, d := range strings.Split(string(data), "\n---") {
				if strings.TrimSpace(strings.TrimPrefix(d, "---")) == "" {
					continue
				}
				j, err := sigsyaml.YAMLToJSON([]byte(d))
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, j)
			}
		}
		for _, d := range docs {
			var m map[string]any
			if err := json.Unmarshal(d, &m); err != nil {
				t.Fatal(err)
			}
			if err := enc.Encode(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out.Bytes()
}

func get(t *testing.T, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// No transparent gzip: the tests look at what is sent.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// catalogd's API: the catalog as opm writes its blobs, filtered by metas,
// with catalogd's headers, statuses and gzip.
func TestCatalogdHTTP(t *testing.T) {
	srv, cat := startServer(t, "testdata/catalog", Options{HTTPAddr: "127.0.0.1:0", Name: "test-catalog"})
	base := "http://" + srv.HTTPAddr().String() + "/catalogs/test-catalog/api/v1/"
	want := opmBlobs(t, "testdata/catalog/alpha-operator/catalog.json", "testdata/catalog/beta-operator/catalog.yaml",
		"testdata/catalog/gamma-operator/catalog.json", "testdata/catalog/notes.yaml")

	res, body := get(t, "GET", base+"all")
	if res.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("all: %d\n%s\nwant\n%s", res.StatusCode, body, want)
	}
	lastMod := cat.loadedAt.UTC().Format(http.TimeFormat)
	if ct, lm := res.Header.Get("Content-Type"), res.Header.Get("Last-Modified"); ct != "application/jsonl" || lm != lastMod {
		t.Errorf("all headers: Content-Type %q, Last-Modified %q (want %q)", ct, lm, lastMod)
	}
	res, body = get(t, "HEAD", base+"all")
	if res.StatusCode != 200 || len(body) != 0 || res.Header.Get("Content-Length") != fmt.Sprint(len(want)) {
		t.Errorf("HEAD all: %d, %d bytes, Content-Length %q", res.StatusCode, len(body), res.Header.Get("Content-Length"))
	}
	res, body = get(t, "GET", base+"all", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("all with Accept-Encoding gzip: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	} else if zr, err := gzip.NewReader(bytes.NewReader(body)); err != nil {
		t.Error(err)
	} else if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, want) {
		t.Errorf("gunzipped all differs (%v)", err)
	}
	if res, _ := get(t, "GET", base+"all", "If-Modified-Since", lastMod); res.StatusCode != http.StatusNotModified {
		t.Errorf("all If-Modified-Since its Last-Modified: %d", res.StatusCode)
	}

	lines := func(b []byte) []string {
		var out []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			out = append(out, sc.Text())
		}
		return out
	}
	all := lines(want)
	pick := func(pred func(m map[string]any) bool) string {
		var out []string
		for _, l := range all {
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			if pred(m) {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct {
		query string
		pred  func(m map[string]any) bool
	}{
		{"schema=olm.bundle", func(m map[string]any) bool { return m["schema"] == "olm.bundle" }},
		{"package=beta-operator", func(m map[string]any) bool { return m["package"] == "beta-operator" }},
		{"schema=olm.channel&package=alpha-operator", func(m map[string]any) bool {
			return m["schema"] == "olm.channel" && m["package"] == "alpha-operator"
		}},
		{"name=alpha-operator", func(m map[string]any) bool { return m["name"] == "alpha-operator" }},
		{"schema=olm.bundle&package=alpha-operator&name=alpha-operator.v1.2.0", func(m map[string]any) bool { return m["name"] == "alpha-operator.v1.2.0" }},
		{"schema=fbc.test.note", func(m map[string]any) bool { return m["schema"] == "fbc.test.note" }},
		{"schema=no.such", func(map[string]any) bool { return false }},
		{"", func(map[string]any) bool { return true }},
	} {
		res, body := get(t, "GET", base+"metas?"+tc.query)
		if got, want := strings.Join(lines(body), "\n"), tc.pred; res.StatusCode != 200 || got != pick(want) {
			t.Errorf("metas?%s: %d\n%s\nwant\n%s", tc.query, res.StatusCode, got, pick(want))
		}
		if res.Header.Get("Content-Type") != "application/jsonl" || res.Header.Get("Last-Modified") != lastMod {
			t.Errorf("metas?%s headers: %v", tc.query, res.Header)
		}
	}
	if res, body := get(t, "HEAD", base+"metas?schema=olm.bundle"); res.StatusCode != 200 || len(body) != 0 {
		t.Errorf("HEAD metas: %d, %d bytes", res.StatusCode, len(body))
	}
	if res, _ := get(t, "GET", base+"metas?schema=olm.bundle", "If-Modified-Since", lastMod); res.StatusCode != http.StatusNotModified {
		t.Errorf("metas If-Modified-Since: %d", res.StatusCode)
	}
	root := "http://" + srv.HTTPAddr().String()
	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/catalogs/other/api/v1/all", 404, "404 Not Found"},
		{"GET", "/catalogs/Bad_Name/api/v1/all", 400, "invalid catalog name"},
		{"POST", "/catalogs/test-catalog/api/v1/all", 405, "Method Not Allowed"},
		{"GET", "/catalogs/test-catalog/api/v1/metas?bogus=1", 400, "400 Bad Request"},
		{"GET", "/catalogs/test-catalog/api/v1/graphql", 404, "404 page not found"},
	} {
		res, body := get(t, tc.method, root+tc.path)
		if res.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, res.StatusCode, body, tc.code, tc.body)
		}
	}
}

func TestDefaultName(t *testing.T) {
	for src, want := range map[string]string{
		"catalog":                           "catalog",
		"catalogs/v4.16/":                   "v4.16",
		"My Catalog":                        "my-catalog",
		"quay.io/org/certified-index:v4.16": "certified-index",
		"quay.io/org/index@sha256:abcdef":   "index",
		"oci:out/layout:v1":                 "layout",
		"docker-archive:images/catalog.tar": "catalog",
		"docker-archive:images/catalog.tar:quay.io/a/index:v1": "catalog",
		"oci:out/layout@sha256:abc":                            "layout",
		"localhost:5000/catalog":                               "catalog",
		"-":                                                    "catalog",
		"catalog.yaml":                                         "catalog",
		"___":                                                  "catalog",
	} {
		if got := DefaultName(src); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", src, got, want)
		}
	}
}

// dirSource reads a catalog directory, a single catalog file, or "-", the
// way fbc serve does: a file read ahead of the one loading, parsed a
// document at a time as it loads, into the buffer of a file done with.
func dirSource(path string) Source {
	return walkSource(path, declcfg.WalkOptions{Concurrency: 1, Ahead: 1, Borrow: true, Stream: true, Reuse: true})
}

func walkSource(path string, opts declcfg.WalkOptions) Source {
	return func(ctx context.Context, fn func(*declcfg.File) error) error {
		return declcfg.WalkPath(ctx, path, nil, opts, fn)
	}
}

// Files handed over parsed whole load as streamed ones do: the same
// blobs, index and problems.
func TestLoadParsedFiles(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"testdata/catalog", imagelessCatalog(t, 5, 1<<10)} {
		streamed, err := Load(context.Background(), dirSource(dir), LoadOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := Load(context.Background(), walkSource(dir, declcfg.WalkOptions{Concurrency: 2}), LoadOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		read := func(c *Catalog) []byte {
			b, err := io.ReadAll(io.NewSectionReader(c.spill, 0, c.size))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		if !bytes.Equal(read(streamed), read(parsed)) || streamed.Stats() != parsed.Stats() || len(streamed.bundles) != len(parsed.bundles) {
			t.Errorf("%s: streamed and parsed loads differ: %+v, %+v", dir, streamed.Stats(), parsed.Stats())
		}
		streamed.Close()
		parsed.Close()
	}
	// An invalid catalog: the same problems either way.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("schema: olm.package\nname: p\ndefaultChannel: nope\n---\nschema: olm.bundle\npackage: p\nname: b\nproperties:\n- {type: olm.bundle.object, value: {data: '!'}}\n- {type: olm.csv.metadata, value: {keywords: x}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs [2]string
	for i, src := range []Source{dirSource(dir), walkSource(dir, declcfg.WalkOptions{})} {
		_, err := Load(context.Background(), src, LoadOptions{TempDir: t.TempDir()})
		var ie *InvalidError
		if !errors.As(err, &ie) {
			t.Fatalf("invalid catalog loaded: %v", err)
		}
		for _, p := range ie.Problems {
			msgs[i] += fmt.Sprintf("%s %s %s\n", p.Pos, p.Rule, p.Message)
		}
	}
	if msgs[0] != msgs[1] || !strings.Contains(msgs[0], "properties[1].value.keywords must be a list") || !strings.Contains(msgs[0], "bundle-object") {
		t.Errorf("problems differ or are missing:\nstreamed:\n%s\nparsed:\n%s", msgs[0], msgs[1])
	}
}
