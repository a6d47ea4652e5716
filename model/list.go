package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// What `opm alpha list` shows of a catalog, one row per package, channel or
// channel entry, with opm's fields and order.

// PackageRow is one package: its display name (see DisplayName) and
// default channel.
type PackageRow struct {
	Name           string `json:"name"`
	DisplayName    string `json:"displayName"`
	DefaultChannel string `json:"defaultChannel"`
}

// ChannelRow is one channel and its head; HeadError says why a channel has
// no single head (Head is then empty).
type ChannelRow struct {
	Package   string `json:"package"`
	Channel   string `json:"channel"`
	Head      string `json:"head"`
	HeadError string `json:"headError,omitempty"`
}

// BundleRow is one channel entry: a bundle as a channel lists it, with the
// entry's edges and the bundle's image. A bundle in several channels has a
// row in each.
type BundleRow struct {
	Package   string   `json:"package"`
	Channel   string   `json:"channel"`
	Bundle    string   `json:"bundle"`
	Replaces  string   `json:"replaces"`
	Skips     []string `json:"skips"`
	SkipRange string   `json:"skipRange"`
	Image     string   `json:"image"`
}

// ListPackages returns a row per package (only pkg when it is not ""),
// sorted by name.
func (c *Catalog) ListPackages(pkg string) ([]PackageRow, error) {
	ps, err := c.listed(pkg)
	if err != nil {
		return nil, err
	}
	rows := make([]PackageRow, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, PackageRow{Name: p.Name, DisplayName: p.DisplayName(), DefaultChannel: p.DefaultChannel})
	}
	return rows, nil
}

// ListChannels returns a row per channel, sorted by package and channel.
func (c *Catalog) ListChannels(pkg string) ([]ChannelRow, error) {
	ps, err := c.listed(pkg)
	if err != nil {
		return nil, err
	}
	var rows []ChannelRow
	for _, p := range ps {
		for _, ch := range sortedChannels(p) {
			row := ChannelRow{Package: p.Name, Channel: ch.Name}
			switch heads := ch.Heads(); len(heads) {
			case 1:
				row.Head = heads[0].Name
			case 0:
				row.HeadError = "no channel head: every entry is replaced or skipped by another"
			default:
				names := make([]string, len(heads))
				for i, h := range heads {
					names[i] = h.Name
				}
				slices.Sort(names)
				row.HeadError = "multiple channel heads: " + strings.Join(names, ", ")
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// ListBundles returns a row per channel entry, sorted by package, channel
// and bundle name.
func (c *Catalog) ListBundles(pkg string) ([]BundleRow, error) {
	ps, err := c.listed(pkg)
	if err != nil {
		return nil, err
	}
	var rows []BundleRow
	for _, p := range ps {
		for _, ch := range sortedChannels(p) {
			start := len(rows)
			for _, e := range ch.Entries {
				row := BundleRow{Package: p.Name, Channel: ch.Name, Bundle: e.Name, Replaces: e.Replaces,
					Skips: slices.Clone(e.Skips), SkipRange: e.SkipRange}
				if row.Skips == nil {
					row.Skips = []string{}
				}
				if e.Bundle != nil {
					row.Image = e.Bundle.Image
				}
				rows = append(rows, row)
			}
			slices.SortFunc(rows[start:], func(a, b BundleRow) int { return cmp.Compare(a.Bundle, b.Bundle) })
		}
	}
	return rows, nil
}

// listed returns every package, or the one named; a name the catalog lacks
// is a usage error saying what it has.
func (c *Catalog) listed(pkg string) ([]*Package, error) {
	if pkg == "" {
		return c.Packages, nil
	}
	if p := c.Package(pkg); p != nil {
		return []*Package{p}, nil
	}
	names := c.PackageNames()
	has := strings.Join(names, ", ")
	if len(names) > 10 {
		has = strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	msg := fmt.Sprintf("package %q is not in the catalog (it has %s)", pkg, has)
	if sug := declcfg.Suggest(pkg, names); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	return nil, fault.Errorf(fault.Usage, "%s", msg)
}

func sortedChannels(p *Package) []*Channel {
	chans := slices.Clone(p.Channels)
	slices.SortFunc(chans, func(a, b *Channel) int { return cmp.Compare(a.Name, b.Name) })
	return chans
}

// DisplayName is the package's name as OLM's console shows it:
// spec.displayName of the ClusterServiceVersion of the default channel's
// head, read from its olm.bundle.object manifests or, failing those, its
// olm.csv.metadata (opm reads only the former). It is "" when the default
// channel has no single head or the head no display name.
func (p *Package) DisplayName() string {
	ch := p.Channel(p.DefaultChannel)
	if ch == nil {
		return ""
	}
	head := ch.Head()
	if head == nil || head.Bundle == nil || head.Bundle.Blob == nil {
		return ""
	}
	if raw, err := head.Bundle.CSVJSON(); err == nil && raw != nil {
		if csv, err := declcfg.ParseCSV(raw); err == nil {
			return csv.Spec.DisplayName
		}
	}
	for _, prop := range head.Bundle.Blob.Properties {
		if prop.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		var md declcfg.CSVMetadata
		if prop.Decode(&md) == nil {
			return md.DisplayName
		}
	}
	return ""
}
