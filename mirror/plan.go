package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/compose"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/internal/safefs"
	"github.com/fbc-project/fbc/render"
)

// Options say what to plan and where.
type Options struct {
	Config *Config
	// Dir is the plan's folder: catalogs/<name>/ for each operators[]
	// entry, and with To, images.txt and cluster-resources/. It is written
	// whole, or left as it was.
	Dir string
	// Replace allows replacing a Dir that is not empty.
	Replace bool
	// To is the mirror registry and namespace (REGISTRY[:PORT][/NAMESPACE...],
	// docker:// allowed) the images go to; empty plans no copying.
	To string
	// WithDependencies adds what the kept bundles require from the same
	// catalog (compose's rules).
	WithDependencies bool
	// Format of the catalog files (default json).
	Format declcfg.Format
	// Renderer reads the catalogs: registries, oci:, archives, directories.
	Renderer *render.Renderer
}

// Plan is what a mirror needs, as written to Options.Dir.
type Plan struct {
	Dir      string
	To       string
	Catalogs []*CatalogPlan
	// Images are the images the kept bundles name, each once, by source;
	// only with To.
	Images []Mapping
	// Resources are the files of cluster-resources/, only with To.
	Resources []string
	// Ignored are the parts of the configuration left alone.
	Ignored []Ignored
}

// CatalogPlan is one operators[] entry's part of the plan.
type CatalogPlan struct {
	Operator Operator
	// Name is the catalog's folder under catalogs/.
	Name string
	// Source is what was read (oc-mirror's oci:// becomes fbc's oci:).
	Source string
	// Image is where the filtered catalog image goes ("" without To);
	// Repository and Tag are its parts, to fill in when there is no To.
	Image, Repository, Tag string
	Notes                  []compose.Note
	OutOfRange             []OutOfRange
	Packages               []PackageSummary
	Channels, Bundles      int
	// CatalogSource and ClusterCatalog are the files written for it under
	// cluster-resources/ (with To).
	CatalogSource, ClusterCatalog string
}

// PackageSummary is one kept package and whether its kept bundles still
// upgrade to their channel heads.
type PackageSummary struct {
	Name              string
	Channels, Bundles int
	// Classic and V1 list the bundles that do not upgrade to where a fresh
	// install of their channel lands (the channel's head) under OLM classic
	// (a Subscription to the channel) and OLM v1 (a ClusterExtension with
	// the channel); empty when all do.
	Classic, V1 []Stuck
}

// Stuck is a kept bundle that does not upgrade to its channel's head.
type Stuck struct {
	Channel, Bundle string
	// Why says where its upgrades stop, or how resolution fails.
	Why string
}

// Mapping is one image to copy.
type Mapping struct {
	Source, Destination string
	// Digest: the source is pulled by digest (an IDMS serves it); a source
	// by tag is served by an ITMS.
	Digest bool
	Tag    bool
}

// Files written in Dir.
const (
	ImagesFile   = "images.txt"
	ResourcesDir = "cluster-resources"
	CatalogsDir  = "catalogs"
	idmsFile     = "idms-oc-mirror.yaml"
	itmsFile     = "itms-oc-mirror.yaml"
)

// MakePlan reads each operators[] entry's catalog, cuts it (CutCatalog, then
// dependencies), validates the result with fbc validate's rules, surveys its
// upgrades, and writes the plan into Options.Dir in one step. Errors name
// the configuration's file and line: a refusal or a catalog that lacks what
// the configuration names is Input; a catalog that cannot be read is Run.
func MakePlan(ctx context.Context, opts Options) (*Plan, error) {
	cfg := opts.Config
	to, err := parseTo(opts.To)
	if err != nil {
		return nil, err
	}
	if err := checkApart(opts.Dir, cfg); err != nil {
		return nil, err
	}
	if err := checkTargets(cfg); err != nil {
		return nil, err
	}
	p := &Plan{Dir: opts.Dir, To: to, Ignored: cfg.Ignored}
	var results []*compose.Result
	defer func() {
		for _, r := range results {
			r.Close()
		}
	}()
	names := map[string]bool{}
	for _, op := range cfg.Operators {
		cp, res, err := planCatalog(ctx, op, opts)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
		cp.Name = folderName(cp, names)
		if to != "" {
			cp.Image = to + "/" + cp.Repository + ":" + cp.Tag
		}
		p.Catalogs = append(p.Catalogs, cp)
	}
	if to != "" {
		if err := p.mapImages(results); err != nil {
			return nil, err
		}
	}
	files, err := p.resources(to)
	if err != nil {
		return nil, err
	}
	err = atomicfile.WriteDir(ctx, opts.Dir, opts.Replace, func(tmp string) error {
		for i, cp := range p.Catalogs {
			res := results[i]
			dir := filepath.Join(tmp, CatalogsDir, cp.Name)
			if err := compose.WriteTree(ctx, res.Config, dir, compose.DirOptions{Format: opts.Format, Folder: res.Folder, Expand: res.Expand}); err != nil {
				return err
			}
		}
		for _, name := range sortedNames(files) {
			if err := ctx.Err(); err != nil {
				return err
			}
			f := filepath.Join(tmp, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return err
			}
			if err := writeSynced(f, files[name]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", opts.Dir, err)
	}
	return p, nil
}

// checkApart refuses a plan folder that is, holds or lies inside what the
// plan reads: the configuration, or a local catalog (a directory, layout
// or archive). Replacing it (--force) would delete that input, and a plan
// written into a catalog directory would become part of the catalog the
// next run reads. Paths are compared absolute with symbolic links resolved.
func checkApart(dir string, cfg *Config) error {
	out, err := safefs.RealPath(dir)
	if err != nil {
		return err
	}
	type input struct{ what, path string }
	inputs := []input{{"the configuration " + cfg.File, cfg.File}}
	for _, op := range cfg.Operators {
		if p := localPath(sourceOf(op.Catalog)); p != "" {
			inputs = append(inputs, input{fmt.Sprintf("catalog %q (%s)", op.Catalog, op.CatalogPos), p})
		}
	}
	for _, in := range inputs {
		if in.path == "" || in.path == "-" {
			continue
		}
		p, err := safefs.RealPath(in.path)
		if err != nil {
			continue
		}
		how := safefs.Overlap(out, p)
		if how == "" {
			continue
		}
		return fault.Errorf(fault.Usage, "plan folder %s %s %s: writing the plan there would change or delete it; choose a folder outside it", dir, how, in.what)
	}
	return nil
}

// checkTargets refuses two entries whose cut catalogs would be the same
// image under the mirror (the same repository and tag): the second pushed
// would replace the first. It needs only the configuration, so it runs
// before any catalog is read.
func checkTargets(cfg *Config) error {
	first := map[string]Operator{}
	for _, op := range cfg.Operators {
		repo, tag := targetOf(op, sourceOf(op.Catalog))
		ref := repo + ":" + tag
		if prev, ok := first[ref]; ok {
			return &ConfigError{Pos: op.CatalogPos, Msg: fmt.Sprintf("catalog %q: its cut catalog would be the same image as catalog %q (line %d), %s under the mirror: set targetCatalog or targetTag to tell them apart", op.Catalog, prev.Catalog, prev.CatalogPos.Line, ref)}
		}
		first[ref] = op
	}
	return nil
}

// localPath is the file or directory a catalog source reads: the path of
// a layout or archive, or a path that exists; "" for a registry image.
func localPath(src string) string {
	if _, rest, ok := imageref.CutTransport(src); ok {
		return imageref.SplitLocal(rest).Path
	}
	if _, err := os.Stat(src); err == nil {
		return src
	}
	return ""
}

// writeSynced writes a new file and syncs it, as the catalogs beside it are
// synced before the tree is renamed into place.
func writeSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// planCatalog reads and cuts one entry's catalog, validates and surveys the
// cut.
func planCatalog(ctx context.Context, op Operator, opts Options) (*CatalogPlan, *compose.Result, error) {
	src := sourceOf(op.Catalog)
	cp := &CatalogPlan{Operator: op, Source: src}
	cp.Repository, cp.Tag = targetOf(op, src)
	listed := map[string]bool{}
	for _, p := range op.Packages {
		listed[p.Name] = true
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var keep func(string) bool
	if len(op.Packages) > 0 && !opts.WithDependencies {
		keep = func(pkg string) bool {
			mu.Lock()
			seen[pkg] = true
			mu.Unlock()
			return listed[pkg]
		}
	}
	var cut *Cut
	res, err := compose.Compose(ctx, compose.Options{
		Sources:  []string{src},
		Renderer: opts.Renderer,
		Keep:     keep,
		Cut: func(cat *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []compose.Note, error) {
			var known []string
			if keep != nil {
				known = sortedNames(seen)
			}
			var err error
			if cut, err = CutCatalog(cat, op, known); err != nil {
				return nil, nil, err
			}
			out, notes := cut.Config, cut.Notes
			if opts.WithDependencies {
				var deps []compose.Note
				out, deps = compose.AddDependencies(cat, out, cut.HeadsOnly)
				notes = append(notes, deps...)
			}
			return out, notes, nil
		},
	})
	if err != nil {
		var ce *ConfigError
		var jce joinedConfigErrors
		if errors.As(err, &ce) || errors.As(err, &jce) {
			return nil, nil, err
		}
		return nil, nil, &CatalogError{Pos: op.CatalogPos, Catalog: op.Catalog, Err: err}
	}
	cp.Notes, cp.OutOfRange = res.Notes, cut.OutOfRange
	if err := validateCut(ctx, res, op); err != nil {
		res.Close()
		return nil, nil, err
	}
	cp.Packages, cp.Channels, cp.Bundles = summarize(res.Config)
	return cp, res, nil
}

// CatalogError is a catalog that could not be read, at the configuration
// line that names it. Its kind is the reading error's.
type CatalogError struct {
	Pos     declcfg.Pos
	Catalog string
	Err     error
}

func (e *CatalogError) Error() string {
	return e.Pos.Prefix(fmt.Sprintf("catalog %q: %v", e.Catalog, e.Err))
}

func (e *CatalogError) Unwrap() error { return e.Err }

// FaultKind: nothing readable is trouble with the run; content at fault is
// Input.
func (e *CatalogError) FaultKind() fault.Kind { return fault.KindOf(e.Err) }

// validateCut validates the cut a package at a time with fbc validate's
// rules; an error finding fails the plan (Input), with the findings.
func validateCut(ctx context.Context, res *compose.Result, op Operator) error {
	vr, err := res.Validate(ctx)
	if err != nil {
		return err
	}
	var msgs []string
	for _, d := range vr.Diagnostics {
		if d.Severity == declcfg.SeverityError {
			msgs = append(msgs, "  "+d.String())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	if len(msgs) > 20 {
		msgs = append(msgs[:20], fmt.Sprintf("  ... and %d more", len(msgs)-20))
	}
	return &ConfigError{Pos: op.CatalogPos, Msg: fmt.Sprintf("catalog %q: the catalog cut from it does not validate, so nothing is written:\n%s", op.Catalog, strings.Join(msgs, "\n"))}
}

// summarize counts what the cut keeps and surveys each package's upgrades
// under OLM classic and OLM v1, a channel at a time.
func summarize(cfg *declcfg.DeclarativeConfig) ([]PackageSummary, int, int) {
	cat := graph.New(cfg, nil) // the cut is validated: its problems are findings there
	byName := map[string]*PackageSummary{}
	var out []PackageSummary
	for _, name := range cat.PackageNames() {
		out = append(out, PackageSummary{Name: name})
	}
	for i := range out {
		byName[out[i].Name] = &out[i]
	}
	for _, ch := range cfg.Channels {
		if s := byName[ch.Package]; s != nil {
			s.Channels++
		}
	}
	for _, b := range cfg.Bundles {
		if s := byName[b.Package]; s != nil {
			s.Bundles++
		}
	}
	for _, sem := range []graph.Semantics{graph.Classic, graph.V1} {
		cs, err := graph.SurveyCatalog(cat, graph.UpgradeQuery{Options: graph.Options{Semantics: sem}})
		if err != nil {
			continue
		}
		for _, s := range cs.Packages {
			ps := byName[s.Package]
			if ps == nil {
				continue
			}
			var stuck []Stuck
			for _, sel := range s.Selections {
				ch := strings.Join(sel.Channels, ",")
				if sel.Err != nil {
					stuck = append(stuck, Stuck{Channel: ch, Why: "no bundle of the channel resolves: " + sel.Err.Error()})
					continue
				}
				for _, r := range sel.Rows {
					switch {
					case r.Err != nil:
						stuck = append(stuck, Stuck{Channel: ch, Bundle: r.From.Name, Why: r.Err.Error()})
					case r.DeadEnd() && r.End == r.From:
						stuck = append(stuck, Stuck{Channel: ch, Bundle: r.From.Name, Why: fmt.Sprintf("it is never upgraded; a fresh install gets %s", headName(sel))})
					case r.DeadEnd():
						stuck = append(stuck, Stuck{Channel: ch, Bundle: r.From.Name, Why: fmt.Sprintf("its upgrades stop at %s; a fresh install gets %s", r.End.Name, headName(sel))})
					}
				}
			}
			if sem == graph.Classic {
				ps.Classic = stuck
			} else {
				ps.V1 = stuck
			}
		}
	}
	return out, len(cfg.Channels), len(cfg.Bundles)
}

func headName(sel *graph.Selection) string {
	if sel.Head == nil {
		return "(none)"
	}
	return sel.Head.Name
}

// sourceOf is what fbc reads for a catalog: oc-mirror's oci:// layout path
// as fbc's oci: reference, docker:// dropped.
func sourceOf(catalog string) string {
	switch {
	case strings.HasPrefix(catalog, "oci://"):
		return "oci:" + strings.TrimPrefix(catalog, "oci://")
	case strings.HasPrefix(catalog, "docker://"):
		return strings.TrimPrefix(catalog, "docker://")
	}
	return catalog
}

// targetOf is where the filtered catalog goes under the mirror, as oc-mirror
// places it: targetCatalog, else the catalog's repository path (a layout,
// archive or directory: its last path element); tagged targetTag, else the
// catalog's tag, else latest (oc-mirror's tag for an oci:// layout), or for a
// catalog pinned by digest only, the digest's algorithm and a hash of the
// entry (oc-mirror tags it with a hash of its filter).
func targetOf(op Operator, src string) (repo, tag string) {
	tag = "latest"
	if !hasTransport(src) && render.IsImage(src) {
		if r, err := imageref.Parse(src); err == nil {
			repo = r.Path
			switch {
			case r.Tag != "":
				tag = r.Tag
			case r.Digest != "":
				alg, _, _ := strings.Cut(r.Digest, ":")
				tag = alg + "-" + entryHash(op)
			}
		}
	}
	if repo == "" {
		p := src
		if hasTransport(src) {
			_, p, _ = strings.Cut(src, ":")
		}
		base := path.Base(filepath.ToSlash(strings.TrimSuffix(p, "/")))
		for _, ext := range []string{".tar.gz", ".tgz", ".tar", ".json", ".yaml", ".yml"} {
			if b, ok := strings.CutSuffix(base, ext); ok && b != "" {
				base = b
				break
			}
		}
		repo = pathComponent(base)
	}
	if op.TargetCatalog != "" {
		repo = op.TargetCatalog
	}
	if op.TargetTag != "" {
		tag = op.TargetTag
	}
	return repo, tag
}

func hasTransport(src string) bool {
	for _, t := range []string{"oci:", "oci-archive:", "docker-archive:"} {
		if strings.HasPrefix(src, t) {
			return true
		}
	}
	return false
}
