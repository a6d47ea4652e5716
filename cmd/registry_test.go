package cmd

// Registry harness for CLI tests: testscript commands that start registries
// on loopback, push images built from directories, and damage what they
// serve. Every registry is stopped when its script ends.
//
//	registry start NAME [-inproc] [-auth] [-tls] [-flaky N] [-addr IP]
//	    Starts the CNCF Distribution registry (the docker-registry binary, from
//	    `make test-deps`) on IP (default 127.0.0.1) with a fresh config and
//	    storage under $WORK, behind a pass-through front that counts requests
//	    and injects faults, and sets $REGISTRY_<NAME> (NAME upper-cased) to the
//	    front's host:port. -inproc uses go-containerregistry's in-process
//	    registry instead. -auth demands basic auth (user fbc-test, password
//	    fbc-password; testdata/image/htpasswd). -tls serves HTTPS with a
//	    self-signed certificate. -flaky N answers the first N requests with
//	    500. Without docker-registry installed, the script FAILS and says to
//	    run `make test-deps`.
//	registry stop NAME
//	    Stops the registry and its front: connections are then refused.
//	registry login NAME
//	    Writes the -auth credentials to $WORK/.docker/config.json and sets
//	    $DOCKER_CONFIG, as `docker login` would.
//	registry flaky NAME N [STATUS] [-method METHOD]
//	    Answers the next N requests (of METHOD only, e.g. PUT) with STATUS
//	    (default 500).
//	registry stall NAME N
//	    The next N requests hang, answering nothing until the client gives
//	    up (or 30s pass, when they are served as usual).
//	registry redirect NAME
//	    Every manifest request is redirected to itself (307) from now on.
//	registry trickle NAME INTERVAL
//	    Every manifest GET is answered a byte each INTERVAL (e.g. 200ms)
//	    from now on: never quiet long enough to time out.
//	registry await NAME N
//	    Waits (up to 20s) until the front has seen N requests since the last
//	    `registry requests`: a background command has reached the registry.
//	registry corrupt NAME REF flip|truncate|stall [layer|config] [-once]
//	    Serves REF's first layer (or config) damaged: flip changes its last
//	    byte, truncate sends half of it and closes the connection, stall
//	    sends half and then nothing (up to 30s). -once damages the next
//	    serve only.
//	registry requests NAME
//	    Prints "N requests" and one "METHOD PATH" line per request the front
//	    saw since the last `registry requests`, then forgets them.
//	push-bundle DIR REF [-platform OS/ARCH]
//	    Builds a bundle image from a bundle directory (manifests/, metadata/;
//	    labels from metadata/annotations.yaml) and pushes it.
//	push-catalog DIR REF [-platform OS/ARCH]
//	    Builds a catalog image (DIR at /configs, the configs label) and pushes it.
//	push-index REF SRC...
//	    Pushes an image index of the images SRC..., each entry's platform
//	    taken from its config (push-index $R/b:multi $R/b:amd64 $R/b:arm64).
//	push-image REF [-label K=V]... [-platform OS/ARCH] [-entrypoint ARG]... [-cmd ARG]... [-dir SRC=DEST]... LAYERFILE...
//	    Pushes an image made of hand-written layers, base first; each
//	    LAYERFILE lists entries (file, big, dir, symlink, hardlink, fifo,
//	    whiteout, opaque: see imagetest.ParseEntries), hostile ones included.
//	    Each -dir adds a layer (after the LAYERFILEs) holding the tree SRC at
//	    DEST; -entrypoint and -cmd give the config's, an argument each.
//	save-oci DIR REF [-name NAME]
//	    Adds REF (image or index) to the OCI layout DIR, annotated with NAME.
//	save-oci-archive FILE REF [-name NAME]
//	    Writes REF as a tar of an OCI layout.
//	save-archive FILE REF [-tag REPO:TAG]
//	    Writes REF as a `docker save` tarball, tagged REF (or -tag).
//	copy-images FILE
//	    Copies each image of FILE's SOURCE=DESTINATION lines (the mapping
//	    `oc image mirror -f` takes, as fbc mirror plan writes it) from one
//	    harness registry to another, manifests unchanged (digests kept).
//
// The push-* and save-* commands set $DIGEST to the manifest digest of what
// they pushed or saved. Pushes and saves go straight to the registry, not
// through the front, so they neither count as requests nor meet the faults.
// Scripts also get $XDG_CACHE_HOME under $WORK, so fbc's default image cache
// is private to each script.

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/rogpeppe/go-internal/testscript"
)

// The harness user, matching testdata/image/htpasswd.
const (
	harnessUser = "fbc-test"
	harnessPass = "fbc-password"
)

type registriesKey struct{}

// scriptRegistries are the registries of one script.
type scriptRegistries struct {
	mu     sync.Mutex
	byName map[string]*scriptRegistry
}

type scriptRegistry struct {
	name    string
	front   *httptest.Server
	faults  *imagetest.Faults
	host    string // the front's host:port, what scripts use
	backend string // host:port pushes go to
	auth    bool
	dist    *imagetest.Distribution
	inproc  *httptest.Server
	stopped bool
}

func (r *scriptRegistry) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	if r.front != nil {
		r.front.Close()
	}
	if r.inproc != nil {
		r.inproc.Close()
	}
	if r.dist != nil {
		r.dist.Stop()
	}
}

func (rs *scriptRegistries) stopAll() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.byName {
		r.stop()
	}
}

func init() {
	scriptSetups = append(scriptSetups, func(env *testscript.Env) error {
		rs := &scriptRegistries{byName: map[string]*scriptRegistry{}}
		env.Values[registriesKey{}] = rs
		env.Defer(rs.stopAll)
		env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
		return nil
	})
	scriptCmds["registry"] = cmdRegistry
	scriptCmds["push-bundle"] = cmdPushBuilt(imagetest.BundleImage)
	scriptCmds["push-catalog"] = cmdPushBuilt(imagetest.CatalogImage)
	scriptCmds["push-index"] = cmdPushIndex
	scriptCmds["push-image"] = cmdPushImage
	scriptCmds["save-oci"] = cmdSave("save-oci")
	scriptCmds["save-oci-archive"] = cmdSave("save-oci-archive")
	scriptCmds["save-archive"] = cmdSave("save-archive")
	scriptCmds["copy-images"] = cmdCopyImages
}

func cmdCopyImages(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: copy-images FILE")
	}
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		src, dst, ok := strings.Cut(line, "=")
		if !ok {
			ts.Fatalf("copy-images: %q is not SOURCE=DESTINATION", line)
		}
		pushToHarness(ts, dst, pullFromHarness(ts, src).(interface{ Digest() (v1.Hash, error) }))
	}
}

func registries(ts *testscript.TestScript) *scriptRegistries {
	return ts.Value(registriesKey{}).(*scriptRegistries)
}

// harnessArgs splits args into positionals and -flags; valued lists the
// flags that take a value (repeatable).
func harnessArgs(ts *testscript.TestScript, cmd string, args []string, valued, boolean []string) ([]string, map[string][]string) {
	var pos []string
	flags := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		switch {
		case contains(valued, name):
			if i+1 >= len(args) {
				ts.Fatalf("%s: %s needs a value", cmd, a)
			}
			flags[name] = append(flags[name], args[i+1])
			i++
		case contains(boolean, name):
			flags[name] = append(flags[name], "true")
		default:
			ts.Fatalf("%s: unknown flag %s", cmd, a)
		}
	}
	return pos, flags
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func last(flags map[string][]string, name string) string {
	if v := flags[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func cmdRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("registry does not support !")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: registry start|stop|login|flaky|stall|redirect|trickle|await|corrupt|requests NAME ...")
	}
	rs := registries(ts)
	verb, name := args[0], args[1]
	if verb == "start" {
		startRegistry(ts, rs, name, args[2:])
		return
	}
	rs.mu.Lock()
	r := rs.byName[name]
	rs.mu.Unlock()
	if r == nil {
		ts.Fatalf("registry %s: not started", name)
	}
	switch verb {
	case "stop":
		r.stop()
	case "login":
		if !r.auth {
			ts.Fatalf("registry login %s: the registry was started without -auth", name)
		}
		dir := ts.MkAbs(".docker")
		ts.Check(os.MkdirAll(dir, 0o755))
		cfg := fmt.Sprintf(`{"auths":{%q:{"username":%q,"password":%q}}}`, r.host, harnessUser, harnessPass)
		ts.Check(os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600))
		ts.Setenv("DOCKER_CONFIG", dir)
	case "flaky":
		pos, flags := harnessArgs(ts, "registry flaky", args[2:], []string{"method"}, nil)
		if len(pos) < 1 || len(pos) > 2 {
			ts.Fatalf("usage: registry flaky NAME N [STATUS] [-method METHOD]")
		}
		n, err := strconv.Atoi(pos[0])
		ts.Check(err)
		status := 500
		if len(pos) == 2 {
			status, err = strconv.Atoi(pos[1])
			ts.Check(err)
		}
		r.faults.FailNextMethod(n, last(flags, "method"), status)
	case "stall":
		if len(args) != 3 {
			ts.Fatalf("usage: registry stall NAME N")
		}
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		r.faults.StallNext(n)
	case "redirect":
		if len(args) != 2 {
			ts.Fatalf("usage: registry redirect NAME")
		}
		r.faults.RedirectManifests()
	case "trickle":
		if len(args) != 3 {
			ts.Fatalf("usage: registry trickle NAME INTERVAL")
		}
		d, err := time.ParseDuration(args[2])
		ts.Check(err)
		r.faults.TrickleManifests(d)
	case "await":
		if len(args) != 3 {
			ts.Fatalf("usage: registry await NAME N")
		}
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		deadline := time.Now().Add(20 * time.Second)
		for len(r.faults.Requests()) < n {
			if time.Now().After(deadline) {
				ts.Fatalf("registry await %s %d: %d requests after 20s", name, n, len(r.faults.Requests()))
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "corrupt":
		pos, flags := harnessArgs(ts, "registry corrupt", args[2:], nil, []string{"once"})
		args = append(args[:2], pos...)
		if len(args) < 4 || len(args) > 5 {
			ts.Fatalf("usage: registry corrupt NAME REF flip|truncate|stall [layer|config] [-once]")
		}
		how := map[string]imagetest.Corruption{"flip": imagetest.Flip, "truncate": imagetest.Truncate, "stall": imagetest.Stall}[args[3]]
		if how == 0 {
			ts.Fatalf("registry corrupt: want flip, truncate or stall, not %q", args[3])
		}
		img, ok := pullFromHarness(ts, args[2]).(v1.Image)
		if !ok {
			ts.Fatalf("registry corrupt: %s is an index; name one image", args[2])
		}
		var d v1.Hash
		var err error
		if len(args) == 5 && args[4] == "config" {
			d, err = img.ConfigName()
		} else {
			ls, lerr := img.Layers()
			ts.Check(lerr)
			if len(ls) == 0 {
				ts.Fatalf("registry corrupt: %s has no layers", args[2])
			}
			d, err = ls[0].Digest()
		}
		ts.Check(err)
		if last(flags, "once") != "" {
			r.faults.CorruptNext(1, d.String(), how)
		} else {
			r.faults.Corrupt(d.String(), how)
		}
	case "requests":
		reqs := r.faults.Requests()
		r.faults.Reset()
		fmt.Fprintf(ts.Stdout(), "%d requests\n", len(reqs))
		for _, q := range reqs {
			fmt.Fprintln(ts.Stdout(), q)
		}
	default:
		ts.Fatalf("registry: unknown verb %q", verb)
	}
}

func startRegistry(ts *testscript.TestScript, rs *scriptRegistries, name string, args []string) {
	pos, flags := harnessArgs(ts, "registry start", args, []string{"flaky", "addr"}, []string{"inproc", "auth", "tls"})
	if len(pos) != 0 {
		ts.Fatalf("usage: registry start NAME [-inproc] [-auth] [-tls] [-flaky N] [-addr IP]")
	}
	rs.mu.Lock()
	_, dup := rs.byName[name]
	rs.mu.Unlock()
	if dup {
		ts.Fatalf("registry %s: already started", name)
	}
	ip := last(flags, "addr")
	if ip == "" {
		ip = "127.0.0.1"
	}
	if parsed := net.ParseIP(ip); parsed == nil || !parsed.IsLoopback() {
		ts.Fatalf("registry start: -addr must be a loopback address, not %q", ip)
	}
	r := &scriptRegistry{name: name, auth: last(flags, "auth") != ""}
	// Known from the start, so the script's end stops whatever did start.
	rs.mu.Lock()
	rs.byName[name] = r
	rs.mu.Unlock()
	var backend http.Handler
	if last(flags, "inproc") != "" {
		r.inproc = httptest.NewServer(registry.New(registry.Logger(nopLogger())))
		r.backend = strings.TrimPrefix(r.inproc.URL, "http://")
		backend = r.inproc.Config.Handler
	} else {
		r.backend = startDistribution(ts, r, ip)
		u := &url.URL{Scheme: "http", Host: r.backend}
		backend = httputil.NewSingleHostReverseProxy(u)
	}
	r.faults = imagetest.NewFaults(backend)
	if r.auth && r.inproc != nil {
		r.faults.RequireAuth(harnessUser, harnessPass)
	}
	if n := last(flags, "flaky"); n != "" {
		count, err := strconv.Atoi(n)
		ts.Check(err)
		r.faults.FailNext(count, http.StatusInternalServerError)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	ts.Check(err)
	r.front = &httptest.Server{Listener: l, Config: &http.Server{Handler: r.faults}}
	if last(flags, "tls") != "" {
		r.front.StartTLS()
	} else {
		r.front.Start()
	}
	r.host = l.Addr().String()
	ts.Setenv("REGISTRY_"+strings.ToUpper(name), r.host)
}

// startDistribution runs the docker-registry binary and waits until it
// answers.
func startDistribution(ts *testscript.TestScript, r *scriptRegistry, ip string) string {
	htpasswd := ""
	if r.auth {
		htpasswd = filepath.Join("..", "testdata", "image", "htpasswd")
	}
	d, err := imagetest.StartDistribution(ts.MkAbs(".registry-"+r.name), ip, htpasswd)
	if err != nil {
		ts.Fatalf("registry start %s: %v", r.name, err)
	}
	r.dist = d
	return d.Host
}

// target finds the registry a reference points at and the reference to use
// for pushing and pulling directly (the backend, past the front).
func target(ts *testscript.TestScript, ref string) (direct string, r *scriptRegistry) {
	rs := registries(ts)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, reg := range rs.byName {
		if reg.host != "" && strings.HasPrefix(ref, reg.host+"/") {
			return reg.backend + strings.TrimPrefix(ref, reg.host), reg
		}
	}
	ts.Fatalf("%s: not a reference to a registry started by this script", ref)
	return "", nil
}

func credentials(r *scriptRegistry) (string, string) {
	if r.auth && r.inproc == nil {
		return harnessUser, harnessPass
	}
	return "", ""
}

func pushToHarness(ts *testscript.TestScript, ref string, img interface{ Digest() (v1.Hash, error) }) {
	direct, r := target(ts, ref)
	user, pass := credentials(r)
	if err := imagetest.Push(direct, img, user, pass); err != nil {
		ts.Fatalf("pushing %s: %v", ref, err)
	}
	d, err := img.Digest()
	ts.Check(err)
	ts.Setenv("DIGEST", d.String())
}

func pullFromHarness(ts *testscript.TestScript, ref string) any {
	direct, r := target(ts, ref)
	user, pass := credentials(r)
	x, err := imagetest.Pull(direct, user, pass)
	if err != nil {
		ts.Fatalf("pulling %s: %v", ref, err)
	}
	return x
}

func cmdPushBuilt(build func(dir, platform string) (v1.Image, error)) func(*testscript.TestScript, bool, []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		pos, flags := harnessArgs(ts, "push", args, []string{"platform"}, nil)
		if neg || len(pos) != 2 {
			ts.Fatalf("usage: push-bundle|push-catalog DIR REF [-platform OS/ARCH]")
		}
		img, err := build(ts.MkAbs(pos[0]), last(flags, "platform"))
		if err != nil {
			ts.Fatalf("building an image from %s: %v", pos[0], err)
		}
		pushToHarness(ts, pos[1], img)
	}
}

func cmdPushIndex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: push-index REF SRC...")
	}
	var imgs []v1.Image
	for _, src := range args[1:] {
		img, ok := pullFromHarness(ts, src).(v1.Image)
		if !ok {
			ts.Fatalf("push-index: %s is an index, not an image", src)
		}
		imgs = append(imgs, img)
	}
	idx, err := imagetest.Index(imgs...)
	ts.Check(err)
	pushToHarness(ts, args[0], idx)
}

func cmdPushImage(ts *testscript.TestScript, neg bool, args []string) {
	pos, flags := harnessArgs(ts, "push-image", args, []string{"label", "platform", "entrypoint", "cmd", "dir"}, nil)
	if neg || len(pos) < 1 {
		ts.Fatalf("usage: push-image REF [-label K=V]... [-platform OS/ARCH] [-entrypoint ARG]... [-cmd ARG]... [-dir SRC=DEST]... LAYERFILE...")
	}
	labels := map[string]string{}
	for _, kv := range flags["label"] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("push-image: -label %q: want KEY=VALUE", kv)
		}
		labels[k] = v
	}
	var layers []v1.Layer
	for _, f := range pos[1:] {
		entries, err := imagetest.ParseEntries(ts.ReadFile(f), ts.Getenv("WORK"))
		if err != nil {
			ts.Fatalf("push-image: %s: %v", f, err)
		}
		l, err := imagetest.Layer(entries...)
		ts.Check(err)
		layers = append(layers, l)
	}
	for _, d := range flags["dir"] {
		src, dest, ok := strings.Cut(d, "=")
		if !ok {
			ts.Fatalf("push-image: -dir %q: want SRC=DEST", d)
		}
		entries, err := imagetest.DirEntries(ts.MkAbs(src), strings.Trim(dest, "/"))
		ts.Check(err)
		l, err := imagetest.Layer(entries...)
		ts.Check(err)
		layers = append(layers, l)
	}
	img, err := imagetest.Image(imagetest.Config{Labels: labels, Platform: last(flags, "platform"),
		Entrypoint: flags["entrypoint"], Cmd: flags["cmd"]}, layers...)
	ts.Check(err)
	pushToHarness(ts, pos[0], img)
}

func cmdSave(verb string) func(*testscript.TestScript, bool, []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		pos, flags := harnessArgs(ts, verb, args, []string{"name", "tag"}, nil)
		if neg || len(pos) != 2 {
			ts.Fatalf("usage: %s DEST REF [-name NAME] [-tag REPO:TAG]", verb)
		}
		dest, ref := ts.MkAbs(pos[0]), pos[1]
		x := pullFromHarness(ts, ref)
		var err error
		switch verb {
		case "save-oci":
			err = imagetest.WriteLayout(dest, x, last(flags, "name"))
		case "save-oci-archive":
			err = imagetest.WriteOCIArchive(dest, x, last(flags, "name"))
		case "save-archive":
			img, ok := x.(v1.Image)
			if !ok {
				ts.Fatalf("save-archive: %s is an index; docker archives hold images", ref)
			}
			tag := last(flags, "tag")
			if tag == "" {
				tag = ref
			}
			err = imagetest.WriteDockerArchive(dest, map[string]v1.Image{tag: img})
		}
		if err != nil {
			ts.Fatalf("%s %s: %v", verb, ref, err)
		}
		d, derr := x.(interface{ Digest() (v1.Hash, error) }).Digest()
		ts.Check(derr)
		ts.Setenv("DIGEST", d.String())
	}
}

// nopLogger silences the in-process registry.
func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }
