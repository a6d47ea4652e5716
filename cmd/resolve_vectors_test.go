package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/resolve/resolvetest"
)

// resolveOutput is `fbc resolve -o json` for one namespace.
type resolveOutput struct {
	Namespace string `json:"namespace"`
	Install   []struct {
		Name         string  `json:"name"`
		Package      string  `json:"package"`
		Channel      string  `json:"channel"`
		Catalog      string  `json:"catalog"`
		Replaces     *string `json:"replaces"`
		Subscription *string `json:"subscription"`
	} `json:"install"`
	Outcomes [][]struct {
		Name string `json:"name"`
	} `json:"outcomes"`
	OutcomesComplete *bool   `json:"outcomesComplete"`
	Error            *string `json:"error"`
}

func writeBlobs(t *testing.T, path string, blobs []json.RawMessage) {
	t.Helper()
	if err := os.WriteFile(path, resolvetest.JSONStream(blobs), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dependencyVector is a scenario verified against OLM's resolver, turned
// into `fbc resolve` inputs here.
type dependencyVector struct{ resolvetest.Vector }

// catalogFiles writes the scenario's catalogs and returns their
// NAMESPACE/NAME=FILE arguments and priorities, the main catalog first.
func (v *dependencyVector) catalogFiles(t *testing.T, dir string) (sources []string, priorities map[string]int) {
	t.Helper()
	main := filepath.Join(dir, "catalog.json")
	writeBlobs(t, main, v.Catalog)
	sources = []string{resolvetest.Namespace + "/" + resolvetest.MainCatalog + "=" + main}
	priorities = map[string]int{}
	for i, x := range v.ExtraCatalogs {
		ns := v.ExtraNamespace(i)
		file := filepath.Join(dir, fmt.Sprintf("extra-%d.json", i))
		writeBlobs(t, file, x.Catalog)
		sources = append(sources, ns+"/"+x.Name+"="+file)
		priorities[ns+"/"+x.Name] = x.Priority
	}
	return sources, priorities
}

// manifestArgs writes the scenario as a GitOps repository: Subscriptions,
// CatalogSources (with priorities, content given by --catalog), the
// installed CSVs and an OperatorGroup.
func (v *dependencyVector) manifestArgs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	sources, priorities := v.catalogFiles(t, dir)
	var docs []string
	for _, src := range sources {
		key, _, _ := strings.Cut(src, "=")
		ns, name, _ := strings.Cut(key, "/")
		docs = append(docs, fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  sourceType: grpc\n  priority: %d\n", name, ns, priorities[key]))
	}
	ns := resolvetest.Namespace
	docs = append(docs, "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n  name: og\n  namespace: "+ns+"\n")
	for i, s := range v.Subscriptions {
		doc := fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  name: %s\n  source: %s\n  sourceNamespace: %s\n",
			v.SubscriptionName(i), ns, s.Package, resolvetest.MainCatalog, ns)
		if s.Channel != "" {
			doc += "  channel: " + s.Channel + "\n"
		}
		if s.StartingCSV != "" {
			doc += "  startingCSV: " + s.StartingCSV + "\n"
		}
		if s.InstalledCSV != "" {
			doc += "status:\n  installedCSV: " + s.InstalledCSV + "\n"
		}
		docs = append(docs, doc)
	}
	for _, name := range v.Installed {
		docs = append(docs, fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns))
	}
	file := filepath.Join(dir, "manifests.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", file, "--global-namespace", resolvetest.GlobalNamespace}
	for _, src := range sources {
		args = append(args, "--catalog", src)
	}
	return args
}

// flagArgs is the scenario in the quick form: the main catalog as CATALOG,
// the others with --catalog and --catalog-priority, Subscriptions with
// --subscribe, installed CSVs with --installed (a Subscription's
// installedCSV is the installed CSV of its package).
func (v *dependencyVector) flagArgs(t *testing.T) []string {
	t.Helper()
	sources, priorities := v.catalogFiles(t, t.TempDir())
	args := []string{sources[0], "--global-namespace", resolvetest.GlobalNamespace}
	for _, src := range sources[1:] {
		key, _, _ := strings.Cut(src, "=")
		args = append(args, "--catalog", src, "--catalog-priority", fmt.Sprintf("%s=%d", key, priorities[key]))
	}
	for i, s := range v.Subscriptions {
		spec := s.Package
		if s.Channel != "" {
			spec += "/" + s.Channel
		}
		if s.StartingCSV != "" {
			spec += "@" + s.StartingCSV
		}
		if s.Name != "" {
			spec = v.SubscriptionName(i) + "=" + spec
		}
		if s.InstalledCSV != "" && !slices.Contains(v.Installed, s.InstalledCSV) {
			t.Fatalf("the quick form cannot say that Subscription %s installed %s, which is not installed", v.SubscriptionName(i), s.InstalledCSV)
		}
		args = append(args, "--subscribe", spec)
	}
	for _, name := range v.Installed {
		args = append(args, "--installed", name)
	}
	return args
}

// TestResolveVectors runs every verified scenario through `fbc resolve -o
// json`, as manifests (-f) and in the quick form, and compares the answer
// with OLM's: the bundles, their channels and catalogs, every possible
// outcome where OLM decides at random, or OLM's error text with exit 1.
func TestResolveVectors(t *testing.T) {
	for _, rv := range resolvetest.Load(t) {
		v := dependencyVector{rv}
		t.Run(v.Name, func(t *testing.T) {
			t.Run("manifests", func(t *testing.T) { v.check(t, v.manifestArgs(t)) })
			t.Run("flags", func(t *testing.T) { v.check(t, v.flagArgs(t)) })
		})
	}
}

func (v *dependencyVector) check(t *testing.T, args []string) {
	t.Helper()
	args = append([]string{"resolve", "-o", "json"}, args...)
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("fbc %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	var got resolveOutput
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	if got.Namespace != resolvetest.Namespace {
		t.Errorf("namespace %q, want %q", got.Namespace, resolvetest.Namespace)
	}
	// The generated inputs are complete: resolve has nothing to note
	// about them (render may note an empty catalog file).
	for _, note := range []string{"warning: Subscription", "warning: skipped", "OperatorGroup", "status.installedCSV", "opm would refuse"} {
		if strings.Contains(stderr.String(), note) {
			t.Errorf("unexpected warning: %s", stderr.String())
		}
	}
	want := v.Expect
	if want.ErrorContains != "" {
		if code != ExitFindings || got.Error == nil {
			t.Fatalf("exit %d, error %v, want exit 1 with an error containing %q", code, got.Error, want.ErrorContains)
		}
		for _, s := range append([]string{want.ErrorContains}, want.ErrorContainsAll...) {
			if !strings.Contains(*got.Error, s) {
				t.Errorf("error %q\nlacks %q", *got.Error, s)
			}
		}
		return
	}
	if code != ExitOK || got.Error != nil {
		t.Fatalf("exit %d, error %v, want success\nstderr: %s", code, str(got.Error), stderr.String())
	}
	if want.InstalledBundlesOneOf != nil {
		var gotSets, wantSets [][]string
		for _, o := range got.Outcomes {
			var names []string
			for _, in := range o {
				names = append(names, in.Name)
			}
			gotSets = append(gotSets, slices.Sorted(slices.Values(names)))
		}
		for _, o := range want.InstalledBundlesOneOf {
			wantSets = append(wantSets, slices.Sorted(slices.Values(o)))
		}
		slices.SortFunc(gotSets, slices.Compare)
		slices.SortFunc(wantSets, slices.Compare)
		if !slices.EqualFunc(gotSets, wantSets, slices.Equal) {
			t.Errorf("outcomes %v, want every one of %v", gotSets, wantSets)
		}
		if got.OutcomesComplete == nil || !*got.OutcomesComplete {
			t.Errorf("outcomesComplete %v, want true", got.OutcomesComplete)
		}
		return
	}
	if got.Outcomes != nil {
		t.Errorf("outcomes %v, want one answer", got.Outcomes)
	}
	names := []string{}
	for _, in := range got.Install {
		names = append(names, in.Name)
		if ch, ok := want.Channels[in.Name]; ok && ch != in.Channel {
			t.Errorf("%s from channel %s, want %s", in.Name, in.Channel, ch)
		}
		if c, ok := want.Catalogs[in.Name]; ok && !strings.HasSuffix(in.Catalog, "/"+c) {
			t.Errorf("%s from catalog %s, want %s", in.Name, in.Catalog, c)
		}
	}
	slices.Sort(names)
	wantNames := slices.Sorted(slices.Values(want.InstalledBundles))
	if wantNames == nil {
		wantNames = []string{}
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("installs %v, want %v", names, wantNames)
	}
}
