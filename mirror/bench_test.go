package mirror

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
)

// The community catalog for OpenShift 4.20 (community-operators-prod at the
// commit the filter scenarios were taken on), checked out of the fetched
// repository once per run.
const (
	communityRepo   = "redhat-openshift-ecosystem/community-operators-prod"
	communityCommit = "699495f2ff526f9679a0d9d54688f09c683eff2c"
)

func community420(b *testing.B) string {
	b.Helper()
	git := sharedtest.Mirror(b, communityRepo)
	dir := filepath.Join(b.TempDir(), "v4.20")
	checkoutTree(b, git, communityCommit, "catalogs/v4.20", dir)
	return dir
}

// BenchmarkPlanOnePackage is fbc mirror plan of one package (heads of its
// channels, written with a mirror's images and resources) against
// BenchmarkValidateCatalog, fbc validate's check of the whole catalog it is
// cut from; scripts/bench-mirror.sh compares the two commands.
func BenchmarkPlanOnePackage(b *testing.B) {
	dir := community420(b)
	data := []byte("apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\nmirror:\n  operators:\n  - catalog: " + dir + "\n    packages:\n    - name: kube-green\n")
	cfg, err := ParseConfig("isc.yaml", data)
	require.NoError(b, err)
	r, err := render.New(render.Options{})
	require.NoError(b, err)
	out := filepath.Join(b.TempDir(), "plan")
	b.ResetTimer()
	for b.Loop() {
		_, err := MakePlan(context.Background(), Options{Config: cfg, Dir: out, Replace: true, To: "mirror.example.com/olm", Renderer: r})
		require.NoError(b, err)
	}
}

func BenchmarkValidateCatalog(b *testing.B) {
	dir := community420(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := validate.Validate(context.Background(), []string{dir}, validate.Options{})
		require.NoError(b, err)
		if !res.Valid() {
			b.Fatal("the catalog does not validate")
		}
	}
}
