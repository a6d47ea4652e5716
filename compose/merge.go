package compose

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/textout"
)

// Source is one catalog given to MergeSources, named as the user named it.
type Source struct {
	Name   string
	Config *declcfg.DeclarativeConfig
}

// ConflictPolicy says what MergeSources does with a package that several
// sources define differently.
type ConflictPolicy string

const (
	// OnConflictError refuses to merge.
	OnConflictError ConflictPolicy = "error"
	// OnConflictFirst keeps the package of the first source that defines it.
	OnConflictFirst ConflictPolicy = "first"
	// OnConflictLast keeps the package of the last source that defines it.
	OnConflictLast ConflictPolicy = "last"
)

// Site is where one source defines a package.
type Site struct {
	Source string
	Pos    declcfg.Pos
}

func (s Site) String() string {
	if s.Pos.IsValid() {
		return s.Pos.String()
	}
	return s.Source
}

// Conflict is a package that several sources define differently.
type Conflict struct {
	Package string
	// Sites are the definitions, in source order.
	Sites []Site
}

func (c Conflict) String() string {
	var sites []string
	for _, s := range c.Sites {
		sites = append(sites, s.String())
	}
	what := "both"
	if len(sites) > 2 {
		what = fmt.Sprintf("all %d of", len(sites))
	}
	return fmt.Sprintf("package %q is defined differently by %s %s", c.Package, what, textout.JoinAnd(sites))
}

// ConflictError is the error of a merge that OnConflictError refused.
type ConflictError struct {
	Conflicts []Conflict
}

// FaultKind is Input: the sources contradict each other.
func (e *ConflictError) FaultKind() fault.Kind { return fault.Input }

func (e *ConflictError) Error() string {
	var lines []string
	for _, c := range e.Conflicts {
		lines = append(lines, c.String())
	}
	return strings.Join(lines, "\n")
}

// Merged is the result of MergeSources.
type Merged struct {
	Config *declcfg.DeclarativeConfig
	// From maps each package to the index of the source it was taken from.
	From  map[string]int
	Notes []Note
}

// MergeSources combines catalogs package by package. A package belongs to
// one source: when several define it, identical definitions (the same blobs
// once written) collapse into one, and different ones are conflicts that
// policy settles. Package-less blobs of other schemas are all kept, in source
// order, except exact repeats. Blobs keep their source order, so positions
// and opm-order writing work as for one catalog.
func MergeSources(sources []Source, policy ConflictPolicy) (*Merged, error) {
	type def struct {
		src int
		cfg *declcfg.DeclarativeConfig
	}
	defs := map[string][]def{}
	var order []string
	split := make([]map[string]*declcfg.DeclarativeConfig, len(sources))
	for i, s := range sources {
		split[i] = byPackage(s.Config)
		for _, name := range sortedKeys(split[i]) {
			if name == "" {
				continue
			}
			if _, seen := defs[name]; !seen {
				order = append(order, name)
			}
			defs[name] = append(defs[name], def{i, split[i][name]})
		}
	}
	slices.Sort(order)
	chosen := map[string]int{}
	var conflicts []Conflict
	var notes []Note
	for _, name := range order {
		ds := defs[name]
		chosen[name] = ds[0].src
		if len(ds) == 1 {
			continue
		}
		first, err := canonical(ds[0].cfg)
		if err != nil {
			return nil, err
		}
		same := true
		for _, d := range ds[1:] {
			b, err := canonical(d.cfg)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(first, b) {
				same = false
				break
			}
		}
		c := Conflict{Package: name}
		for _, d := range ds {
			c.Sites = append(c.Sites, Site{Source: sources[d.src].Name, Pos: firstPos(d.cfg)})
		}
		if same {
			notes = append(notes, Note{Package: name, Message: fmt.Sprintf("identical in %s; kept once", textout.JoinAnd(siteSources(c.Sites)))})
			continue
		}
		switch policy {
		case OnConflictFirst:
			notes = append(notes, Note{Package: name, Warning: true, Message: fmt.Sprintf("defined differently by %s; keeping %s (first)", textout.JoinAnd(siteSources(c.Sites)), sources[ds[0].src].Name)})
		case OnConflictLast:
			chosen[name] = ds[len(ds)-1].src
			notes = append(notes, Note{Package: name, Warning: true, Message: fmt.Sprintf("defined differently by %s; keeping %s (last)", textout.JoinAnd(siteSources(c.Sites)), sources[ds[len(ds)-1].src].Name)})
		default:
			conflicts = append(conflicts, c)
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	out := &declcfg.DeclarativeConfig{}
	var seenLoose [][]byte
	dupLoose := 0
	for i := range sources {
		for _, name := range sortedKeys(split[i]) {
			part := split[i][name]
			if name == "" {
				for _, m := range part.Others {
					if slices.ContainsFunc(seenLoose, func(b []byte) bool { return bytes.Equal(b, m.Blob) }) {
						dupLoose++
						continue
					}
					seenLoose = append(seenLoose, m.Blob)
					out.Others = append(out.Others, m)
				}
				continue
			}
			if chosen[name] == i {
				out.Merge(part)
			}
		}
	}
	if dupLoose > 0 {
		msg := fmt.Sprintf("%d package-less blobs repeated exactly in several sources; each kept once", dupLoose)
		if dupLoose == 1 {
			msg = "1 package-less blob repeated exactly in several sources; kept once"
		}
		notes = append(notes, Note{Message: msg})
	}
	return &Merged{Config: out, From: chosen, Notes: notes}, nil
}

// byPackage splits a catalog by package name; "" holds package-less blobs.
func byPackage(cfg *declcfg.DeclarativeConfig) map[string]*declcfg.DeclarativeConfig {
	out := map[string]*declcfg.DeclarativeConfig{}
	get := func(name string) *declcfg.DeclarativeConfig {
		c := out[name]
		if c == nil {
			c = &declcfg.DeclarativeConfig{}
			out[name] = c
		}
		return c
	}
	if cfg == nil {
		return out
	}
	for _, p := range cfg.Packages {
		c := get(p.Name)
		c.Packages = append(c.Packages, p)
	}
	for _, ch := range cfg.Channels {
		c := get(ch.Package)
		c.Channels = append(c.Channels, ch)
	}
	for _, b := range cfg.Bundles {
		c := get(b.Package)
		c.Bundles = append(c.Bundles, b)
	}
	for _, d := range cfg.Deprecations {
		c := get(d.Package)
		c.Deprecations = append(c.Deprecations, d)
	}
	for _, m := range cfg.Others {
		c := get(m.Package)
		c.Others = append(c.Others, m)
	}
	return out
}

// canonical is a package's blobs as written, for comparing definitions.
func canonical(cfg *declcfg.DeclarativeConfig) ([]byte, error) {
	var buf bytes.Buffer
	if err := declcfg.WriteJSON(cfg, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// firstPos is where a package's definition starts: its olm.package blob, or
// its first blob of another schema.
func firstPos(cfg *declcfg.DeclarativeConfig) declcfg.Pos {
	switch {
	case len(cfg.Packages) > 0:
		return cfg.Packages[0].Pos
	case len(cfg.Channels) > 0:
		return cfg.Channels[0].Pos
	case len(cfg.Bundles) > 0:
		return cfg.Bundles[0].Pos
	case len(cfg.Deprecations) > 0:
		return cfg.Deprecations[0].Pos
	case len(cfg.Others) > 0:
		return cfg.Others[0].Pos
	}
	return declcfg.Pos{}
}

func siteSources(sites []Site) []string {
	var out []string
	for _, s := range sites {
		if !slices.Contains(out, s.Source) {
			out = append(out, s.Source)
		}
	}
	return out
}
