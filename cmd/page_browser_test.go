package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/model"
)

// TestPagesInBrowser opens the pages fbc graph -o html and fbc diff -o html
// write for real packages of the shared corpus in headless Chromium (Debian's
// chromium package) and checks what a person sees once the page's script
// ran: every bundle and channel, no script error and nothing fetched, the
// path of each clicked bundle as fbc upgrade-path prints it, where OLM
// classic and OLM v1 differ, the package picker, the search, and a diff's
// stranded bundles. One browser serves every check, a tab each.
func TestPagesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser: make test runs it, make test-race (-short) does not")
	}
	chromium := chromiumPath(t)
	corpus := sharedtest.Corpus(t)
	dir := t.TempDir()
	v418 := filepath.Join(corpus, "certified-operators", "catalogs", "v4.18")

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	browser := startBrowser(t, ctx, chromium, dir)

	t.Run("kurrentdb", func(t *testing.T) {
		cat := filepath.Join(v418, "kurrentdb-operator")
		page := writePage(t, dir, "graph", cat, "-p", "kurrentdb-operator")
		tab := openPage(t, browser, page)
		checkEveryBundleAndChannel(t, tab, cat, "kurrentdb-operator")
		// Every bundle, in every view, under both OLMs.
		checkPaths(t, tab, cat, "kurrentdb-operator", nil)
		// 1.4.3: classic drops the entries that skip it and strands it;
		// v1 follows the edge to 1.5.0 (docs/upgrades.md).
		tab.click(t, `nav#channels button[data-channel="stable-v1"]`)
		diff := tab.text(t, `#difference-list li[data-bundle="kurrentdb-operator.v1.4.3"]`)
		if !strings.Contains(diff, "classicstays") || !strings.Contains(diff, "v1upgrades to kurrentdb-operator.v1.5.0") {
			t.Errorf("the difference shown for 1.4.3 is %q", diff)
		}
		if n := tab.count(t, `#svg .node[data-bundle="kurrentdb-operator.v1.4.3"] .badge.differs`); n != 1 {
			t.Errorf("1.4.3 has %d difference marks, want 1", n)
		}
		if note := tab.text(t, `#problem-list`); !strings.Contains(note, "kurrentdb-operator.v1.4.3") || !strings.Contains(note, "dead end: no upgrade") {
			t.Errorf("the dead ends listed are %q", note)
		}
		// Search by version.
		tab.do(t, chromedp.SendKeys(chromedp.CSS("#search"), "1.5"))
		if got := tab.text(t, "#search-count"); got != "1 match" {
			t.Errorf("searching 1.5 finds %q, want 1 match", got)
		}
		tab.noErrors(t)
	})

	t.Run("visionone", func(t *testing.T) {
		cat := filepath.Join(v418, "visionone-containersecurity")
		page := writePage(t, dir, "graph", cat, "-p", "visionone-containersecurity")
		tab := openPage(t, browser, page)
		checkEveryBundleAndChannel(t, tab, cat, "visionone-containersecurity")
		checkPaths(t, tab, cat, "visionone-containersecurity", []string{"", "stable"})
		// 3.3.9-operator.1 is a prerelease of 3.3.9: classic follows
		// replaces, v1 never moves down and stays.
		tab.click(t, `nav#channels button[data-channel="stable"]`)
		diff := tab.text(t, `#difference-list li[data-bundle="visionone-containersecurity.v3.3.9"]`)
		if !strings.Contains(diff, "classicupgrades to visionone-containersecurity.v3.3.9-operator.1") || !strings.Contains(diff, "v1stays") {
			t.Errorf("the difference shown for 3.3.9 is %q", diff)
		}
		tab.noErrors(t)
	})

	// edb-hcp-operator's bundles need cert-manager's API, which the catalog
	// does not have: classic paths fail where OLM's resolver fails, and
	// stop before the successor it would have taken.
	t.Run("edb-hcp", func(t *testing.T) {
		cat := filepath.Join(v418, "edb-hcp-operator")
		page := writePage(t, dir, "graph", cat, "-p", "edb-hcp-operator")
		tab := openPage(t, browser, page)
		checkPaths(t, tab, cat, "edb-hcp-operator", []string{"", "stable"})
		tab.noErrors(t)
	})

	t.Run("picker", func(t *testing.T) {
		cat := filepath.Join(corpus, "community-operators-prod", "catalogs", "v4.18")
		page := writePage(t, dir, "graph", cat)
		tab := openPage(t, browser, page)
		m := loadModel(t, cat)
		if n := tab.count(t, "#package option"); n != len(m.Packages) {
			t.Errorf("the picker offers %d packages, the catalog has %d", n, len(m.Packages))
		}
		pick := m.Packages[len(m.Packages)/2].Name
		tab.evaluate(t, fmt.Sprintf(`(function(){var s=document.getElementById("package");
			for (var i=0;i<s.options.length;i++) if (s.options[i].text.indexOf(%q+" (")===0) s.selectedIndex=i;
			s.dispatchEvent(new Event("change"));})()`, pick))
		if title := tab.text(t, "#title"); !strings.Contains(title, pick) {
			t.Errorf("after picking %s the title is %q", pick, title)
		}
		checkEveryBundleAndChannel(t, tab, cat, pick)
		// The filter narrows the list to the names that match, and the
		// package shown.
		tab.do(t, chromedp.SendKeys(chromedp.CSS("#package-filter"), "kube"))
		for _, o := range tab.texts(t, "#package option") {
			if !strings.Contains(o, "kube") && !strings.HasPrefix(o, pick+" (") {
				t.Errorf("filtering kube leaves %q", o)
			}
		}
		tab.noErrors(t)
	})

	// Names and messages written to break out of the page's markup and
	// script: everything shows as text, nothing runs, a click gives fbc
	// upgrade-path's path; an address whose part does not decode opens
	// the page all the same.
	t.Run("hostile", func(t *testing.T) {
		cat := filepath.Join(dir, "hostile.yaml")
		if err := os.WriteFile(cat, []byte(hostileCatalog), 0o644); err != nil {
			t.Fatal(err)
		}
		page := writePage(t, dir, "graph", cat)
		tab := openPage(t, browser, page)
		const pkg, older, newer = "evil</script><script>window.PWNED=1</script>", "e.v1.0.0<svg onload=window.PWNED=3>", "e.v1.1.0 '&\"☃"
		if n := tab.evaluateInt(t, `(window.PWNED ? 1 : 0) + document.querySelectorAll("img, iframe, [onload], [onerror]").length + document.scripts.length`); n != 2 {
			t.Errorf("the catalog's text made markup or ran (window.PWNED, elements and scripts count %d, want the page's 2 scripts)", n)
		}
		if got := tab.text(t, "#title"); got != pkg+": upgrade graph" {
			t.Errorf("the title reads %q", got)
		}
		for _, name := range []string{older, newer} {
			tab.evaluate(t, fmt.Sprintf(`Array.from(document.querySelectorAll("#svg .node")).filter(function(n){return n.getAttribute("data-bundle")===%s;})[0].dispatchEvent(new MouseEvent("click",{bubbles:true}))`, jsString(name)))
			if got := tab.text(t, "#selected-bundle"); got != name {
				t.Fatalf("clicked %q, the page shows %q", name, got)
			}
			if got := tab.text(t, "#details .banner.deprecated"); name == older && got != "Deprecated: <script>window.PWNED=4</script> --><!--" {
				t.Errorf("the deprecation reads %q", got)
			}
			for _, sem := range []string{"classic", "v1"} {
				want := upgradePath(t, cat, "-p", pkg, "--from", name, "--semantics", sem)
				if got := tab.text(t, "#details #path-"+sem+" .line"); got != want {
					t.Errorf("%q, %s: the page shows %q, fbc upgrade-path prints %q", name, sem, got, want)
				}
			}
		}
		tab.noErrors(t)
		ctx, cancel := context.WithTimeout(tab.ctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`location.hash = "p=100%&c=st"; location.reload()`)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`body[data-ready="true"]`))); err != nil {
			t.Fatalf("the page opened at #p=100%%&c=st is not drawn: %v", err)
		}
		if got := tab.text(t, "#title"); got != pkg+": upgrade graph" {
			t.Errorf("opened at #p=100%%, the title reads %q", got)
		}
	})

	t.Run("diff", func(t *testing.T) {
		root := repoRoot(t)
		oldCat, newCat := filepath.Join(root, "graph", "page", "testdata", "change", "old"), filepath.Join(root, "graph", "page", "testdata", "change", "new")
		page := writePage(t, dir, "diff", oldCat, newCat)
		tab := openPage(t, browser, page)
		if v := tab.text(t, "#verdict"); !strings.HasPrefix(v, "unsafe: 3 errors") {
			t.Errorf("the verdict reads %q", v)
		}
		if n := tab.count(t, "#finding-list li"); n != 3 {
			t.Errorf("%d findings listed, want 3", n)
		}
		tab.click(t, `nav#channels button[data-channel="stable"]`)
		if n := tab.count(t, `#svg .node.stranded[data-bundle="op.v1.0.0"]`); n != 1 {
			t.Error("op.v1.0.0, stranded by the change, is not highlighted")
		}
		if n := tab.count(t, `#svg .node.removed[data-bundle="op.v1.1.0"]`); n != 1 {
			t.Error("op.v1.1.0, removed by the change, is not marked")
		}
		if n := tab.count(t, `#svg path.edge.added`); n == 0 {
			t.Error("no edge is marked added")
		}
		// Before and after: op.v1.0.0 reached the head, and now stays.
		tab.click(t, `#svg .node[data-bundle="op.v1.0.0"]`)
		if got := tab.text(t, "#path-v1-old .line"); got != "path: op.v1.0.0 -> op.v1.1.0 -> op.v1.2.0 (2 upgrades)" {
			t.Errorf("v1 before the change: %q", got)
		}
		if got := tab.text(t, "#path-v1 .line"); got != "path: no upgrade" {
			t.Errorf("v1 after the change: %q", got)
		}
		tab.noErrors(t)
	})
}

// chromiumPath finds Debian's chromium. Without it the test is skipped,
// saying how to get it, except under CI, where it fails.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed: the browser tests need Debian's chromium package (apt-get install -y chromium; .ci/run installs it)"
	if sharedtest.InCI() {
		t.Fatal(msg + " (CI is set: they must run)")
	}
	t.Skip(msg)
	return ""
}

// startBrowser starts one headless Chromium for the test, with a new empty
// profile and none of the background connections it makes on its own,
// and stops it when the test ends.
func startBrowser(t *testing.T, ctx context.Context, chromium, dir string) context.Context {
	profile := filepath.Join(dir, "chromium-profile")
	if err := os.Mkdir(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium), chromedp.UserDataDir(profile),
		chromedp.Headless, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1400, 1000))
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return browser
}

// writePage runs fbc graph or fbc diff with -o html and returns the page.
func writePage(t *testing.T, dir, command string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, fmt.Sprintf("%s-%d.html", command, time.Now().UnixNano()))
	argv := append(append([]string{command}, args...), "-o", "html", "--output-file", out)
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), argv, strings.NewReader(""), &stdout, &stderr)
	if code != 0 && !(command == "diff" && code == 1) {
		t.Fatalf("fbc %s: exit %d\n%s", strings.Join(argv, " "), code, stderr.String())
	}
	return out
}

// upgradePath is the last line fbc upgrade-path prints.
func upgradePath(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	Run(context.Background(), append([]string{"upgrade-path"}, args...), strings.NewReader(""), &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "path: ") {
			return lines[i]
		}
	}
	t.Fatalf("fbc upgrade-path %s printed no path:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return ""
}

func loadModel(t *testing.T, path string) *model.Catalog {
	t.Helper()
	cfg, err := declcfg.Load(context.Background(), []string{path}, declcfg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return model.New(cfg)
}

// tab is one page open in the browser, and what its console said.
type tab struct {
	ctx  context.Context
	mu   sync.Mutex
	msgs []string
}

func openPage(t *testing.T, browser context.Context, file string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx}
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.msgs = append(tb.msgs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
			tb.mu.Unlock()
		}
	}()
	tb.do(t, chromedp.Navigate("file://"+file))
	// Ready when the page's script says so; a script that died first
	// fails the test at once, with its exception, not at the deadline.
	deadline := time.Now().Add(time.Minute)
	for tb.evaluateInt(t, `document.body && document.body.dataset.ready === "true" ? 1 : 0`) == 0 {
		if m := tb.exception(); m != "" {
			t.Fatalf("the page's script failed before the page was ready: %s", m)
		}
		if time.Now().After(deadline) {
			t.Fatal("the page was not ready within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The page fetched nothing: no resource besides the file itself.
	if n := tb.evaluateInt(t, `performance.getEntriesByType("resource").length`); n != 0 {
		t.Errorf("the page fetched %d resources", n)
	}
	return tb
}

func (tb *tab) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

func (tb *tab) click(t *testing.T, sel string) {
	t.Helper()
	tb.do(t, chromedp.Click(chromedp.CSS(sel)))
}

func (tb *tab) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(function(){var n=document.querySelector(%q); return n ? n.textContent : "(no "+%q+")";})()`, sel, sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tb *tab) texts(t *testing.T, sel string) []string {
	t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(function(n){return n.textContent;})`, sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tb *tab) attrs(t *testing.T, sel, attr string) []string {
	t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(function(n){return n.getAttribute(%q);})`, sel, attr)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tb *tab) count(t *testing.T, sel string) int {
	t.Helper()
	return tb.evaluateInt(t, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

func (tb *tab) evaluateInt(t *testing.T, expr string) int {
	t.Helper()
	n, err := chromedp.Run(tb.ctx, chromedp.Evaluate[int](expr))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (tb *tab) evaluate(t *testing.T, expr string) {
	t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
		t.Fatal(err)
	}
}

// exception is the first exception the page's console reported, or "".
func (tb *tab) exception() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, m := range tb.msgs {
		if strings.HasPrefix(m, "exception") {
			return m
		}
	}
	return ""
}

// noErrors fails the test for any error or exception the page's console
// reported, and for an id the page gives twice (a selector would find the
// first, whichever panel holds it).
func (tb *tab) noErrors(t *testing.T) {
	t.Helper()
	if n := tb.evaluateInt(t, `(function(){var seen={},twice=0;document.querySelectorAll("[id]").forEach(function(e){if(seen[e.id])twice++;seen[e.id]=true;});return twice;})()`); n != 0 {
		t.Errorf("%d elements of the page repeat an id", n)
	}
	time.Sleep(50 * time.Millisecond) // the console's events arrive apart from the actions
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, m := range tb.msgs {
		if strings.HasPrefix(m, "error") || strings.HasPrefix(m, "exception") || strings.HasPrefix(m, "assert") {
			t.Errorf("the page's console: %s", m)
		}
	}
}

// checkEveryBundleAndChannel checks the view of every channel of pkg: each
// bundle of the package is a node, and each channel a tab of the switch.
func checkEveryBundleAndChannel(t *testing.T, tb *tab, cat, pkg string) {
	t.Helper()
	p := loadModel(t, cat).Package(pkg)
	tb.click(t, `nav#channels button[data-channel=""]`)
	nodes := tb.attrs(t, "#svg .node", "data-bundle")
	for _, b := range p.Bundles {
		if !slices.Contains(nodes, b.Name) {
			t.Errorf("%s: bundle %s is not drawn", pkg, b.Name)
		}
	}
	tabs := tb.attrs(t, "nav#channels button", "data-channel")
	slices.Sort(tabs)
	want := append([]string{""}, p.ChannelNames()...)
	slices.Sort(want)
	if !slices.Equal(tabs, want) {
		t.Errorf("%s: channel tabs %q, want %q", pkg, tabs, want)
	}
}

// checkPaths clicks every bundle of each view (every channel, then each
// channel; views limits them) and compares the paths the page shows under
// OLM classic and OLM v1 with fbc upgrade-path's for the same bundle and
// channel.
func checkPaths(t *testing.T, tb *tab, cat, pkg string, views []string) {
	t.Helper()
	p := loadModel(t, cat).Package(pkg)
	if views == nil {
		views = append([]string{""}, p.ChannelNames()...)
	}
	checked := 0
	for _, ch := range views {
		tb.click(t, fmt.Sprintf(`nav#channels button[data-channel=%q]`, ch))
		var names []string
		if ch == "" {
			for _, b := range p.Bundles {
				names = append(names, b.Name)
			}
		} else {
			for _, e := range p.Channel(ch).Entries {
				if e.Bundle != nil {
					names = append(names, e.Name)
				}
			}
		}
		for _, name := range names {
			tb.click(t, fmt.Sprintf(`#svg .node[data-bundle=%q]`, name))
			if got := tb.text(t, "#selected-bundle"); got != name {
				t.Fatalf("clicked %s, the page shows %s", name, got)
			}
			for _, sem := range []string{"classic", "v1"} {
				args := []string{cat, "-p", pkg, "--from", name, "--semantics", sem}
				if ch != "" {
					args = append(args, "--channel", ch)
				}
				want := upgradePath(t, args...)
				if got := tb.text(t, "#path-"+sem+" .line"); got != want {
					t.Errorf("%s in channel %q, %s: the page shows\n  %s\nfbc upgrade-path %s prints\n  %s", name, ch, sem, got, strings.Join(args, " "), want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatalf("%s: no path checked", pkg)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// hostileCatalog names its package, channel and bundles, and words its
// deprecation, to end the page's script element, open markup or run
// script.
const hostileCatalog = `schema: olm.package
name: "evil</script><script>window.PWNED=1</script>"
defaultChannel: "st\"><img src=x onerror=window.PWNED=2>"
---
schema: olm.channel
package: "evil</script><script>window.PWNED=1</script>"
name: "st\"><img src=x onerror=window.PWNED=2>"
entries:
- name: "e.v1.0.0<svg onload=window.PWNED=3>"
- name: "e.v1.1.0 '&\"☃"
  replaces: "e.v1.0.0<svg onload=window.PWNED=3>"
  skipRange: "<1.1.0 </script>"
---
schema: olm.bundle
package: "evil</script><script>window.PWNED=1</script>"
name: "e.v1.0.0<svg onload=window.PWNED=3>"
image: example.com/e:1
properties:
- {type: olm.package, value: {packageName: "evil</script><script>window.PWNED=1</script>", version: 1.0.0}}
---
schema: olm.bundle
package: "evil</script><script>window.PWNED=1</script>"
name: "e.v1.1.0 '&\"☃"
image: example.com/e:2
properties:
- {type: olm.package, value: {packageName: "evil</script><script>window.PWNED=1</script>", version: 1.1.0}}
---
schema: olm.deprecations
package: "evil</script><script>window.PWNED=1</script>"
entries:
- reference: {schema: olm.bundle, name: "e.v1.0.0<svg onload=window.PWNED=3>"}
  message: "<script>window.PWNED=4</script> --><!--"
`
