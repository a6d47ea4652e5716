package image_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/image/imagetest"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// countManifests counts the manifest requests (HEAD and GET) a registry saw.
func countManifests(reqs []string) (head, get int) {
	for _, r := range reqs {
		if !strings.Contains(r, "/manifests/") {
			continue
		}
		if strings.HasPrefix(r, "HEAD ") {
			head++
		} else {
			get++
		}
	}
	return head, get
}

func TestResolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := imagetest.NewRegistry(t)
	amd := must(imagetest.Image(imagetest.Config{Platform: "linux/amd64"}))
	arm := must(imagetest.Image(imagetest.Config{Platform: "linux/arm64/v8"}))
	idx := must(imagetest.Index(amd, arm))
	reg.Push(t, "op:multi", idx)
	reg.Push(t, "op:amd", amd)
	opts := testOptions(t)
	c := must(image.NewClient(opts))

	t.Run("tag by HEAD", func(t *testing.T) {
		reg.Reset()
		info := must(c.Resolve(ctx, reg.Host+"/op:multi", false))
		if want := must(idx.Digest()).String(); info.Digest != want || !info.Index {
			t.Errorf("got %+v, want index %s", info, want)
		}
		if head, get := countManifests(reg.Requests()); head != 1 || get != 0 {
			t.Errorf("manifest requests: %d HEAD, %d GET; want 1 HEAD", head, get)
		}
	})
	t.Run("index platforms from one GET", func(t *testing.T) {
		reg.Reset()
		info := must(c.Resolve(ctx, reg.Host+"/op:multi", true))
		if got := strings.Join(info.Platforms, " "); got != "linux/amd64 linux/arm64/v8" {
			t.Errorf("platforms %q", got)
		}
		if len(info.Images) != 2 || info.Images[0] != must(amd.Digest()).String() {
			t.Errorf("images %v", info.Images)
		}
		if head, get := countManifests(reg.Requests()); head != 0 || get != 1 {
			t.Errorf("manifest requests: %d HEAD, %d GET; want 1 GET", head, get)
		}
	})
	t.Run("single image platform from its config", func(t *testing.T) {
		info := must(c.Resolve(ctx, reg.Host+"/op:amd", true))
		if info.Index || strings.Join(info.Platforms, " ") != "linux/amd64" {
			t.Errorf("got %+v", info)
		}
	})
	t.Run("cached digest asks nothing", func(t *testing.T) {
		ref := reg.Host + "/op@" + must(idx.Digest()).String()
		must(c.Resolve(ctx, ref, true)) // cached by the GET above
		reg.Reset()
		info := must(c.Resolve(ctx, ref, true))
		if !info.Cached || len(info.Platforms) != 2 {
			t.Errorf("got %+v", info)
		}
		if n := len(reg.Requests()); n != 0 {
			t.Errorf("%d requests for a cached digest: %v", n, reg.Requests())
		}
	})
	t.Run("offline answers a tag from its record", func(t *testing.T) {
		off := opts
		off.Offline = true
		oc := must(image.NewClient(off))
		info := must(oc.Resolve(ctx, reg.Host+"/op:multi", false))
		if info.Digest != must(idx.Digest()).String() {
			t.Errorf("got %s", info.Digest)
		}
		_, err := oc.Resolve(ctx, reg.Host+"/op:never", false)
		if !errors.Is(err, image.ErrOffline) || !strings.Contains(err.Error(), "op:never") {
			t.Errorf("offline miss: %v", err)
		}
		var d v1.Hash
		d.Algorithm, d.Hex = "sha256", strings.Repeat("ab", 32)
		_, err = oc.Resolve(ctx, reg.Host+"/op@"+d.String(), false)
		if !errors.Is(err, image.ErrOffline) || !strings.Contains(err.Error(), opts.CacheDir) {
			t.Errorf("offline digest miss: %v", err)
		}
	})
	t.Run("unknown tag names the registry's answer", func(t *testing.T) {
		_, err := c.Resolve(ctx, reg.Host+"/op:nope", false)
		var re *image.RegistryError
		if !errors.As(err, &re) || re.Status != http.StatusNotFound || !strings.Contains(err.Error(), "MANIFEST_UNKNOWN") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not a registry reference", func(t *testing.T) {
		if _, err := c.Resolve(ctx, "oci:dir", false); err == nil {
			t.Error("oci: reference resolved")
		}
	})
}

// TestPingOncePerRegistry: go-containerregistry probes the registry (GET
// /v2/) for every repository it opens; the client asks once per registry,
// and answers the other probes with what the registry said.
func TestPingOncePerRegistry(t *testing.T) {
	reg := imagetest.NewRegistry(t)
	img := bundleImage(t, "linux/amd64")
	var refs []string
	for i := range 5 {
		refs = append(refs, reg.Push(t, fmt.Sprintf("repo%d:v1", i), img))
	}
	reg.Reset()
	c := must(image.NewClient(testOptions(t)))
	for _, ref := range refs {
		must(c.Resolve(context.Background(), ref, false))
	}
	pings, manifests := 0, 0
	for _, r := range reg.Requests() {
		switch {
		case r == "GET /v2/":
			pings++
		case strings.Contains(r, "/manifests/"):
			manifests++
		}
	}
	if pings != 1 || manifests != 5 {
		t.Errorf("%d probes and %d manifest requests for 5 repositories, want 1 and 5: %q", pings, manifests, reg.Requests())
	}
}
