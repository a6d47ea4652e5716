package validate

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/repo"
)

// The community pipeline's update-graph rules for an operator that is not
// on FBC (operatorcert/static_tests/community/operator.py and bundle.py,
// over operator_repo/core.py's graph): its bundle folders, in each channel
// their annotations name, form a graph by the CSVs' spec.replaces,
// spec.skips and olm.skipRange (replaces-mode, the default) or by version
// order (ci.yaml's updateGraph: semver-mode). The graph may hold no loop,
// and every bundle but the channel's newest must be upgraded from by some
// other.

// opBundle is a bundle folder as the graph rules read it.
type opBundle struct {
	dir      string
	name     string // the CSV's metadata.name
	version  string // what follows the first "." of the name, without a leading v
	semver   *semver.Version
	channels []string
	// defaultChannel is "" when the annotations name none.
	defaultChannel string
	csv            string
	namePos        declcfg.Pos
	// Edges the CSV declares: replaced or skipped names and the skipRange,
	// with their positions.
	previous     []string
	previousPos  []declcfg.Pos
	skipRange    string
	skipRangePos declcfg.Pos
}

func (b *opBundle) String() string {
	return fmt.Sprintf("Bundle(%s)", filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(b.dir)), filepath.Base(b.dir))))
}

func (b *opBundle) inChannel(ch string) bool { return slices.Contains(b.channels, ch) }

// less orders bundles as the pipeline does: by version, or by the version
// text when one is not semver.
func (b *opBundle) less(o *opBundle) bool {
	if b.semver != nil && o.semver != nil {
		return b.semver.LT(*o.semver)
	}
	return b.version < o.version
}

// opEdge is an upgrade edge from an installed bundle to the one that
// upgrades it, with where the upgrading CSV declares it.
type opEdge struct {
	from, to *opBundle
	at       declcfg.Pos
}

// operatorGraph checks the update graph of an operator not on FBC, from
// the ClusterServiceVersions and annotations of its bundle folders as the
// bundle checks read them (plans, by folder).
func (c *checker) operatorGraph(oc *operatorCheck, plans map[string]*bundlePlan) {
	mode := "replaces-mode"
	if ci := oc.ci; ci != nil && ci.Root != nil {
		if _, v := declcfg.PipelineKeys.Lookup(ci.Root, "updateGraph"); v != nil {
			mode = v.Value
		}
	}
	if mode != "replaces-mode" && mode != "semver-mode" {
		return // ci-yaml-schema reports it
	}
	var bundles []*opBundle
	for _, fb := range oc.folder.Bundles {
		var kept map[string][]byte
		if p := plans[fb.Dir]; p != nil {
			kept = p.kept
		}
		b := readOpBundle(fb.Dir, kept)
		if b == nil {
			// A bundle without a readable CSV is the bundle checks'
			// finding; the graph without it would be wrong.
			return
		}
		bundles = append(bundles, b)
	}
	channels := map[string]bool{}
	for _, b := range bundles {
		for _, ch := range b.channels {
			channels[ch] = true
		}
		if b.defaultChannel != "" {
			channels[b.defaultChannel] = true
		}
	}
	names := make([]string, 0, len(channels))
	for ch := range channels {
		names = append(names, ch)
	}
	sort.Strings(names)
	// A bundle dangles, and an edge closes a loop, in every channel that
	// holds the same bundles: each is reported once, naming the channels.
	type finding struct {
		rule, msg, cause string
		at               declcfg.Pos
		bundle           string
		channels         []string
	}
	var found []*finding
	note := func(rule string, at declcfg.Pos, bundle, ch, msg, cause string) {
		for _, f := range found {
			if f.rule == rule && f.at == at && f.bundle == bundle && f.cause == cause {
				f.channels = append(f.channels, ch)
				return
			}
		}
		found = append(found, &finding{rule: rule, msg: msg, cause: cause, at: at, bundle: bundle, channels: []string{ch}})
	}
	for _, ch := range names {
		var in []*opBundle
		for _, b := range bundles {
			if b.inChannel(ch) {
				in = append(in, b)
			}
		}
		sort.SliceStable(in, func(i, j int) bool { return in[i].less(in[j]) })
		edges, bad := channelEdges(in, mode)
		if bad != nil {
			note(RuleOperatorGraphLoop, bad.at, "", ch, bad.msg, bad.msg)
			continue
		}
		if e := findLoop(in, edges); e != nil {
			note(RuleOperatorGraphLoop, e.at, e.to.name, ch,
				fmt.Sprintf("Upgrade graph loop detected: %s -> %s", e.from, e.to), loopCause(e))
		}
		if len(in) == 0 {
			continue
		}
		head := in[len(in)-1]
		upgraded := map[*opBundle]bool{}
		for _, e := range edges {
			upgraded[e.from] = true
		}
		var dangling []string
		for _, b := range in {
			if b != head && !upgraded[b] {
				dangling = append(dangling, b.String())
			}
		}
		for _, b := range in {
			if b != head && !upgraded[b] {
				note(RuleOperatorDangling, b.namePos, b.name, ch,
					fmt.Sprintf("Channel %s has dangling bundles: {%s}", ch, strings.Join(dangling, ", ")),
					fmt.Sprintf("%s is not the channel head (%s) and no bundle upgrades from it; make a newer bundle replace or skip it, or cover its version with an olm.skipRange", b.name, head.name))
			}
		}
	}
	for _, f := range found {
		msg := f.msg
		others := strings.Join(f.channels[1:], ", ")
		switch {
		case f.rule == RuleOperatorGraphLoop && f.bundle != "":
			msg += " in channel " + f.channels[0]
			if others != "" {
				msg += " (and in channels " + others + ")"
			}
		case others != "":
			msg += " (and so do channels " + others + ")"
		}
		if f.cause != f.msg {
			msg += ": " + f.cause
		}
		if f.rule == RuleOperatorGraphLoop && f.bundle != "" {
			msg += "; break the loop so that each bundle upgrades only older ones"
		}
		c.add(f.rule, f.at, blobRef{pkg: oc.folder.Name, channel: f.channels[0], bundle: f.bundle}, msg)
	}
}

// graphError is a CSV the pipeline cannot read a graph from.
type graphError struct {
	at  declcfg.Pos
	msg string
}

// channelEdges is the pipeline's update graph of one channel, in the
// order the pipeline builds it.
func channelEdges(in []*opBundle, mode string) ([]opEdge, *graphError) {
	var edges []opEdge
	if mode == "semver-mode" {
		for i := 0; i+1 < len(in); i++ {
			edges = append(edges, opEdge{from: in[i], to: in[i+1], at: in[i+1].namePos})
		}
		return edges, nil
	}
	byVersion := map[string]*opBundle{}
	for _, b := range in {
		byVersion[b.version] = b
	}
	for _, b := range in {
		if b.skipRange == "" {
			continue
		}
		r, err := declcfg.ParseRange(b.skipRange)
		if err != nil {
			continue // the pipeline ignores a skipRange it cannot read
		}
		for _, o := range in {
			if o.semver != nil && r(*o.semver) {
				edges = append(edges, opEdge{from: o, to: b, at: b.skipRangePos})
			}
		}
	}
	for _, b := range in {
		for i, name := range b.previous {
			_, v, ok := strings.Cut(name, ".")
			if !ok {
				return nil, &graphError{at: b.previousPos[i], msg: fmt.Sprintf("%s has invalid 'replaces' field: '%s'; name a ClusterServiceVersion, <operator>.v<version>", b, name)}
			}
			if o := byVersion[strings.TrimLeft(v, "v")]; o != nil {
				edges = append(edges, opEdge{from: o, to: b, at: b.previousPos[i]})
			}
		}
	}
	return edges, nil
}

// findLoop returns an edge that closes a loop, found as the pipeline finds
// it (depth first from each bundle in turn), or nil.
func findLoop(in []*opBundle, edges []opEdge) *opEdge {
	out := map[*opBundle][]int{}
	for i, e := range edges {
		out[e.from] = append(out[e.from], i)
	}
	visited := map[*opBundle]bool{}
	onStack := map[*opBundle]bool{}
	var dfs func(b *opBundle) *opEdge
	dfs = func(b *opBundle) *opEdge {
		visited[b] = true
		onStack[b] = true
		for _, i := range out[b] {
			e := &edges[i]
			if !visited[e.to] {
				if found := dfs(e.to); found != nil {
					return found
				}
			} else if onStack[e.to] {
				return e
			}
		}
		onStack[b] = false
		return nil
	}
	for _, b := range in {
		if !visited[b] {
			if e := dfs(b); e != nil {
				return e
			}
		}
	}
	return nil
}

// loopCause says which field of the CSV made the edge that closes a loop.
func loopCause(e *opEdge) string {
	if e.from == e.to {
		return fmt.Sprintf("%s's olm.skipRange %q holds its own version %s", e.to.name, e.to.skipRange, e.to.version)
	}
	return fmt.Sprintf("%s upgrades %s, which is on the way to it", e.to.name, e.from.name)
}

// readOpBundle reads what the graph rules need of a bundle folder: the
// CSV the pipeline finds (repo.CSVPath) and metadata/annotations.yaml; nil
// when the CSV cannot be read.
func readOpBundle(dir string, read map[string][]byte) *opBundle {
	csvPath, err := repo.CSVPath(dir)
	if err != nil {
		return nil
	}
	root := readYAMLRoot(dir, csvPath, read)
	if root == nil {
		return nil
	}
	at := func(n *declcfg.Node) declcfg.Pos { return declcfg.Pos{File: csvPath, Line: n.Line, Col: n.Column} }
	_, md := declcfg.PipelineKeys.Lookup(root, "metadata")
	_, nameNode := declcfg.PipelineKeys.Lookup(md, "name")
	if nameNode == nil || nameNode.Kind != declcfg.ScalarNode {
		return nil
	}
	b := &opBundle{dir: dir, csv: csvPath, name: nameNode.Value, namePos: at(nameNode)}
	_, v, ok := strings.Cut(b.name, ".")
	if !ok {
		return nil // the pipeline cannot read the CSV's version
	}
	b.version = strings.TrimLeft(v, "v")
	if sv, err := semver.Parse(b.version); err == nil {
		b.semver = &sv
	}
	_, ann := declcfg.PipelineKeys.Lookup(md, "annotations")
	if _, sr := declcfg.PipelineKeys.Lookup(ann, "olm.skipRange"); sr != nil && sr.Kind == declcfg.ScalarNode {
		b.skipRange, b.skipRangePos = sr.Value, at(sr)
	}
	_, spec := declcfg.PipelineKeys.Lookup(root, "spec")
	if _, r := declcfg.PipelineKeys.Lookup(spec, "replaces"); r != nil && r.Kind == declcfg.ScalarNode && r.Tag != "!!null" {
		b.previous, b.previousPos = append(b.previous, r.Value), append(b.previousPos, at(r))
	}
	if _, s := declcfg.PipelineKeys.Lookup(spec, "skips"); s != nil {
		for _, it := range items(s) {
			if it.Kind == declcfg.ScalarNode {
				b.previous, b.previousPos = append(b.previous, it.Value), append(b.previousPos, at(it))
			}
		}
	}
	if meta := readYAMLRoot(dir, filepath.Join(dir, "metadata", "annotations.yaml"), read); meta != nil {
		_, a := declcfg.PipelineKeys.Lookup(meta, "annotations")
		if _, chs := declcfg.PipelineKeys.Lookup(a, "operators.operatorframework.io.bundle.channels.v1"); chs != nil && chs.Kind == declcfg.ScalarNode {
			for _, ch := range strings.Split(chs.Value, ",") {
				b.channels = append(b.channels, strings.TrimSpace(ch))
			}
		}
		if _, d := declcfg.PipelineKeys.Lookup(a, "operators.operatorframework.io.bundle.channel.default.v1"); d != nil && d.Kind == declcfg.ScalarNode {
			b.defaultChannel = strings.TrimSpace(d.Value)
		}
	}
	return b
}

// readYAMLRoot parses a YAML file of one document of the bundle folder
// dir and returns its root node; nil when it cannot be read or parsed. The
// bytes the bundle checks read (read, by path in the folder) are used when
// they have the file.
func readYAMLRoot(dir, path string, read map[string][]byte) *declcfg.Node {
	data, ok := []byte(nil), false
	if rel, err := filepath.Rel(dir, path); err == nil {
		data, ok = read[filepath.ToSlash(rel)]
	}
	if !ok {
		var err error
		if data, err = safefs.ReadFile(path); err != nil {
			return nil
		}
	}
	docs, err := declcfg.ParseYAML(data)
	if err != nil || len(docs) == 0 {
		return nil
	}
	return declcfg.Deref(docs[0].Node)
}
