package images

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
)

// MirrorSets are the mirror rules of ImageDigestMirrorSet, ImageTagMirrorSet
// and ImageContentSourcePolicy documents, applied the way a cluster's
// container runtime applies them once the machine-config operator has
// written them into registries.conf:
//
//   - A rule's source is a registry (host[:port]), a namespace or a
//     repository, or *.domain for every host under that domain. A
//     reference matches a source when its repository is the source or lies
//     under it; of the sources that match, only the longest applies (rules
//     with the same source are merged, their mirrors kept in order).
//   - Digest mirrors (ImageDigestMirrorSet, ImageContentSourcePolicy) serve
//     only references by digest; tag mirrors (ImageTagMirrorSet) only
//     references by tag.
//   - A mirror's location replaces the part of the reference the source
//     matched (for *.domain, the host).
//   - Mirrors are tried in order, then the source itself, unless a rule
//     for that source says mirrorSourcePolicy: NeverContactSource.
type MirrorSets struct {
	rules []*mirrorRule
}

// mirrorRule is what every document says about one source.
type mirrorRule struct {
	source        string
	wildcard      bool // source is *.domain
	digestMirrors []string
	tagMirrors    []string
	neverSource   bool
	pos           declcfg.Pos
}

// Mirror set kinds.
const (
	kindIDMS = "ImageDigestMirrorSet"
	kindITMS = "ImageTagMirrorSet"
	kindICSP = "ImageContentSourcePolicy"
)

// Patterns of the OpenShift API for a source and a mirror.
var (
	hostPart = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	pathPart = `(?:/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*`
	mirrorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^` + hostPart + `(?:\.` + hostPart + `)*(?::[0-9]+)?` + pathPart + `$`)
	})
	wildcardRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*(?:\.` + hostPart + `)+$`) })
	mirrorKinds = kindIDMS + ", " + kindITMS + " or " + kindICSP
)

// MirrorError is a mirror-set file that is not one, or a rule in it that
// a cluster would refuse.
type MirrorError struct {
	Pos declcfg.Pos
	Msg string
}

func (e *MirrorError) Error() string { return e.Pos.Prefix(e.Msg) }

// FaultKind: a bad mirror set is a bad request (it is not the catalog that
// is wrong).
func (e *MirrorError) FaultKind() fault.Kind { return fault.Usage }

// Parse reads mirror-set documents from data (YAML or JSON, one
// or several documents, or a List of them); name names the file in errors.
// It adds to ms (which may be a zero value).
func (ms *MirrorSets) Parse(name string, data []byte) error {
	f := declcfg.ParseFile(name, data)
	for _, e := range f.Errors {
		switch {
		case e.Warning, e.Rule == declcfg.RuleEmptyDocument:
		case e.Rule == declcfg.RuleNotObject:
			return &MirrorError{Pos: e.Pos, Msg: "not a mirror set: want " + mirrorKinds + " documents, each an object"}
		default:
			return &MirrorError{Pos: e.Pos, Msg: e.Msg}
		}
	}
	if len(f.Docs) == 0 {
		return &MirrorError{Pos: declcfg.Pos{File: name}, Msg: "no documents: a mirror-set file holds " + mirrorKinds + " documents"}
	}
	for _, d := range f.Docs {
		if err := ms.document(name, d.Node, 0); err != nil {
			return err
		}
	}
	return nil
}

func (ms *MirrorSets) document(file string, n *declcfg.Node, depth int) error {
	fail := func(at *declcfg.Node, format string, args ...any) error {
		if at == nil {
			at = n
		}
		return &MirrorError{Pos: atPos(file, at), Msg: fmt.Sprintf(format, args...)}
	}
	if declcfg.Deref(n) == nil || declcfg.Deref(n).Kind != declcfg.MappingNode {
		return fail(n, "not a mirror set: want a %s document, got %s", mirrorKinds, declcfg.KindName(n))
	}
	kn := field(n, "kind")
	kind := strValue(kn)
	var key string
	digest, tag := false, false
	switch kind {
	case "List":
		if depth > 0 {
			return fail(kn, "a List inside a List")
		}
		for _, it := range items(field(n, "items")) {
			if err := ms.document(file, it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case kindIDMS:
		key, digest = "imageDigestMirrors", true
	case kindITMS:
		key, tag = "imageTagMirrors", true
	case kindICSP:
		key, digest = "repositoryDigestMirrors", true
	case "":
		return fail(n, "not a mirror set: the document has no kind (want %s)", mirrorKinds)
	default:
		return fail(kn, "not a mirror set: kind %s (want %s)", kind, mirrorKinds)
	}
	spec := field(n, "spec")
	if spec == nil {
		return fail(n, "%s without a spec", kind)
	}
	list := field(spec, key)
	if !declcfg.IsNull(list) && list.Kind != declcfg.SequenceNode {
		return fail(list, "spec.%s must be a list, not %s", key, declcfg.KindName(list))
	}
	for _, e := range items(list) {
		sn := field(e, "source")
		src, ok := str(sn)
		if !ok || src == "" {
			return fail(e, "%s entry without a source", kind)
		}
		wild := wildcardRE().MatchString(src)
		if !wild && !mirrorRE().MatchString(src) {
			return fail(sn, "source %q is not host[:port][/namespace...][/repo] or *.domain", src)
		}
		var mirrors []string
		mn := field(e, "mirrors")
		if !declcfg.IsNull(mn) && mn.Kind != declcfg.SequenceNode {
			return fail(mn, "mirrors must be a list, not %s", declcfg.KindName(mn))
		}
		for _, m := range items(mn) {
			loc, ok := str(m)
			if !ok || !mirrorRE().MatchString(loc) {
				return fail(m, "mirror %q is not host[:port][/namespace...][/repo]", m.Value)
			}
			mirrors = append(mirrors, loc)
		}
		never := false
		if pn := field(e, "mirrorSourcePolicy"); pn != nil {
			if kind == kindICSP {
				return fail(pn, "%s has no mirrorSourcePolicy (it always falls back to the source)", kindICSP)
			}
			switch p := strValue(pn); p {
			case "NeverContactSource":
				never = true
			case "AllowContactingSource", "":
			default:
				return fail(pn, "mirrorSourcePolicy %q: want NeverContactSource or AllowContactingSource", p)
			}
			if never && len(mirrors) == 0 {
				return fail(pn, "mirrorSourcePolicy NeverContactSource needs mirrors: without them the image cannot be pulled at all")
			}
		}
		r := ms.rule(src, atPos(file, sn))
		r.wildcard = wild
		if digest {
			r.digestMirrors = mergeMirrors(r.digestMirrors, mirrors)
		}
		if tag {
			r.tagMirrors = mergeMirrors(r.tagMirrors, mirrors)
		}
		r.neverSource = r.neverSource || never
	}
	return nil
}

func atPos(file string, n *declcfg.Node) declcfg.Pos { return at(file, declcfg.Deref(n)) }

// rule returns the rule for source, made on first use.
func (ms *MirrorSets) rule(source string, pos declcfg.Pos) *mirrorRule {
	for _, r := range ms.rules {
		if r.source == source {
			return r
		}
	}
	r := &mirrorRule{source: source, pos: pos}
	ms.rules = append(ms.rules, r)
	return r
}

// mergeMirrors adds the mirrors of another rule for the same source, in
// order, each once.
func mergeMirrors(have, add []string) []string {
	for _, m := range add {
		dup := false
		for _, h := range have {
			dup = dup || h == m
		}
		if !dup {
			have = append(have, m)
		}
	}
	return have
}

// Empty reports whether no rule was read.
func (ms *MirrorSets) Empty() bool { return ms == nil || len(ms.rules) == 0 }

// repoOf splits a reference into its repository (registry included, as a
// runtime spells it: docker.io/library/x) and what follows (":tag",
// "@digest", or both).
func repoOf(ref string) (repo, rest string, byDigest bool, err error) {
	r, err := imageref.Parse(ref)
	if err != nil {
		return "", "", false, err
	}
	repo = r.Domain + "/" + r.Path
	if r.Tag != "" {
		rest = ":" + r.Tag
	}
	if r.Digest != "" {
		rest += "@" + r.Digest
	}
	return repo, rest, r.Digest != "", nil
}

// match is the part of repo that rule r matches (-1: none).
func (r *mirrorRule) match(repo string) int {
	if r.wildcard {
		host, _, _ := strings.Cut(repo, "/")
		if strings.HasSuffix(host, r.source[1:]) {
			return len(host)
		}
		return -1
	}
	if repo == r.source || strings.HasPrefix(repo, r.source+"/") {
		return len(r.source)
	}
	return -1
}

// find is the rule that applies to repo: the longest source that matches.
func (ms *MirrorSets) find(repo string) (*mirrorRule, int) {
	var best *mirrorRule
	bestLen, matched := -1, 0
	for _, r := range ms.rules {
		if n := r.match(repo); n >= 0 && len(r.source) > bestLen {
			best, bestLen, matched = r, len(r.source), n
		}
	}
	return best, matched
}

// Pulls lists where a cluster looks for ref, in order: its mirrors (digest
// mirrors for a reference by digest, tag mirrors for one by tag), then ref
// itself unless the rule forbids contacting the source. A reference no rule
// matches is pulled from where it says.
func (ms *MirrorSets) Pulls(ref string) []string {
	if ms.Empty() {
		return []string{ref}
	}
	repo, rest, byDigest, err := repoOf(ref)
	if err != nil {
		return []string{ref}
	}
	r, n := ms.find(repo)
	if r == nil {
		return []string{ref}
	}
	mirrors := r.tagMirrors
	if byDigest {
		mirrors = r.digestMirrors
	}
	var out []string
	for _, m := range mirrors {
		out = append(out, m+repo[n:]+rest)
	}
	if !r.neverSource || len(mirrors) == 0 {
		out = append(out, ref)
	}
	return out
}

// SourceOf returns the reference a cluster would be given for ref when ref
// names a mirror rather than a source (as Konflux's run-opm-command finds
// them in templates): the source's repository with ref's tag and digest.
// ok is false when ref names no mirror, or a source too, or a mirror of a
// *.domain rule (whose host cannot be recovered).
func (ms *MirrorSets) SourceOf(ref string) (string, bool) {
	if ms.Empty() {
		return "", false
	}
	repo, rest, _, err := repoOf(ref)
	if err != nil {
		return "", false
	}
	if r, _ := ms.find(repo); r != nil {
		return "", false
	}
	best, bestLen := "", -1
	for _, r := range ms.rules {
		if r.wildcard {
			continue
		}
		for _, m := range append(append([]string(nil), r.digestMirrors...), r.tagMirrors...) {
			if (repo == m || strings.HasPrefix(repo, m+"/")) && len(m) > bestLen {
				best, bestLen = r.source+repo[len(m):]+rest, len(m)
			}
		}
	}
	return best, bestLen >= 0
}
