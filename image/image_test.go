package image_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/compression"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const bundleDir = "../testdata/image/bundles/skupper-operator-1.5.3"
const catalogDir = "../testdata/catalog/etcd-lite"

// testOptions never read the user's Docker config or cache and retry fast.
func testOptions(t testing.TB) image.Options {
	return image.Options{
		CacheDir:   t.TempDir(),
		Keychain:   authn.NewMultiKeychain(),
		RetryDelay: time.Millisecond,
	}
}

// must returns v; a test helper's err is a broken test, so it panics.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func bundleImage(t testing.TB, platform string) v1.Image {
	return must(imagetest.BundleImage(bundleDir, platform))
}

func digestRef(t testing.TB, host, repo string, img interface{ Digest() (v1.Hash, error) }) string {
	return host + "/" + repo + "@" + must(img.Digest()).String()
}

// readAll opens ref and reads the given paths, failing the test on error.
func readAll(t testing.TB, ref string, opts image.Options, paths ...string) (*image.Image, fs.FS) {
	t.Helper()
	img, err := image.Open(context.Background(), ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := img.ReadFiles(context.Background(), paths, image.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return img, fsys
}

func TestParseReference(t *testing.T) {
	tests := []struct {
		in                string
		kind              image.Kind
		path, tag, digest string
		err               string
	}{
		{in: "quay.io/org/bundle:v1", kind: image.KindRegistry, tag: "v1"},
		{in: "quay.io/org/bundle", kind: image.KindRegistry, tag: "latest"},
		{in: "localhost:5000/b@sha256:" + strings.Repeat("a", 64), kind: image.KindRegistry, digest: "sha256:" + strings.Repeat("a", 64)},
		{in: "oci:./layout", kind: image.KindOCILayout, path: "./layout"},
		{in: "oci:/tmp/l:v1.2", kind: image.KindOCILayout, path: "/tmp/l", tag: "v1.2"},
		{in: "oci:l@sha256:" + strings.Repeat("b", 64), kind: image.KindOCILayout, path: "l", digest: "sha256:" + strings.Repeat("b", 64)},
		{in: "oci-archive:x.tar", kind: image.KindOCIArchive, path: "x.tar"},
		{in: "docker-archive:x.tar", kind: image.KindDockerArchive, path: "x.tar"},
		{in: "docker-archive:x.tar:example.com/b:v1", kind: image.KindDockerArchive, path: "x.tar", tag: "example.com/b:v1"},
		{in: "", err: "empty"},
		{in: "Quay.io/UPPER:tag", err: `invalid image reference "Quay.io/UPPER:tag"`},
		{in: "oci:", err: "missing directory path"},
		{in: "oci:l:bad tag", err: `tag "bad tag"`},
		{in: "oci:l:v1@sha256:" + strings.Repeat("b", 64), err: "not both"},
		{in: "oci:l@sha256:abc", err: "digest"},
		{in: "docker-archive:x.tar@sha256:" + strings.Repeat("b", 64), err: "not by digest"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := image.ParseReference(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != tt.kind || r.Path != tt.path || r.Tag != tt.tag || r.Digest != tt.digest || r.String() != tt.in {
				t.Errorf("got %+v", r)
			}
		})
	}
}

func TestOpenBundleFromRegistry(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	tagRef := reg.Push(t, "skupper/bundle:v1.5.3", img)
	for _, ref := range []string{tagRef, digestRef(t, reg.Host, "skupper/bundle", img)} {
		t.Run(ref, func(t *testing.T) {
			got, fsys := readAll(t, ref, testOptions(t), "manifests/", "/metadata")
			if got.Labels()[image.LabelBundlePackage] != "skupper-operator" {
				t.Errorf("labels = %v", got.Labels())
			}
			if got.Digest() != must(img.Digest()).String() || got.Ref() != ref || got.Platform() != "linux/amd64" {
				t.Errorf("digest %s ref %s platform %s", got.Digest(), got.Ref(), got.Platform())
			}
			for _, p := range []string{"manifests/skupper-operator.v1.5.3.clusterserviceversion.yaml", "metadata/annotations.yaml"} {
				want := must(os.ReadFile(filepath.Join(bundleDir, p)))
				if have := must(fs.ReadFile(fsys, p)); string(have) != string(want) {
					t.Errorf("%s differs from the bundle directory", p)
				}
			}
			if err := fstest.TestFS(fsys, "manifests/skupper-operator.v1.5.3.clusterserviceversion.yaml", "metadata/annotations.yaml"); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReadOnlyRequestedPaths(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	ref := reg.Push(t, "b:1", bundleImage(t, ""))
	_, fsys := readAll(t, ref, testOptions(t), "metadata")
	if got := image.Paths(fsys); len(got) != 1 || got[0] != "metadata/annotations.yaml" {
		t.Errorf("paths = %v", got)
	}
}

func TestIndexPicksPlatform(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	idx := must(imagetest.Index(bundleImage(t, "linux/amd64"), bundleImage(t, "linux/arm64")))
	ref := reg.Push(t, "multi:v1", idx)
	ctx := context.Background()
	for _, tt := range []struct{ platform, want, err string }{
		{"", "linux/amd64", ""},
		{"linux/arm64", "linux/arm64", ""},
		{"linux/s390x", "", "no image for platform linux/s390x (the index has: linux/amd64, linux/arm64)"},
		{"linux", "", `invalid platform "linux"`},
	} {
		opts := testOptions(t)
		opts.Platform = tt.platform
		img, err := image.Open(ctx, ref, opts)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.platform, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if img.Platform() != tt.want {
			t.Errorf("%s: got %s", tt.platform, img.Platform())
		}
	}
}

func TestCatalogImage(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	ref := reg.Push(t, "catalog:latest", must(imagetest.CatalogImage(catalogDir, "")))
	img, fsys := readAll(t, ref, testOptions(t), "/configs")
	if img.Labels()[image.LabelCatalogConfigs] != "/configs" {
		t.Errorf("labels %v", img.Labels())
	}
	want := must(os.ReadFile(filepath.Join(catalogDir, "catalog.json")))
	if got := must(fs.ReadFile(fsys, "configs/catalog.json")); string(got) != string(want) {
		t.Error("configs/catalog.json differs")
	}
}

func TestLocalSources(t *testing.T) {
	dir := t.TempDir()
	a, b := bundleImage(t, "linux/amd64"), must(imagetest.CatalogImage(catalogDir, ""))
	one := filepath.Join(dir, "one")
	if err := imagetest.WriteLayout(one, a, ""); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two")
	if err := imagetest.WriteLayout(two, a, "v1"); err != nil {
		t.Fatal(err)
	}
	if err := imagetest.WriteLayout(two, b, "catalog"); err != nil {
		t.Fatal(err)
	}
	multi := filepath.Join(dir, "multi")
	if err := imagetest.WriteLayout(multi, must(imagetest.Index(a, bundleImage(t, "linux/arm64"))), "bundle"); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "one.tar")
	if err := imagetest.WriteOCIArchive(archive, a, "v1"); err != nil {
		t.Fatal(err)
	}
	docker := filepath.Join(dir, "docker.tar")
	if err := imagetest.WriteDockerArchive(docker, map[string]v1.Image{"example.com/bundle:v1": a, "example.com/catalog:v1": b}); err != nil {
		t.Fatal(err)
	}
	// A gzipped copy of the archive: refused, archives are read in place.
	gzipped := filepath.Join(dir, "one.tar.gz")
	var gzBuf bytes.Buffer
	zw := gzip.NewWriter(&gzBuf)
	zw.Write(must(os.ReadFile(archive)))
	zw.Close()
	if err := os.WriteFile(gzipped, gzBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	aDigest := must(a.Digest()).String()
	for _, tt := range []struct{ ref, label, err string }{
		{ref: "oci:" + one, label: image.LabelBundlePackage},
		{ref: "oci:" + two + ":catalog", label: image.LabelCatalogConfigs},
		{ref: "oci:" + two + ":v1", label: image.LabelBundlePackage},
		{ref: "oci:" + two + "@" + aDigest, label: image.LabelBundlePackage},
		{ref: "oci:" + two, err: "the layout holds 2 images: add :NAME or @DIGEST to choose one (names: catalog, v1)"},
		{ref: "oci:" + two + ":nope", err: `no image named "nope" in the layout (names: catalog, v1)`},
		{ref: "oci:" + multi, label: image.LabelBundlePackage},
		{ref: "oci:" + archive, err: "is not a directory"},
		{ref: "oci:" + filepath.Join(dir, "missing"), err: "no such file"},
		{ref: "oci-archive:" + archive, label: image.LabelBundlePackage},
		{ref: "oci-archive:" + archive + ":v1", label: image.LabelBundlePackage},
		{ref: "docker-archive:" + docker + ":example.com/catalog:v1", label: image.LabelCatalogConfigs},
		{ref: "docker-archive:" + docker + ":example.com/bundle:v1", label: image.LabelBundlePackage},
		{ref: "docker-archive:" + docker, err: "the archive holds 2 images: add :REPO:TAG to choose one (it has: example.com/bundle:v1, example.com/catalog:v1)"},
		{ref: "docker-archive:" + docker + ":example.com/other:v1", err: "no image example.com/other:v1 in the archive"},
		{ref: "docker-archive:" + archive, err: "not a docker archive"},
		{ref: "oci-archive:" + gzipped, err: "one.tar.gz is compressed: decompress it first"},
		{ref: "docker-archive:" + gzipped, err: "one.tar.gz is compressed: decompress it first"},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			opts := testOptions(t)
			opts.Offline = true // local sources never need the network
			img, err := image.Open(context.Background(), tt.ref, opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if !strings.Contains(err.Error(), tt.ref) {
					t.Errorf("error does not name the reference: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := img.Labels()[tt.label]; !ok {
				t.Fatalf("labels %v lack %s", img.Labels(), tt.label)
			}
			fsys, err := img.ReadFiles(context.Background(), []string{"manifests", "metadata", "configs"}, image.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(image.Paths(fsys)) == 0 {
				t.Error("read no files")
			}
		})
	}
}

// layoutOf writes an image made of hand-written layers (base first) to an
// OCI layout and returns its reference.
func layoutOf(t testing.TB, layers ...[]imagetest.Entry) string {
	t.Helper()
	var ls []v1.Layer
	for _, es := range layers {
		ls = append(ls, must(imagetest.Layer(es...)))
	}
	img := must(imagetest.Image(imagetest.Config{Labels: map[string]string{"x": "y"}}, ls...))
	dir := filepath.Join(t.TempDir(), "layout")
	if err := imagetest.WriteLayout(dir, img, ""); err != nil {
		t.Fatal(err)
	}
	return "oci:" + dir
}

func file(name, body string) imagetest.Entry { return imagetest.Entry{Name: name, Body: []byte(body)} }

func TestLayerSemantics(t *testing.T) {
	type E = imagetest.Entry
	tests := []struct {
		name   string
		layers [][]E
		paths  []string
		limits image.Limits
		want   map[string]string // files and contents
		err    string
	}{
		{
			name:   "upper layer wins",
			layers: [][]E{{file("configs/a.json", "old"), file("configs/b.json", "b")}, {file("configs/a.json", "new")}},
			want:   map[string]string{"configs/a.json": "new", "configs/b.json": "b"},
		},
		{
			name:   "whiteout deletes a file",
			layers: [][]E{{file("configs/a.json", "a"), file("configs/b.json", "b")}, {file("configs/.wh.a.json", "")}},
			want:   map[string]string{"configs/b.json": "b"},
		},
		{
			name:   "whiteout of the read directory itself",
			layers: [][]E{{file("configs/a.json", "a")}, {file(".wh.configs", "")}, {file("configs/c.json", "c")}},
			want:   map[string]string{"configs/c.json": "c"},
		},
		{
			name: "opaque directory hides lower content only",
			layers: [][]E{
				{file("configs/a.json", "a"), file("configs/sub/b.json", "b")},
				{file("configs/.wh..wh..opq", ""), file("configs/c.json", "c")},
			},
			want: map[string]string{"configs/c.json": "c"},
		},
		{
			name:   "file replacing a directory hides its lower children",
			layers: [][]E{{file("configs/d/a.json", "a")}, {file("configs/d", "now a file")}},
			want:   map[string]string{"configs/d": "now a file"},
		},
		{
			name:   "entries outside the paths are not read",
			layers: [][]E{{file("etc/passwd", "root"), file("configs/a.json", "a"), file("configsx/b", "b")}},
			want:   map[string]string{"configs/a.json": "a"},
		},
		{
			name:   "leading ./ is accepted",
			layers: [][]E{{{Name: "./", Type: tar.TypeDir}, file("./configs/a.json", "a")}},
			want:   map[string]string{"configs/a.json": "a"},
		},
		{
			name:   "symlink to a file inside the tree is resolved",
			layers: [][]E{{file("configs/real.json", "r"), {Name: "configs/link.json", Type: tar.TypeSymlink, Linkname: "real.json"}, {Name: "configs/abs.json", Type: tar.TypeSymlink, Linkname: "/configs/link.json"}}},
			want:   map[string]string{"configs/real.json": "r", "configs/link.json": "r", "configs/abs.json": "r"},
		},
		{
			name:   "hard link within the layer",
			layers: [][]E{{file("configs/real.json", "r"), {Name: "configs/hard.json", Type: tar.TypeLink, Linkname: "configs/real.json"}}},
			want:   map[string]string{"configs/real.json": "r", "configs/hard.json": "r"},
		},
		{
			name:   "path traversal",
			layers: [][]E{{file("configs/../../etc/evil", "x")}},
			err:    `entry "configs/../../etc/evil": path traversal ("..") in a layer`,
		},
		{
			name:   "traversal outside the read paths is still an error",
			layers: [][]E{{file("../evil", "x"), file("configs/a.json", "a")}},
			err:    `entry "../evil": path traversal`,
		},
		{
			name:   "absolute path",
			layers: [][]E{{file("/configs/a.json", "x")}},
			err:    `entry "/configs/a.json": absolute path in a layer`,
		},
		{
			name:   "symlink escaping the image",
			layers: [][]E{{{Name: "configs/x", Type: tar.TypeSymlink, Linkname: "../../../etc/passwd"}}},
			err:    `entry "configs/x": symbolic link to "../../../etc/passwd" leads out of the image`,
		},
		{
			name:   "symlink outside the read paths",
			layers: [][]E{{file("etc/passwd", "root"), {Name: "configs/x", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}}},
			err:    "leads to etc/passwd, which is not among the files read",
		},
		{
			name:   "symlink to a directory",
			layers: [][]E{{file("configs/d/a", "a"), {Name: "configs/x", Type: tar.TypeSymlink, Linkname: "d"}}},
			err:    "leads to a directory (configs/d)",
		},
		{
			name:   "symlink loop",
			layers: [][]E{{{Name: "configs/a", Type: tar.TypeSymlink, Linkname: "b"}, {Name: "configs/b", Type: tar.TypeSymlink, Linkname: "a"}}},
			err:    "is part of a loop",
		},
		{
			name:   "hard link to a file not read",
			layers: [][]E{{file("etc/passwd", "root"), {Name: "configs/x", Type: tar.TypeLink, Linkname: "etc/passwd"}}},
			err:    `hard link to "etc/passwd", which is not a file read earlier in this layer`,
		},
		{
			name:   "fifo",
			layers: [][]E{{{Name: "configs/p", Type: tar.TypeFifo}}},
			err:    "device or fifo",
		},
		{
			name:   "file over the size limit",
			layers: [][]E{{{Name: "configs/big.json", Size: 2048}}},
			limits: image.Limits{MaxFileSize: 1024},
			err:    `entry "configs/big.json": file of 2048 bytes is over the 1024-byte limit`,
		},
		{
			name:   "total over the limit",
			layers: [][]E{{file("configs/a", "12345"), file("configs/b", "12345")}},
			limits: image.Limits{MaxTotalSize: 8},
			err:    `entry "configs/b": files read exceed the 8-byte total limit`,
		},
		{
			name:   "too many entries",
			layers: [][]E{{file("configs/a", ""), file("configs/b", ""), file("configs/c", "")}},
			limits: image.Limits{MaxEntries: 2},
			err:    `entry "configs/c": more than 2 entries`,
		},
		{
			name:   "too many whiteouts",
			layers: [][]E{{file("configs/a", "")}, {{Name: "configs/.wh.b"}, {Name: "configs/.wh.c"}, {Name: "configs/.wh.d"}}},
			limits: image.Limits{MaxEntries: 2},
			err:    `entry "configs/.wh.d": more than 2 entries`,
		},
		{
			name:   "bad read path",
			layers: [][]E{{file("configs/a", "")}},
			paths:  []string{"../x"},
			err:    `path "../x": ".." not allowed`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := layoutOf(t, tt.layers...)
			img, err := image.Open(context.Background(), ref, testOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			paths := tt.paths
			if paths == nil {
				paths = []string{"configs"}
			}
			fsys, err := img.ReadFiles(context.Background(), paths, tt.limits)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if !strings.Contains(err.Error(), ref) {
					t.Errorf("error does not name the image: %v", err)
				}
				var ce *image.ContentError
				if tt.paths == nil && !errors.As(err, &ce) {
					t.Errorf("not a ContentError: %T", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range image.Paths(fsys) {
				got[p] = string(must(fs.ReadFile(fsys, p)))
			}
			if len(got) != len(tt.want) {
				t.Errorf("files = %v, want %v", got, tt.want)
			}
			for p, w := range tt.want {
				if got[p] != w {
					t.Errorf("%s = %q, want %q", p, got[p], w)
				}
			}
		})
	}
}

func TestCorruptBlob(t *testing.T) {
	for _, tt := range []struct {
		how  imagetest.Corruption
		want string
	}{
		{imagetest.Flip, "digest mismatch"},
		{imagetest.Truncate, "truncated"},
	} {
		reg := imagetest.NewRegistry(t)
		img := bundleImage(t, "")
		ref := reg.Push(t, "b:1", img)
		layers := must(img.Layers())
		layerDigest := must(layers[0].Digest()).String()
		reg.Corrupt(layerDigest, tt.how)
		opts := testOptions(t)
		got, err := image.Open(context.Background(), ref, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = got.ReadFiles(context.Background(), []string{"manifests"}, image.Limits{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), layerDigest) || !strings.Contains(err.Error(), ref) {
			t.Errorf("corruption %d: err = %v", tt.how, err)
		}
		// Nothing damaged is left in the cache.
		if _, err := os.Stat(filepath.Join(opts.CacheDir, "blobs", "sha256", strings.TrimPrefix(layerDigest, "sha256:"))); err == nil {
			t.Errorf("corruption %d: damaged blob cached", tt.how)
		}
	}
}

func TestCorruptConfig(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	ref := reg.Push(t, "b:1", img)
	cfg := must(img.ConfigName()).String()
	reg.Corrupt(cfg, imagetest.Flip)
	_, err := image.Open(context.Background(), ref, testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "config "+cfg) || !strings.Contains(err.Error(), "digest mismatch") {
		t.Errorf("err = %v", err)
	}
}

func TestRetries(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	ref := reg.Push(t, "b:1", bundleImage(t, ""))

	reg.FailNext(2, 500)
	var log warnings
	opts := testOptions(t)
	opts.Warn = log.add
	readAll(t, ref, opts, "manifests")
	if n := strings.Count(log.String(), "retrying"); n != 2 {
		t.Errorf("want 2 retries logged, got:\n%s", log.String())
	}

	reg.FailNext(10, 503)
	_, err := image.Open(context.Background(), ref, testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "503 service unavailable") || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("err = %v", err)
	}

	// Not transient: no retry.
	reg.FailNext(1, 400)
	reg.Reset()
	opts = testOptions(t)
	opts.Retries = 5
	if _, err := image.Open(context.Background(), ref, opts); err == nil {
		t.Error("400 did not fail")
	}
	if n := len(reg.Requests()); n != 1 {
		t.Errorf("400 was retried: %d requests", n)
	}
}

func TestAuth(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	reg.RequireAuth("alice", "s3cret")
	ref := reg.Push(t, "private/b:1", bundleImage(t, ""))

	_, err := image.Open(context.Background(), ref, testOptions(t))
	want := "401 unauthorized: UNAUTHORIZED authentication required: check credentials in ~/.docker/config.json (or $DOCKER_CONFIG) or run `docker login " + reg.Host + "`"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "pulling "+ref+": ") {
		t.Errorf("err = %v\nwant %s", err, want)
	}

	// Credentials come from the Docker config file the keychain reads.
	dir := t.TempDir()
	cfg := `{"auths":{"` + reg.Host + `":{"auth":"YWxpY2U6czNjcmV0"}}}` // alice:s3cret
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	opts := testOptions(t)
	opts.Keychain = authn.DefaultKeychain
	readAll(t, ref, opts, "manifests")
}

func TestRegistryDown(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	host := reg.Host
	reg.Server.Close()
	start := time.Now()
	_, err := image.Open(context.Background(), host+"/b:1", testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v", err)
	}
	var re *image.RegistryError
	if errors.As(err, &re) {
		t.Errorf("a refused connection is not a registry answer: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: a refused connection must not be retried for long", d)
	}
}

func TestNotFound(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	_, err := image.Open(context.Background(), reg.Host+"/nope:1", testOptions(t))
	if err == nil || !strings.Contains(err.Error(), "404 not found") || !strings.Contains(err.Error(), "no such image") {
		t.Errorf("err = %v", err)
	}
}

func TestWarmCacheMakesNoRequest(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	reg.Push(t, "b:1", img)
	ref := digestRef(t, reg.Host, "b", img)
	opts := testOptions(t)
	readAll(t, ref, opts, "manifests", "metadata")
	if len(reg.Requests()) == 0 {
		t.Fatal("cold pull made no request")
	}
	reg.Reset()
	_, fsys := readAll(t, ref, opts, "manifests", "metadata")
	if r := reg.Requests(); len(r) != 0 {
		t.Errorf("warm digest pull made requests: %v", r)
	}
	if len(image.Paths(fsys)) != 2 {
		t.Errorf("paths %v", image.Paths(fsys))
	}
}

func TestOffline(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	tagRef := reg.Push(t, "b:1", img)
	dRef := digestRef(t, reg.Host, "b", img)
	opts := testOptions(t)
	opts.Offline = true

	_, err := image.Open(context.Background(), dRef, opts)
	if err == nil || !strings.Contains(err.Error(), "offline: manifest "+must(img.Digest()).String()+" is not in the cache "+opts.CacheDir) {
		t.Errorf("cold digest: %v", err)
	}
	_, err = image.Open(context.Background(), tagRef, opts)
	if err == nil || !strings.Contains(err.Error(), "offline: no cached digest for "+tagRef) {
		t.Errorf("cold tag: %v", err)
	}
	if r := reg.Requests(); len(r) != len(reg.Requests()) || containsGet(r) {
		t.Errorf("offline made requests: %v", r)
	}

	// Warm the cache online by tag, but read only the config: offline the
	// layers are then missing, named.
	online := opts
	online.Offline = false
	if _, err := image.Open(context.Background(), tagRef, online); err != nil {
		t.Fatal(err)
	}
	reg.Reset()
	got, err := image.Open(context.Background(), tagRef, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest() != must(img.Digest()).String() {
		t.Errorf("offline tag resolved to %s", got.Digest())
	}
	_, err = got.ReadFiles(context.Background(), []string{"manifests"}, image.Limits{})
	layer := must(must(img.Layers())[0].Digest()).String()
	if err == nil || !strings.Contains(err.Error(), "offline: blob "+layer+" is not in the cache") {
		t.Errorf("offline layer: %v", err)
	}
	if r := reg.Requests(); len(r) != 0 {
		t.Errorf("offline made requests: %v", r)
	}
}

func containsGet(reqs []string) bool {
	for _, r := range reqs {
		if strings.HasPrefix(r, "GET /v2/b/") {
			return true
		}
	}
	return false
}

func TestDamagedCacheIsRefetched(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	reg.Push(t, "b:1", img)
	ref := digestRef(t, reg.Host, "b", img)
	opts := testOptions(t)
	readAll(t, ref, opts, "manifests")
	layer := must(must(img.Layers())[0].Digest())
	p := filepath.Join(opts.CacheDir, "blobs", "sha256", layer.Hex)
	data := must(os.ReadFile(p))
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The manifest is damaged too.
	mp := filepath.Join(opts.CacheDir, "blobs", "sha256", must(img.Digest()).Hex)
	if err := os.WriteFile(mp, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg.Reset()
	var log warnings
	opts.Warn = log.add
	_, fsys := readAll(t, ref, opts, "manifests")
	if len(image.Paths(fsys)) != 1 || !strings.Contains(log.String(), "digest mismatch") {
		t.Errorf("paths %v, log %s", image.Paths(fsys), log.String())
	}
	if len(reg.Requests()) == 0 {
		t.Error("damaged blobs were not fetched again")
	}
	// And the cache is whole again.
	reg.Reset()
	readAll(t, ref, opts, "manifests")
	if r := reg.Requests(); len(r) != 0 {
		t.Errorf("requests after repair: %v", r)
	}
}

func TestNoCache(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	ref := reg.Push(t, "b:1", bundleImage(t, ""))
	opts := testOptions(t)
	opts.NoCache = true
	readAll(t, ref, opts, "manifests")
	if entries, _ := os.ReadDir(opts.CacheDir); len(entries) != 0 {
		t.Errorf("NoCache wrote %v", entries)
	}
}

func TestOptionsChecked(t *testing.T) {
	_, err := image.NewClient(image.Options{UseHTTP: true, SkipTLSVerify: true})
	if err == nil || !strings.Contains(err.Error(), "cannot both be set") {
		t.Errorf("err = %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	_, err = image.NewClient(image.Options{CacheDir: filepath.Join(f, "sub")})
	if err == nil || !strings.Contains(err.Error(), "cache directory") {
		t.Errorf("err = %v", err)
	}
}

// TestLayerCompressions reads gzip, zstd and uncompressed layers, stacked.
func TestLayerCompressions(t *testing.T) {
	tarOf := func(entries ...imagetest.Entry) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) {
			pr, pw := io.Pipe()
			go func() {
				tw := tar.NewWriter(pw)
				for _, e := range entries {
					tw.WriteHeader(&tar.Header{Name: e.Name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e.Body))})
					tw.Write(e.Body)
				}
				pw.CloseWithError(tw.Close())
			}()
			return pr, nil
		}
	}
	gz := must(imagetest.Layer(file("configs/gzip.json", "g"), file("configs/shared.json", "from gzip")))
	zst := must(tarball.LayerFromOpener(tarOf(file("configs/zstd.json", "z"), file("configs/shared.json", "from zstd")),
		tarball.WithCompression(compression.ZStd), tarball.WithMediaType(types.OCILayerZStd)))
	// An uncompressed blob: the layer's "compressed" bytes are the tar.
	var plainTar bytes.Buffer
	rc, _ := tarOf(file("configs/plain.json", "p"))()
	io.Copy(&plainTar, rc)
	plain := static.NewLayer(plainTar.Bytes(), types.OCIUncompressedLayer)

	img := must(imagetest.Image(imagetest.Config{}, gz, zst, plain))
	dir := filepath.Join(t.TempDir(), "layout")
	if err := imagetest.WriteLayout(dir, img, ""); err != nil {
		t.Fatal(err)
	}
	_, fsys := readAll(t, "oci:"+dir, testOptions(t), "configs")
	want := map[string]string{"configs/gzip.json": "g", "configs/zstd.json": "z", "configs/plain.json": "p", "configs/shared.json": "from zstd"}
	for p, w := range want {
		if got, err := fs.ReadFile(fsys, p); err != nil || string(got) != w {
			t.Errorf("%s = %q, %v; want %q", p, got, err, w)
		}
	}
}

func TestStalledDownload(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	ref := reg.Push(t, "b:1", img)
	layer := must(must(img.Layers())[0].Digest()).String()
	reg.Corrupt(layer, imagetest.Stall)
	opts := testOptions(t)
	opts.Timeout = time.Second // short, but long enough for the other requests on a loaded machine
	opts.Retries = 1
	got, err := image.Open(context.Background(), ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = got.ReadFiles(context.Background(), []string{"manifests"}, image.Limits{})
	if err == nil || !strings.Contains(err.Error(), "no data for 1s") || !strings.Contains(err.Error(), "after 2 attempts") || !strings.Contains(err.Error(), layer) {
		t.Errorf("err = %v", err)
	}
}

// TestSharedCacheConcurrently pulls the same images from several clients at
// once into one cache (run with -race): every pull reads whole content.
func TestSharedCacheConcurrently(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "")
	reg.Push(t, "b:1", img)
	refs := []string{digestRef(t, reg.Host, "b", img), reg.Host + "/b:1"}
	opts := testOptions(t)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			c, err := image.NewClient(opts)
			if err == nil {
				for _, ref := range refs {
					var img *image.Image
					if img, err = c.Open(context.Background(), ref); err != nil {
						break
					}
					fsys, rerr := img.ReadFiles(context.Background(), []string{"manifests", "metadata"}, image.Limits{})
					if err = rerr; err == nil && len(image.Paths(fsys)) != 2 {
						err = fmt.Errorf("read %v", image.Paths(fsys))
					}
					if err != nil {
						break
					}
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(opts.CacheDir, "blobs", "sha256", ".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

type countingTransport struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func TestCustomTransport(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	ref := reg.Push(t, "b:1", bundleImage(t, ""))
	reg.Reset()
	ct := &countingTransport{next: http.DefaultTransport}
	opts := testOptions(t)
	opts.Transport = ct
	readAll(t, ref, opts, "manifests")
	// The client also tries HTTPS first when pinging 127.0.0.1, which the
	// plain-HTTP registry never sees as a request: one more at most.
	if got, want := ct.n.Load(), int64(len(reg.Requests())); want == 0 || got < want || got > want+1 {
		t.Errorf("transport saw %d requests, registry %d", got, want)
	}
}

// warnings collects what a client warns, one line each.
type warnings struct {
	mu    sync.Mutex
	lines strings.Builder
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines.WriteString(msg + "\n")
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines.String()
}

// TestInterruptedDownloadResumes: a layer download cut short or stalled once
// is resumed by the transport (the blob is asked again and the bytes already
// read skipped), and the result is the whole, verified layer.
func TestInterruptedDownloadResumes(t *testing.T) {
	for _, how := range []imagetest.Corruption{imagetest.Truncate, imagetest.Stall} {
		reg := imagetest.NewRegistry(t)
		img := bundleImage(t, "")
		ref := reg.Push(t, "b:1", img)
		layer := must(must(img.Layers())[0].Digest()).String()
		reg.CorruptNext(1, layer, how)
		var log warnings
		opts := testOptions(t)
		opts.Warn = log.add
		// A stall must outlast the timeout; every other request must not,
		// even on a loaded machine, or it would count as a second retry.
		opts.Timeout = 10 * time.Second
		if how == imagetest.Stall {
			opts.Timeout = time.Second
		}
		_, fsys := readAll(t, ref, opts, "manifests", "metadata")
		want := must(os.ReadFile(filepath.Join(bundleDir, "metadata/annotations.yaml")))
		if got := must(fs.ReadFile(fsys, "metadata/annotations.yaml")); string(got) != string(want) {
			t.Errorf("corruption %d: annotations.yaml differs", how)
		}
		if n := strings.Count(log.String(), "retrying"); n != 1 || !strings.Contains(log.String(), "blobs/"+layer) {
			t.Errorf("corruption %d: want one retry naming the blob, log:\n%s", how, log.String())
		}
		gets := 0
		for _, r := range reg.Requests() {
			if r == "GET /v2/b/blobs/"+layer {
				gets++
			}
		}
		if gets != 2 {
			t.Errorf("corruption %d: blob asked %d times, want 2", how, gets)
		}
		// What was cached is whole: offline reads it.
		opts.Offline = true
		readAll(t, ref, opts, "manifests")
	}
}

// TestPushRetried: a failed upload is retried as a whole push, under the
// retry policy of pulls, and what was pushed is the image.
func TestPushRetried(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(`{"schema":"olm.package","name":"p"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var log warnings
	opts := testOptions(t)
	opts.Warn = log.add
	reg.FailNextMethod(1, http.MethodPut, http.StatusServiceUnavailable)
	res, err := image.Build(context.Background(), dir, image.BuildOptions{BaseImage: image.Scratch, Pull: opts},
		image.BuildTargets{Tag: reg.Host + "/catalog:v1", Push: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "pushing "+reg.Host+"/catalog:v1: PUT ") || !strings.Contains(log.String(), "retrying") {
		t.Errorf("log:\n%s", log.String())
	}
	got, err := image.Open(context.Background(), res.Pushed, testOptions(t))
	if err != nil || got.Digest() != res.Digest {
		t.Errorf("pushed %s: %v", res.Pushed, err)
	}

	// Not forever.
	reg.FailNextMethod(100, http.MethodPut, http.StatusServiceUnavailable)
	opts.Retries = 1
	_, err = image.Build(context.Background(), dir, image.BuildOptions{BaseImage: image.Scratch, Pull: opts},
		image.BuildTargets{Tag: reg.Host + "/catalog:v2", Push: true})
	if err == nil || !strings.Contains(err.Error(), "503 service unavailable") || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Errorf("err = %v", err)
	}
}
