package render

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// RenderTo hands over what Render gathers: spooled, the output is Write's
// of Render's result, for catalogs, bundles and the channels derived from
// them, with migrations and from several sources rendered at once.
func TestRenderToWritesWhatRenderGathers(t *testing.T) {
	tmp := t.TempDir()
	var refs []string
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
		refs = append(refs, writeBundle(t, tmp, "foo", v))
	}
	refs = append(refs, filepath.Join("..", "testdata", "catalog", "etcd-lite"), filepath.Join("..", "testdata", "catalog", "example-operator"))
	for _, req := range []Request{
		{WithChannels: true},
		{ImageRefTemplate: "quay.io/acme/{{.Package}}:v{{.Version}}", MigrateLevel: MigrateAll, WithChannels: true},
		{CatalogsAsLoaded: true},
	} {
		for _, f := range []declcfg.Format{declcfg.FormatJSON, declcfg.FormatYAML} {
			r := mustNew(t, Options{Jobs: 3})
			cfg, err := r.Render(context.Background(), refs, req)
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, declcfg.Write(cfg, f, &want))

			s, err := declcfg.NewSpool(f)
			require.NoError(t, err)
			require.NoError(t, r.RenderTo(context.Background(), refs, req, s.Add))
			var got bytes.Buffer
			_, err = s.WriteTo(&got)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			assert.Equal(t, want.String(), got.String(), "%+v %s", req, f)
		}
	}
}

// A catalog is handed over a file at a time, and the blobs opm's writer
// leaves out (OLM schemas without a package) are not handed over: a
// warning names each.
func TestRenderToStreamsFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", "schema: olm.package\nname: a\n---\nschema: olm.bundle\nname: lost.v1\nimage: x\n")
	writeFile(t, dir, "b.json", `{"schema":"olm.package","name":"b"}`+"\n"+`{"schema":"note"}`)
	var (
		mu       sync.Mutex
		warnings []string
		parts    []string
	)
	r := mustNew(t, Options{Warn: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, msg)
	}})
	err := r.RenderTo(context.Background(), []string{dir}, Request{}, func(src int, part *declcfg.DeclarativeConfig) error {
		var names []string
		for _, p := range part.Packages {
			names = append(names, p.Name)
		}
		for _, b := range part.Bundles {
			names = append(names, b.Name)
		}
		for _, o := range part.Others {
			names = append(names, o.Schema)
		}
		parts = append(parts, strings.Join(names, " "))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b note"}, parts)
	assert.Equal(t, []string{filepath.Join(dir, "a.yaml") + `:4:1: olm.bundle "lost.v1" names no package: left out of the output, as opm render leaves it out`}, warnings)
}

// A sink that fails (a full disk under the spool) fails the source, as
// something that could not be done, not as a finding.
func TestRenderToSinkError(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", "schema: olm.package\nname: a\n")
	r := mustNew(t, Options{})
	err := r.RenderTo(context.Background(), []string{dir, writeBundle(t, t.TempDir(), "foo", "1.0.0")}, Request{}, func(int, *declcfg.DeclarativeConfig) error {
		return errors.New("no space left on device")
	})
	var es Errors
	require.ErrorAs(t, err, &es)
	require.Len(t, es, 2)
	for _, e := range es {
		assert.ErrorContains(t, e, "no space left on device")
		assert.Equal(t, fault.Run, fault.KindOf(e))
	}
}
