package images

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/validate"
)

// Rule ids of Check's findings.
const (
	RuleReference     = "image-reference"
	RuleUnpinned      = "image-unpinned"
	RuleRegistry      = "image-registry"
	RuleMissing       = "image-missing"
	RulePlatform      = "image-platform"
	RulePlatformLabel = "image-platform-label"
)

// Rules describes Check's findings, for reports.
func Rules() []validate.Rule {
	return []validate.Rule{
		{ID: RuleReference, Severity: declcfg.SeverityError, Summary: "An image reference that is not one",
			Help: "Write the reference as REGISTRY/REPOSITORY@sha256:DIGEST (or :TAG): lower-case repository, a registry host first."},
		{ID: RuleUnpinned, Severity: declcfg.SeverityError, Summary: "An image referenced by tag instead of digest",
			Help: "Tags move; clusters, mirrors and scans need digests. `fbc images pin` rewrites tags to the digests the registries hold now."},
		{ID: RuleRegistry, Severity: declcfg.SeverityError, Summary: "An image from a registry the allowed list does not name",
			Help: "Publish the image to an allowed registry, or add its registry to the allowed ones."},
		{ID: RuleMissing, Severity: declcfg.SeverityError, Summary: "An image the registry does not have",
			Help: "Push the image, or fix the reference; the message quotes the registry's answer (and each mirror's)."},
		{ID: RulePlatform, Severity: declcfg.SeverityError, Summary: "An operator image that does not run on a platform its CSV's labels claim",
			Help: "Build the operator image for every platform the CSV labels operatorframework.io/arch.ARCH and operatorframework.io/os.OS name (an image index), or drop the labels of the platforms it does not support. Without labels, OLM assumes linux/amd64."},
		{ID: RulePlatformLabel, Severity: declcfg.SeverityWarning, Summary: "Operator images run on a platform the CSV's labels leave out",
			Help: "OLM offers the operator only on the platforms its CSV labels name: add operatorframework.io/arch.ARCH: supported (and os.OS) for every platform the operator images are built for."},
	}
}

// CheckOptions say how Check asks registries and what it allows.
type CheckOptions struct {
	Client *image.Client
	// Mirrors, when set, are looked through as a cluster pulls.
	Mirrors *MirrorSets
	// AllowRegistries, when set, are the registries (host[:port], or a
	// namespace or repository under one: quay.io/org, quay.io/org/op)
	// references may name.
	AllowRegistries []string
	// Jobs bounds the references asked about at once (default 16).
	Jobs int
	// Progress, when set, counts the distinct references to ask about and
	// those answered.
	Progress *progress.Counter
}

// CheckResult is what Check found.
type CheckResult struct {
	Diagnostics []declcfg.Finding
	// Asked counts the distinct references asked about.
	Asked int
	// NotChecked are the references that could not be checked: their
	// registry (and every mirror) could not be reached, refused access,
	// or, offline, the cache lacked them. The run is then incomplete.
	NotChecked []Failure
}

// Unchecked counts the distinct references that could not be checked.
func (r *CheckResult) Unchecked() int {
	seen := map[string]bool{}
	for _, f := range r.NotChecked {
		seen[Normalize(f.Ref)] = true
	}
	return len(seen)
}

// Result is the findings as a validation result, with the scan's counts,
// for validate's report writers.
func (r *CheckResult) Result(s *Scan) *validate.Result {
	res := &validate.Result{Diagnostics: r.Diagnostics, Stats: validate.Stats{Files: s.Files, Channels: s.Channels, Bundles: len(s.Bundles)}}
	pkgs := map[string]bool{}
	for _, b := range s.Bundles {
		if b.Package != "" {
			pkgs[b.Package] = true
		}
	}
	res.Stats.Packages = len(pkgs)
	return res
}

// answer is what a registry said about one distinct reference.
type answer struct {
	ref       string
	platforms bool
	info      *image.ManifestInfo
	err       error
}

// Check checks every reference of scan: that it is a reference, pinned by
// digest, from an allowed registry, and that its registry has it (a manifest
// HEAD, or a GET for operator images whose platforms are compared with their
// CSV's labels). Each distinct reference is asked about once, Jobs at a
// time, through the retry policy of opts.Client; a registry that cannot be
// reached is not asked again. Findings carry the position where each
// reference is written.
func Check(ctx context.Context, scan *Scan, opts CheckOptions) (*CheckResult, error) {
	res := &CheckResult{}
	report := func(r Ref, rule string, sev declcfg.Severity, format string, args ...any) {
		res.Diagnostics = append(res.Diagnostics, declcfg.Finding{Rule: rule, Severity: sev, Pos: r.Pos,
			Package: r.Package, Bundle: r.Bundle, Message: describe(r) + fmt.Sprintf(format, args...)})
	}
	allowed := normalizeAllowed(opts.AllowRegistries)
	answers := map[string]*answer{}
	var order []*answer
	for _, b := range scan.Bundles {
		for _, r := range b.Refs {
			ir, err := imageref.Parse(r.Image)
			if err != nil {
				report(r, RuleReference, declcfg.SeverityError, "is not a valid image reference: %v", err)
				continue
			}
			if ir.Digest == "" {
				report(r, RuleUnpinned, declcfg.SeverityError, "is not pinned by digest (tag %q)", ir.Tag)
			}
			if len(allowed) > 0 && !registryAllowed(ir, allowed) {
				report(r, RuleRegistry, declcfg.SeverityError, "comes from %s, which is not an allowed registry (%s)", ir.Domain, strings.Join(opts.AllowRegistries, ", "))
			}
			key := Normalize(r.Image)
			a := answers[key]
			if a == nil {
				a = &answer{ref: r.Image}
				answers[key] = a
				order = append(order, a)
			}
			if r.Kind == KindOperator && b.LabelsKnown {
				a.platforms = true
			}
		}
	}
	if opts.Client == nil {
		return nil, fmt.Errorf("check: no image client")
	}
	rs := newResolver(opts.Client, opts.Mirrors)
	opts.Progress.Found(len(order))
	if err := forEach(ctx, len(order), opts.Jobs, func(i int) {
		a := order[i]
		a.info, _, a.err = rs.lookup(ctx, a.ref, a.platforms)
		opts.Progress.Done(1)
	}); err != nil {
		return nil, err
	}
	res.Asked = len(order)
	for _, b := range scan.Bundles {
		seen := map[string]bool{}
		for _, r := range b.Refs {
			a := answers[Normalize(r.Image)]
			if a == nil || a.err == nil {
				continue
			}
			if missing(a.err) {
				report(r, RuleMissing, declcfg.SeverityError, "does not exist: %v", a.err)
				continue
			}
			if !seen[r.Image] {
				seen[r.Image] = true
				res.NotChecked = append(res.NotChecked, Failure{Pos: r.Pos, Ref: r.Image, Err: a.err})
			}
		}
		checkPlatforms(b, answers, report)
	}
	// A stub's bundle image that could not be read for its related images:
	// when the registry answered that it is missing, or it is no reference,
	// the findings say so; when its registry could not be reached, it is
	// not checked already. An image that is there leaves its related images
	// unchecked.
	for _, f := range scan.Unread {
		if a := answers[Normalize(f.Ref)]; a != nil && a.err == nil {
			res.NotChecked = append(res.NotChecked, Failure{Pos: f.Pos, Ref: f.Ref,
				Err: fmt.Errorf("the bundle image is there, but its related images could not be read: %w", f.Err)})
		}
	}
	slices.SortStableFunc(res.Diagnostics, func(x, y declcfg.Finding) int {
		return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), cmp.Compare(x.Col, y.Col), strings.Compare(x.Rule, y.Rule))
	})
	return res, nil
}

// describe names a reference at the start of a finding's message.
func describe(r Ref) string {
	what := map[Kind]string{KindBundle: "bundle image", KindOperator: "operator image", KindRelated: "related image"}[r.Kind]
	s := fmt.Sprintf("%s %s ", what, r.Image)
	if r.Via != "" {
		s = fmt.Sprintf("%s %s (of bundle image %s) ", what, r.Image, r.Via)
	}
	return s
}

// missing reports whether a lookup failed because the registries answered
// that the image is not there (as opposed to not answering, or refusing
// access, which leave the question open).
func missing(err error) bool {
	var le *LookupError
	if !errors.As(err, &le) {
		return false
	}
	for _, a := range le.Attempts {
		var re *image.RegistryError
		if !errors.As(a.Err, &re) {
			return false
		}
		switch re.Status {
		case http.StatusNotFound, http.StatusBadRequest, http.StatusGone:
		default:
			return false
		}
	}
	return len(le.Attempts) > 0
}

// normalizeAllowed spells allowed registries (and namespaces) as references
// are normalized.
func normalizeAllowed(list []string) []string {
	var out []string
	for _, a := range list {
		a = strings.TrimSuffix(strings.TrimSpace(a), "/")
		if a == "index.docker.io" {
			a = "docker.io"
		}
		out = append(out, a)
	}
	return out
}

// registryAllowed reports whether r's repository is an allowed registry,
// namespace or repository, or lies under one, a path segment at a time:
// quay.io/org allows quay.io/org and quay.io/org/op, not quay.io/organic.
func registryAllowed(r imageref.Ref, allowed []string) bool {
	repo := r.Domain + "/" + r.Path
	for _, a := range allowed {
		if r.Domain == a || repo == a || strings.HasPrefix(repo, a+"/") {
			return true
		}
	}
	return false
}

// platformLabels reads a CSV's operatorframework.io/arch.* and os.* labels
// (value "supported"); without any, OLM assumes amd64 and linux.
func platformLabels(labels map[string]string) (arches, oses []string) {
	for k, v := range labels {
		if v != "supported" {
			continue
		}
		if a, ok := strings.CutPrefix(k, "operatorframework.io/arch."); ok {
			arches = append(arches, a)
		}
		if o, ok := strings.CutPrefix(k, "operatorframework.io/os."); ok {
			oses = append(oses, o)
		}
	}
	if len(arches) == 0 {
		arches = []string{"amd64"}
	}
	if len(oses) == 0 {
		oses = []string{"linux"}
	}
	sort.Strings(arches)
	sort.Strings(oses)
	return arches, oses
}

// checkPlatforms compares a bundle's platform labels with the platforms of
// its operator images: each must run everywhere the labels claim (an
// error), and a platform every operator image runs on but the labels leave
// out is a warning (OLM will not offer the operator there).
func checkPlatforms(b *Bundle, answers map[string]*answer, report func(Ref, string, declcfg.Severity, string, ...any)) {
	if !b.LabelsKnown {
		return
	}
	arches, oses := platformLabels(b.Labels)
	var common map[string]bool // os/arch every operator image runs on
	var first *Ref
	n := 0
	for _, r := range b.Images() {
		a := answers[Normalize(r.Image)]
		if r.Kind != KindOperator || a == nil || a.info == nil || len(a.info.Platforms) == 0 {
			continue
		}
		have := map[string]bool{}
		for _, p := range a.info.Platforms {
			parts := strings.Split(p, "/")
			if len(parts) >= 2 {
				have[parts[0]+"/"+parts[1]] = true
			}
		}
		if len(have) == 0 {
			continue // a config without a platform says nothing
		}
		var lacking []string
		for _, o := range oses {
			for _, ar := range arches {
				if !have[o+"/"+ar] {
					lacking = append(lacking, o+"/"+ar)
				}
			}
		}
		if len(lacking) > 0 {
			report(r, RulePlatform, declcfg.SeverityError, "does not run on %s, which the CSV's labels claim (it runs on %s)",
				strings.Join(lacking, ", "), strings.Join(a.info.Platforms, ", "))
		}
		n++
		if common == nil {
			common = have
			rr := r
			first = &rr
		} else {
			for p := range common {
				if !have[p] {
					delete(common, p)
				}
			}
		}
	}
	if first == nil {
		return
	}
	var extra []string
	for p := range common {
		o, ar, _ := strings.Cut(p, "/")
		if !slices.Contains(arches, ar) || !slices.Contains(oses, o) {
			extra = append(extra, p)
		}
	}
	if len(extra) == 0 {
		return
	}
	sort.Strings(extra)
	var labels []string
	for _, p := range extra {
		o, ar, _ := strings.Cut(p, "/")
		if !slices.Contains(arches, ar) {
			labels = append(labels, "operatorframework.io/arch."+ar)
		}
		if !slices.Contains(oses, o) {
			labels = append(labels, "operatorframework.io/os."+o)
		}
	}
	labels = slices.Compact(labels)
	pos := b.Pos
	if pos.File == "" {
		pos = first.Pos
	}
	r := *first
	r.Pos = pos
	also := "runs"
	if n > 1 {
		also = fmt.Sprintf("and the bundle's %d other operator images run", n-1)
	}
	report(r, RulePlatformLabel, declcfg.SeverityWarning, "%s on %s too, but the CSV has no %s label: OLM offers the operator only where its labels say",
		also, strings.Join(extra, ", "), strings.Join(labels, ", "))
}
