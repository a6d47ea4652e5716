package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// writeTree creates files (path -> content) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var sampleCatalog = map[string]string{
	"pkg-b/catalog.json":    `{"schema":"olm.package","name":"pkg-b"}`,
	"pkg-a/catalog.yaml":    "schema: olm.package\nname: pkg-a\n",
	"pkg-a/extra/more.yaml": "schema: olm.package\nname: pkg-c\n",
	".indexignore":          "README.md\n",
	"README.md":             "not catalog content\n",
}

type layerEntry struct {
	name     string
	typ      byte
	mode     int64
	uid, gid int
	uname    string
	mtime    time.Time
	body     string
}

func layerEntries(t *testing.T, l v1.Layer) []layerEntry {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var out []layerEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if len(h.PAXRecords) > 0 { // extended attributes travel as PAX records
			t.Errorf("%s: unexpected extended attributes %v", h.Name, h.PAXRecords)
		}
		out = append(out, layerEntry{h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid, h.Uname, h.ModTime, string(body)})
	}
}

func TestCatalogLayerIsReproducible(t *testing.T) {
	ctx := context.Background()
	dir := writeTree(t, sampleCatalog)
	first, err := buildCatalogLayer(ctx, dir, time.Unix(0, 0), types.OCILayer, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer first.remove()

	// Nothing about the files but their names and content may matter:
	// change modes, times and the umask-ish bits, then build again.
	later := time.Now().Add(-time.Hour)
	for _, p := range []string{"pkg-a/catalog.yaml", "pkg-b/catalog.json"} {
		full := filepath.Join(dir, p)
		if err := os.Chmod(full, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, later, later); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "pkg-a", "extra"), 0o700); err != nil {
		t.Fatal(err)
	}
	second, err := buildCatalogLayer(ctx, dir, time.Unix(0, 0), types.OCILayer, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer second.remove()
	if first.digest != second.digest || first.diffID != second.diffID {
		t.Errorf("digests differ: %s/%s vs %s/%s", first.digest, first.diffID, second.digest, second.diffID)
	}

	entries := layerEntries(t, second)
	var names []string
	for _, e := range entries {
		names = append(names, e.name)
		wantMode := int64(0o644)
		if e.typ == tar.TypeDir {
			wantMode = 0o755
		}
		if e.mode != wantMode || e.uid != 0 || e.gid != 0 || e.uname != "" || !e.mtime.Equal(time.Unix(0, 0)) {
			t.Errorf("%s: mode %o uid %d gid %d uname %q mtime %v", e.name, e.mode, e.uid, e.gid, e.uname, e.mtime)
		}
	}
	want := []string{
		"configs/", "configs/.indexignore", "configs/README.md",
		"configs/pkg-a/", "configs/pkg-a/catalog.yaml", "configs/pkg-a/extra/", "configs/pkg-a/extra/more.yaml",
		"configs/pkg-b/", "configs/pkg-b/catalog.json",
	}
	if !slices.Equal(names, want) {
		t.Errorf("entries:\n got %q\nwant %q", names, want)
	}

	// A different time (SOURCE_DATE_EPOCH) is a different layer.
	third, err := buildCatalogLayer(ctx, dir, time.Unix(1700000000, 0), types.OCILayer, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer third.remove()
	if third.digest == first.digest {
		t.Error("mtime does not reach the layer")
	}
}

func TestCatalogLayerLinksAndSpecialFiles(t *testing.T) {
	ctx := context.Background()
	dir := writeTree(t, map[string]string{"pkg/catalog.yaml": "schema: olm.package\nname: pkg\n", "shared/real.yaml": "schema: olm.package\nname: linked\n"})
	if err := os.Symlink(filepath.Join("..", "shared", "real.yaml"), filepath.Join(dir, "pkg", "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	l, err := buildCatalogLayer(ctx, dir, time.Unix(0, 0), types.OCILayer, tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer l.remove()
	// The layer's file is unlinked from the start: a killed build leaves
	// nothing in the temporary directory.
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("layer file visible in %s while the layer is in use: %v", tmp, left)
	}
	var found bool
	for _, e := range layerEntries(t, l) {
		if e.name == "configs/pkg/linked.yaml" {
			found = true
			if e.typ != tar.TypeReg || e.body != "schema: olm.package\nname: linked\n" {
				t.Errorf("link stored as type %c with %q, want the target's content", e.typ, e.body)
			}
		}
	}
	if !found {
		t.Error("linked file missing from the layer")
	}

	outside := writeTree(t, map[string]string{"real.yaml": "schema: olm.package\nname: linked\n", "dir/x.yaml": "x: 1\n"})
	for _, tc := range []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"link outside", func(dir string) error {
			return os.Symlink(filepath.Join(outside, "real.yaml"), filepath.Join(dir, "pkg", "out.yaml"))
		}, "symbolic link to " + filepath.Join(outside, "real.yaml") + ", which is outside"},
		{"directory link", func(dir string) error { return os.Symlink("..", filepath.Join(dir, "pkg", "dirlink")) }, "symbolic link to a directory"},
		{"dangling link", func(dir string) error { return os.Symlink("/nonexistent/x", filepath.Join(dir, "pkg", "gone.yaml")) }, "cannot be followed"},
		{"fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "pkg", "pipe"), 0o644) }, "pkg/pipe: not a regular file (a named pipe): remove it from the catalog directory"},
		{"link to a fifo", func(dir string) error {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				return err
			}
			return os.Symlink("../pipe", filepath.Join(dir, "pkg", "a.yaml"))
		}, "not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"pkg/catalog.yaml": "schema: olm.package\nname: pkg\n"})
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			_, err := buildCatalogLayer(ctx, dir, time.Unix(0, 0), types.OCILayer, tmp)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("layer file left behind: %v", left)
			}
		})
	}
}

// No byte of a file outside the catalog directory reaches a layer, however
// the link to it is made or hidden: a pull request must not be able to ship
// a CI secret (~/.docker/config.json) in a catalog image.
func TestCatalogLayerKeepsOutsideFilesOut(t *testing.T) {
	ctx := context.Background()
	secret := "SECRET-7f3a9c-do-not-publish"
	home := writeTree(t, map[string]string{".docker/config.json": `{"auths":{"quay.io":{"auth":"` + secret + `"}}}`})
	target := filepath.Join(home, ".docker", "config.json")
	for _, tc := range []struct {
		name  string
		files map[string]string
		link  string // path of the link in the catalog
		to    func(dir string) string
		named string // the link the error names (default link)
	}{
		{"absolute", nil, "pkg/notes.json", func(string) string { return target }, ""},
		{"relative", nil, "pkg/notes.json", func(dir string) string {
			rel, _ := filepath.Rel(filepath.Join(dir, "pkg"), target)
			return rel
		}, ""},
		{"hidden by .indexignore", map[string]string{".indexignore": "notes.json\n"}, "notes.json", func(string) string { return target }, ""},
		{"through a link inside", map[string]string{".indexignore": "hop\n"}, "pkg/notes.json", func(dir string) string {
			if err := os.Symlink(target, filepath.Join(dir, "hop")); err != nil {
				t.Fatal(err)
			}
			return "../hop"
		}, "hop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"pkg/catalog.yaml": "schema: olm.package\nname: pkg\n"}
			for k, v := range tc.files {
				files[k] = v
			}
			dir := writeTree(t, files)
			if err := os.Symlink(tc.to(dir), filepath.Join(dir, filepath.FromSlash(tc.link))); err != nil {
				t.Fatal(err)
			}
			l, err := buildCatalogLayer(ctx, dir, time.Unix(0, 0), types.OCILayer, t.TempDir())
			if err == nil {
				defer l.remove()
				for _, e := range layerEntries(t, l) {
					if strings.Contains(e.body, secret) {
						t.Fatalf("%s carries the outside file's content into the layer", e.name)
					}
				}
				t.Fatal("the build went on with a link that leads outside the catalog directory")
			}
			named := tc.link
			if tc.named != "" {
				named = tc.named // the first link of the walk that leads out
			}
			want := filepath.Join(dir, filepath.FromSlash(named)) + ": symbolic link to " + target + ", which is outside " + dir
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v\nwant it to name the link: %q", err, want)
			}
		})
	}
}

func TestBuildScratchImage(t *testing.T) {
	ctx := context.Background()
	dir := writeTree(t, sampleCatalog)
	build := func(opts BuildOptions) (*CatalogImage, string) {
		t.Helper()
		opts.BaseImage = Scratch
		ci, err := BuildCatalogImage(ctx, dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ci.Close() })
		d, err := ci.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return ci, d
	}
	ci, d1 := build(BuildOptions{Labels: map[string]string{"vendor": "Example"}})
	_, d2 := build(BuildOptions{Labels: map[string]string{"vendor": "Example"}})
	if d1 != d2 {
		t.Fatalf("two builds differ: %s vs %s", d1, d2)
	}
	_, d3 := build(BuildOptions{Labels: map[string]string{"vendor": "Other"}})
	_, d4 := build(BuildOptions{Labels: map[string]string{"vendor": "Example"}, Created: time.Unix(1700000000, 0)})
	if d3 == d1 || d4 == d1 {
		t.Error("labels or creation time do not reach the digest")
	}

	mt, _ := ci.img.MediaType()
	if mt != types.OCIManifestSchema1 {
		t.Errorf("media type %s", mt)
	}
	cf, err := ci.img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if cf.Config.Entrypoint != nil || cf.Config.Cmd != nil {
		t.Errorf("scratch image has entrypoint %q cmd %q", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	if cf.Config.Labels[ConfigsLabel] != "/configs" || cf.Config.Labels["vendor"] != "Example" {
		t.Errorf("labels %v", cf.Config.Labels)
	}
	if !cf.Created.Time.Equal(time.Unix(0, 0)) {
		t.Errorf("created %v", cf.Created)
	}
	layers, _ := ci.img.Layers()
	if len(layers) != 1 || len(cf.RootFS.DiffIDs) != 1 {
		t.Fatalf("%d layers, %d diff IDs", len(layers), len(cf.RootFS.DiffIDs))
	}

	if _, err := BuildCatalogImage(ctx, dir, BuildOptions{BaseImage: Scratch, Pull: Options{Platform: "linux"}}); err == nil {
		t.Error("bad platform accepted")
	}
	if _, err := BuildCatalogImage(ctx, dir, BuildOptions{BaseImage: Scratch, Labels: map[string]string{ConfigsLabel: "/x"}}); err == nil {
		t.Error("configs label override accepted")
	}
}

// testRegistry is go-containerregistry's in-process registry.
func testRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(discardLogger())))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func TestBuildOnBaseImageAndPush(t *testing.T) {
	ctx := context.Background()
	host := testRegistry(t)
	pull := Options{UseHTTP: true, NoCache: true}

	// A base image with two gzip layers, an entrypoint to be replaced, a
	// label to keep, and Docker media types.
	base, err := random.Image(512, 2)
	if err != nil {
		t.Fatal(err)
	}
	base, err = mutate.Config(base, v1.Config{Entrypoint: []string{"/bin/sh"}, Labels: map[string]string{"base.label": "kept"}, Env: []string{"PATH=/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	baseRef := host + "/opm:v1"
	if err := remote.Write(mustRef(t, baseRef), base); err != nil {
		t.Fatal(err)
	}
	baseDigest, _ := base.Digest()

	dir := writeTree(t, sampleCatalog)
	opts := BuildOptions{BaseImage: baseRef, Labels: map[string]string{"extra": "yes"}, Pull: pull}
	res, err := Build(ctx, dir, opts, BuildTargets{Tag: host + "/catalog:v1", Push: true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(ctx, dir, opts, BuildTargets{Tag: host + "/catalog:v2", Push: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Digest != again.Digest {
		t.Errorf("rebuild differs: %s vs %s", res.Digest, again.Digest)
	}
	if want := host + "/catalog@" + res.Digest; res.Pushed != want {
		t.Errorf("pushed %q, want %q", res.Pushed, want)
	}

	pushed, err := remote.Image(mustRef(t, res.Pushed))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := pushed.Digest(); d.String() != res.Digest {
		t.Errorf("registry has %s, build said %s", d, res.Digest)
	}
	cf, err := pushed.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{"/bin/opm"}) || !slices.Equal(cf.Config.Cmd, []string{"serve", "/configs"}) {
		t.Errorf("entrypoint %q cmd %q", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	for k, v := range map[string]string{"base.label": "kept", "extra": "yes", ConfigsLabel: "/configs"} {
		if cf.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cf.Config.Labels[k], v)
		}
	}
	if !slices.Equal(cf.Config.Env, []string{"PATH=/bin"}) {
		t.Errorf("env %q not inherited", cf.Config.Env)
	}
	layers, err := pushed.Layers()
	if err != nil {
		t.Fatal(err)
	}
	baseLayers, _ := base.Layers()
	if len(layers) != len(baseLayers)+1 {
		t.Fatalf("%d layers, want %d", len(layers), len(baseLayers)+1)
	}
	for i, bl := range baseLayers {
		want, _ := bl.Digest()
		got, _ := layers[i].Digest()
		if got != want {
			t.Errorf("base layer %d: %s, want the base's %s", i, got, want)
		}
	}
	m, _ := pushed.Manifest()
	if m.Annotations[annotationBaseDigest] != baseDigest.String() || m.Annotations[annotationBaseName] != baseRef {
		t.Errorf("manifest annotations %v", m.Annotations)
	}
	if m.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s", m.MediaType)
	}
	if n := len(cf.History); n < 3 || cf.History[n-1].CreatedBy == "" {
		t.Errorf("history %v", cf.History)
	}
}

func TestBuildOutputs(t *testing.T) {
	ctx := context.Background()
	dir := writeTree(t, sampleCatalog)
	out := t.TempDir()
	ociDir := filepath.Join(out, "layout")
	archive := filepath.Join(out, "catalog.tar")
	targets := BuildTargets{
		Tag:     "quay.io/example/catalog:v1",
		Outputs: []string{"oci:" + ociDir, "docker-archive:" + archive},
	}
	res, err := Build(ctx, dir, BuildOptions{BaseImage: Scratch}, targets)
	if err != nil {
		t.Fatal(err)
	}

	idx, err := layout.ImageIndexFromPath(ociDir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest.String() != res.Digest || im.Manifests[0].Annotations[annotationRefName] != "v1" {
		t.Errorf("layout index %+v, want one manifest %s named v1", im.Manifests, res.Digest)
	}

	// Anyone can read the outputs, as any file tree: go-containerregistry
	// writes blobs 0600 and index.json 0755.
	checkMode := func(p string, want fs.FileMode) {
		t.Helper()
		if st, err := os.Stat(p); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}
	filepath.WalkDir(ociDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDir() {
			checkMode(p, 0o755)
		} else {
			checkMode(p, 0o644)
		}
		return nil
	})
	checkMode(archive, 0o644)

	tag, _ := name.NewTag("quay.io/example/catalog:v1")
	fromArchive, err := tarball.ImageFromPath(archive, &tag)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := BuildCatalogImage(ctx, dir, BuildOptions{BaseImage: Scratch})
	if err != nil {
		t.Fatal(err)
	}
	defer ci.Close()
	wantCfg, _ := ci.img.ConfigName()
	if got, _ := fromArchive.ConfigName(); got != wantCfg {
		t.Errorf("archive config %s, want %s", got, wantCfg)
	}

	// Existing outputs are refused without Force and replaced with it.
	_, err = Build(ctx, dir, BuildOptions{BaseImage: Scratch}, targets)
	if err == nil || !strings.HasSuffix(err.Error(), "/layout already exists") || fault.KindOf(err) != fault.Usage {
		t.Fatalf("err = %v", err)
	}
	targets.Force = true
	targets.Outputs = []string{"oci:" + ociDir + ":other"}
	if _, err := Build(ctx, dir, BuildOptions{BaseImage: Scratch}, targets); err != nil {
		t.Fatal(err)
	}
	idx, _ = layout.ImageIndexFromPath(ociDir)
	im, _ = idx.IndexManifest()
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations[annotationRefName] != "other" {
		t.Errorf("replaced layout %+v", im.Manifests)
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestBuildTargetsChecked(t *testing.T) {
	dir := writeTree(t, sampleCatalog)
	out := t.TempDir()
	file := filepath.Join(out, "file")
	notLayout := filepath.Join(out, "notes")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(notLayout, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		targets BuildTargets
		want    string
	}{
		{BuildTargets{Tag: "x/y:v1"}, "nothing to do"},
		{BuildTargets{Tag: "Not A Tag", Push: true}, `invalid tag "Not A Tag"`},
		{BuildTargets{Tag: "x/y:-v1", Push: true}, `invalid tag "x/y:-v1": the tag "-v1" must match`},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"docker-archive:f.tar:x/y:.v1"}}, `invalid tag "x/y:.v1"`},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + dir}, Force: true}, "is the catalog being built"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + filepath.Dir(dir)}, Force: true}, "holds the catalog being built"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"docker-archive:" + filepath.Join(dir, "README.md")}, Force: true}, "lies inside the catalog being built"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + filepath.Join(dir, "new", "layout")}}, "lies inside the catalog being built"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci-archive:f.tar"}}, "want oci:DIR[:TAG] or docker-archive:FILE[:REF]"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"quay.io/x/y:v1"}}, "want oci:DIR[:TAG]"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:d@sha256:" + strings.Repeat("a", 64)}}, "a digest cannot be chosen"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + filepath.Join(out, "a"), "docker-archive:" + filepath.Join(out, "a", "x.tar")}}, "lies inside output"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"docker-archive:" + filepath.Join(out, "a.tar"), "oci:" + out}}, "lies inside output"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"docker-archive:" + out}, Force: true}, "is a directory: a docker archive is written as a file"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + file}, Force: true}, "is a file: an OCI image layout is written as a directory"},
		{BuildTargets{Tag: "x/y:v1", Outputs: []string{"oci:" + notLayout}, Force: true}, "not an OCI image layout"},
	} {
		// Bad targets fail before anything is pulled: the base does not exist.
		_, err := Build(context.Background(), dir, BuildOptions{BaseImage: "127.0.0.1:1/none:v1"}, tc.targets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.targets, err, tc.want)
		}
	}
	// What the build options ask is checked before any pull too.
	for _, tc := range []struct {
		opts BuildOptions
		want string
	}{
		{BuildOptions{Labels: map[string]string{ConfigsLabel: "/x"}}, "cannot be overridden"},
		{BuildOptions{Platforms: []string{"linux/amd64", "linux/arm64"}}, ""},
	} {
		tc.opts.BaseImage = "127.0.0.1:1/none:v1"
		targets := BuildTargets{Tag: "x/y:v1", Outputs: []string{"docker-archive:" + filepath.Join(out, "one.tar")}}
		if tc.want == "" {
			tc.want = "a docker archive holds one image"
		}
		if _, err := PlanBuild(dir, tc.opts, targets); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := Build(context.Background(), filepath.Join(dir, "README.md"), BuildOptions{BaseImage: Scratch}, BuildTargets{Tag: "x/y:v1", Push: true}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("file as catalog: %v", err)
	}
	if _, err := Build(context.Background(), filepath.Join(dir, "nope"), BuildOptions{BaseImage: Scratch}, BuildTargets{Tag: "x/y:v1", Push: true}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing catalog: %v", err)
	}
}

// TestBuildListsOutputsWritten: an output that fails once the image is built
// (here a name too long for the temporary file written next to it) leaves
// the outputs written before it, and the result says which.
func TestBuildListsOutputsWritten(t *testing.T) {
	dir := writeTree(t, sampleCatalog)
	out := t.TempDir()
	first := "oci:" + filepath.Join(out, "first")
	long := "docker-archive:" + filepath.Join(out, strings.Repeat("x", 250)+".tar")
	res, err := Build(context.Background(), dir, BuildOptions{BaseImage: Scratch}, BuildTargets{Tag: "x/y:v1", Outputs: []string{first, long}})
	var oe *OutputError
	if !errors.As(err, &oe) || oe.Output != long {
		t.Fatalf("err = %v, want the second output's", err)
	}
	if res == nil || !slices.Equal(res.Written, []string{first}) {
		t.Fatalf("result %+v, want the first output written", res)
	}
	if _, err := os.Stat(filepath.Join(out, "first", "index.json")); err != nil {
		t.Error(err)
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }

func TestBuildMultiPlatform(t *testing.T) {
	ctx := context.Background()
	host := testRegistry(t)
	pull := Options{UseHTTP: true, NoCache: true}

	// A two-platform base, as quay.io/operator-framework/opm is.
	var adds []mutate.IndexAddendum
	baseLayerOf := map[string]v1.Hash{}
	for _, p := range []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64", Variant: "v8"}} {
		img, err := random.Image(256, 1)
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := img.ConfigFile()
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			t.Fatal(err)
		}
		ls, _ := img.Layers()
		baseLayerOf[p.Architecture], _ = ls[0].Digest()
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	baseRef := host + "/opm:multi"
	if err := remote.WriteIndex(mustRef(t, baseRef), mutate.AppendManifests(empty.Index, adds...)); err != nil {
		t.Fatal(err)
	}

	dir := writeTree(t, sampleCatalog)
	opts := BuildOptions{BaseImage: baseRef, Pull: pull, Platforms: []string{"linux/amd64", "linux/arm64"}}
	out := filepath.Join(t.TempDir(), "layout")
	res, err := Build(ctx, dir, opts, BuildTargets{Tag: host + "/catalog:multi", Push: true, Outputs: []string{"oci:" + out}})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(mustRef(t, res.Pushed))
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 {
		t.Fatalf("%d manifests", len(im.Manifests))
	}
	var catalogLayers []v1.Hash
	for _, desc := range im.Manifests {
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := img.ConfigFile()
		if desc.Platform == nil || desc.Platform.Architecture != cf.Architecture {
			t.Errorf("descriptor platform %v for a %s image", desc.Platform, cf.Architecture)
		}
		ls, _ := img.Layers()
		first, _ := ls[0].Digest()
		if first != baseLayerOf[cf.Architecture] {
			t.Errorf("%s image is not on the %s base", cf.Architecture, cf.Architecture)
		}
		last, _ := ls[len(ls)-1].Digest()
		catalogLayers = append(catalogLayers, last)
	}
	if catalogLayers[0] != catalogLayers[1] {
		t.Error("platforms do not share the catalog layer")
	}
	local, err := layout.ImageIndexFromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	lm, _ := local.IndexManifest()
	if len(lm.Manifests) != 1 || lm.Manifests[0].Digest.String() != res.Digest || lm.Manifests[0].MediaType != types.OCIImageIndex {
		t.Errorf("layout %+v, want the index %s", lm.Manifests, res.Digest)
	}

	for _, tc := range []struct {
		opts    BuildOptions
		targets BuildTargets
		want    string
	}{
		{BuildOptions{BaseImage: baseRef, Pull: pull, Platforms: []string{"linux/amd64", "linux/s390x"}}, BuildTargets{Tag: host + "/c:x", Push: true}, "linux/s390x"},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"linux/amd64", "linux/amd64"}}, BuildTargets{Tag: host + "/c:x", Push: true}, "given twice"},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"linux/amd64", "linux/arm64"}}, BuildTargets{Tag: host + "/c:x", Outputs: []string{"docker-archive:" + filepath.Join(t.TempDir(), "x.tar")}}, "a docker archive holds one image"},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"amd64"}}, BuildTargets{Tag: host + "/c:x", Push: true}, "invalid platform"},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"Linux/amd64"}}, BuildTargets{Tag: host + "/c:x", Push: true}, `os "Linux" is not one of`},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"linux/arm64", "linux/bogus"}}, BuildTargets{Tag: host + "/c:x", Push: true}, `architecture "bogus" is not one of`},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"linux/arm64/v7"}}, BuildTargets{Tag: host + "/c:x", Push: true}, `arm64 variant "v7"`},
		{BuildOptions{BaseImage: Scratch, Platforms: []string{"linux/amd64", ""}}, BuildTargets{Tag: host + "/c:x", Push: true}, "empty platform"},
	} {
		if _, err := Build(ctx, dir, tc.opts, tc.targets); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.opts.Platforms, err, tc.want)
		}
	}
}

func TestBaseLayerCompressions(t *testing.T) {
	plain := []byte("pretend this is a tar stream")
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	enc, err := zstd.NewWriter(&zs)
	if err != nil {
		t.Fatal(err)
	}
	enc.Write(plain)
	enc.Close()
	for _, tc := range []struct {
		name string
		blob []byte
		mt   types.MediaType
	}{
		{"gzip", gz.Bytes(), types.OCILayer},
		{"zstd", zs.Bytes(), types.OCILayerZStd},
		{"plain", plain, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &baseLayer{open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(tc.blob)), nil }, size: int64(len(tc.blob))}
			mt, err := l.MediaType()
			if tc.mt == "" {
				if err == nil {
					t.Fatalf("uncompressed blob accepted as %s", mt)
				}
				if _, err := l.Uncompressed(); err == nil {
					t.Fatal("Uncompressed of an uncompressed blob succeeded")
				}
				return
			}
			if err != nil || mt != tc.mt {
				t.Fatalf("media type %s, %v; want %s", mt, err, tc.mt)
			}
			rc, err := l.Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil || !bytes.Equal(got, plain) || rc.Close() != nil {
				t.Fatalf("uncompressed %q, %v", got, err)
			}
		})
	}
}

// TestBuiltCatalogReadsBack opens a pushed catalog image with Open and
// ReadFiles, the way render reads catalog images, and loads /configs: it
// must be the catalog that was built, .indexignore included.
func TestBuiltCatalogReadsBack(t *testing.T) {
	ctx := context.Background()
	host := testRegistry(t)
	pull := Options{UseHTTP: true, NoCache: true}
	src := "../testdata/catalog"
	res, err := Build(ctx, src, BuildOptions{BaseImage: Scratch, Pull: pull}, BuildTargets{Tag: host + "/catalog:v1", Push: true})
	if err != nil {
		t.Fatal(err)
	}
	img, err := Open(ctx, res.Pushed, pull)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Labels()[LabelCatalogConfigs]; got != "/configs" {
		t.Fatalf("configs label %q", got)
	}
	fsys, err := img.ReadFiles(ctx, []string{"/configs"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	configs, err := fs.Sub(fsys, "configs")
	if err != nil {
		t.Fatal(err)
	}
	fromImage, err := declcfg.LoadFS(ctx, configs, "configs", declcfg.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := declcfg.Load(ctx, []string{src}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := declcfg.WriteJSON(fromImage, &a); err != nil {
		t.Fatal(err)
	}
	if err := declcfg.WriteJSON(fromDir, &b); err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 || a.String() != b.String() {
		t.Errorf("catalog read back from the image differs from the directory:\n%s\nvs\n%s", a.String(), b.String())
	}
	if _, err := fs.Stat(configs, "NOTES.md"); err != nil {
		t.Errorf("file hidden by .indexignore not shipped: %v", err)
	}
}
