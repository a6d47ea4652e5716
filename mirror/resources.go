package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/compose"
	"github.com/fbc-project/fbc/images"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
)

// What a plan writes besides the catalogs: images.txt, the lines `oc image
// mirror -f` takes (SOURCE=DESTINATION), and cluster-resources/, the
// ImageDigestMirrorSet, ImageTagMirrorSet, CatalogSources and
// ClusterCatalogs oc-mirror v2 writes after a mirror to a registry, named
// and shaped as it writes them (files idms-oc-mirror.yaml and
// itms-oc-mirror.yaml, cs-<repository>-<tag>.yaml and
// cc-<repository>-<tag>.yaml), so that what consumes oc-mirror's output
// consumes fbc's.

// mirrorRE is what --to may be: a registry host (with a port) and
// namespaces, as a mirror of a mirror set is written.
var mirrorRE = regexp.MustCompile(`^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*$`)

// parseTo checks the mirror's location (docker:// and a trailing slash
// dropped).
func parseTo(to string) (string, error) {
	to = strings.TrimSuffix(strings.TrimPrefix(to, "docker://"), "/")
	if to == "" {
		return "", nil
	}
	if !mirrorRE.MatchString(to) {
		return "", fault.Errorf(fault.Usage, "mirror %q is not REGISTRY[:PORT][/NAMESPACE...]: a registry host and lowercase namespaces, without tag or scheme", to)
	}
	// A reference's first element is its registry only when it has a '.'
	// or a port or is localhost; otherwise runtimes (and oc image mirror)
	// read the whole as a path on docker.io.
	if host, _, _ := strings.Cut(to, "/"); !strings.ContainsAny(host, ".:") && host != "localhost" {
		return "", fault.Errorf(fault.Usage, "mirror %q names no registry host: %q has no ., port or localhost, so %s/NAME is read as docker.io/%[1]s/NAME; write the host as the cluster reaches it (registry.example.com, registry:5000)", to, host, to)
	}
	return to, nil
}

// mapImages lists the images of every kept bundle (its image and related
// images) with where each goes, as oc-mirror places them: the repository
// path under the mirror, tagged as the source is, or sha256-<hex> for a
// source pinned only by digest (a source with both is pulled by digest and
// tagged).
func (p *Plan) mapImages(results []*compose.Result) error {
	seen := map[string]bool{}
	for i, res := range results {
		for j := range res.Config.Bundles {
			b := &res.Config.Bundles[j]
			for _, ref := range images.OfBundle(b, p.Catalogs[i].Source).Images() {
				if seen[ref.Image] {
					continue
				}
				seen[ref.Image] = true
				m, err := mapping(ref.Image, p.To)
				if err != nil {
					return &ConfigError{Pos: p.Catalogs[i].Operator.CatalogPos, Msg: fmt.Sprintf("catalog %q: bundle %q of package %q names %q, which is not an image reference: %v", p.Catalogs[i].Operator.Catalog, b.Name, b.Package, ref.Image, err)}
				}
				// Spellings of one image (busybox:1,
				// docker.io/library/busybox:1) map to one line.
				if line := m.Source + "=" + m.Destination; !seen[line] {
					seen[line] = true
					p.Images = append(p.Images, m)
				}
			}
		}
	}
	slices.SortFunc(p.Images, func(a, b Mapping) int { return strings.Compare(a.Source, b.Source) })
	return nil
}

// mapping is where one image goes. The source is written as the cluster's
// runtime reads it: registry and repository in full (docker.io/library/...
// for a single name), and :latest for a reference with neither tag nor
// digest.
func mapping(ref, to string) (Mapping, error) {
	r, err := imageref.Parse(ref)
	if err != nil {
		return Mapping{}, err
	}
	if r.Tag == "" && r.Digest == "" {
		r.Tag = "latest"
	}
	m := Mapping{Digest: r.Digest != "", Tag: r.Tag != ""}
	repo := r.Domain + "/" + r.Path
	dest := to + "/" + r.Path
	switch {
	case r.Tag != "" && r.Digest != "":
		m.Source = repo + "@" + r.Digest
		dest += ":" + r.Tag
	case r.Tag != "":
		m.Source = repo + ":" + r.Tag
		dest += ":" + r.Tag
	default:
		m.Source = repo + "@" + r.Digest
		dest += ":" + strings.Replace(r.Digest, ":", "-", 1)
	}
	m.Destination = dest
	return m, nil
}

// scopes are the source and mirror a mirror-set rule names for an image:
// their namespaces (the repository path without its last element), as
// oc-mirror scopes them when the mirror's path ends with the source's.
func scopes(ref, to string) (string, string) {
	r, err := imageref.Parse(ref)
	if err != nil {
		return "", ""
	}
	ns := path.Dir(r.Path)
	if ns == "." {
		return r.Domain, to
	}
	return r.Domain + "/" + ns, to + "/" + ns
}

// resources are the files of the plan other than the catalogs, by their
// path in Dir: images.txt and cluster-resources/ with a mirror; nothing
// without.
func (p *Plan) resources(to string) (map[string][]byte, error) {
	files := map[string][]byte{}
	if to == "" {
		return files, nil
	}
	var lines strings.Builder
	digest, tag := map[string][]string{}, map[string][]string{}
	for _, m := range p.Images {
		fmt.Fprintf(&lines, "%s=%s\n", m.Source, m.Destination)
		src, mirror := scopes(m.Source, to)
		if m.Digest && !slices.Contains(digest[src], mirror) {
			digest[src] = append(digest[src], mirror)
		}
		if m.Tag && !slices.Contains(tag[src], mirror) {
			tag[src] = append(tag[src], mirror)
		}
	}
	files[ImagesFile] = []byte(lines.String())
	for _, set := range []struct {
		file, kind, name, list string
		rules                  map[string][]string
	}{
		{idmsFile, "ImageDigestMirrorSet", "idms-operator-0", "imageDigestMirrors", digest},
		{itmsFile, "ImageTagMirrorSet", "itms-operator-0", "imageTagMirrors", tag},
	} {
		if len(set.rules) == 0 {
			continue
		}
		var rules []any
		for _, src := range sortedNames(set.rules) {
			rules = append(rules, map[string]any{"source": src, "mirrors": set.rules[src]})
		}
		doc, err := yamlDoc(map[string]any{
			"apiVersion": "config.openshift.io/v1",
			"kind":       set.kind,
			"metadata":   map[string]any{"name": set.name, "annotations": annotations()},
			"spec":       map[string]any{set.list: rules},
		})
		if err != nil {
			return nil, err
		}
		name := ResourcesDir + "/" + set.file
		files[name] = append([]byte("---\n"), doc...)
		p.Resources = append(p.Resources, name)
	}
	for _, cp := range p.Catalogs {
		suffix := strings.ReplaceAll(strings.Map(toRFC1035, cp.Tag[:min(len(cp.Tag), 12)]), ".", "-")
		base := strings.ReplaceAll(path.Base(cp.Repository)+"-"+suffix, ".", "-")
		cs, cc := "cs-"+base, "cc-"+base
		if !dns1035(cs) {
			return nil, &ConfigError{Pos: cp.Operator.CatalogPos, Msg: fmt.Sprintf("catalog %q: %q, the name its CatalogSource would get, is not a valid Kubernetes name (lowercase letters, digits and '-', at most 63): set targetCatalog or targetTag", cp.Operator.Catalog, cs)}
		}
		csDoc, err := yamlDoc(map[string]any{
			"apiVersion": "operators.coreos.com/v1alpha1",
			"kind":       "CatalogSource",
			"metadata":   map[string]any{"name": cs, "namespace": "openshift-marketplace", "annotations": annotations()},
			"spec":       map[string]any{"sourceType": "grpc", "image": cp.Image},
		})
		if err != nil {
			return nil, err
		}
		ccDoc, err := yamlDoc(map[string]any{
			"apiVersion": "olm.operatorframework.io/v1",
			"kind":       "ClusterCatalog",
			"metadata":   map[string]any{"name": cc, "annotations": annotations()},
			"spec":       map[string]any{"source": map[string]any{"type": "Image", "image": map[string]any{"ref": cp.Image}}},
		})
		if err != nil {
			return nil, err
		}
		cp.CatalogSource, cp.ClusterCatalog = ResourcesDir+"/"+cs+".yaml", ResourcesDir+"/"+cc+".yaml"
		for _, f := range []string{cp.CatalogSource, cp.ClusterCatalog} {
			if _, dup := files[f]; dup {
				return nil, &ConfigError{Pos: cp.Operator.CatalogPos, Msg: fmt.Sprintf("catalog %q: another catalog of the configuration gets the same cluster resource %s: set targetCatalog or targetTag to tell them apart", cp.Operator.Catalog, f)}
			}
		}
		files[cp.CatalogSource], files[cp.ClusterCatalog] = csDoc, ccDoc
		p.Resources = append(p.Resources, cp.CatalogSource, cp.ClusterCatalog)
	}
	return files, nil
}

// annotations mark what fbc wrote, as oc-mirror marks its own (without the
// time, so that a plan is the same every time).
func annotations() map[string]any { return map[string]any{"createdBy": "fbc mirror plan"} }

func yamlDoc(v any) ([]byte, error) { return yaml.Marshal(v) }

// toRFC1035 maps a tag's characters to those a name may hold, as oc-mirror
// does.
func toRFC1035(r rune) rune {
	r = unicode.ToLower(r)
	if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
		return r
	}
	return '-'
}

var dns1035RE = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func dns1035(s string) bool { return len(s) <= 63 && dns1035RE.MatchString(s) }

// pathComponent makes a folder or file name a repository path element:
// lowercase letters and digits joined by '.', '_' or '-'; other runs
// become '-'.
func pathComponent(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			sep = false
		case !sep && b.Len() > 0:
			if r != '.' && r != '_' {
				r = '-'
			}
			b.WriteRune(r)
			sep = true
		}
	}
	out := strings.TrimRight(b.String(), "._-")
	if out == "" {
		return "catalog"
	}
	return out
}

// folderName is a catalog's folder under catalogs/: its repository's last
// element, and its tag when another catalog has that name.
func folderName(cp *CatalogPlan, used map[string]bool) string {
	name := pathComponent(path.Base(cp.Repository))
	if used[name] {
		name += "-" + pathComponent(cp.Tag)
	}
	for i, base := 2, name; used[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	used[name] = true
	return name
}

// entryHash tells operators[] entries apart: a hash of the entry as
// written (its packages, channels and ranges).
func entryHash(op Operator) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %t\n", op.Catalog, op.Full)
	for _, p := range op.Packages {
		fmt.Fprintf(h, "%q %q %q %q\n", p.Name, p.DefaultChannel, p.MinVersion, p.MaxVersion)
		for _, c := range p.Channels {
			fmt.Fprintf(h, " %q %q %q\n", c.Name, c.MinVersion, c.MaxVersion)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
