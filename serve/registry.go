package serve

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
	"github.com/fbc-project/fbc/serve/api"
)

// registry answers api.Registry from a loaded catalog, as opm serve does:
// the same fields and values, the same errors (gRPC code Unknown with opm's
// messages) for names the catalog lacks. Where opm's order comes from map
// iteration (package lists, entry streams) fbc's is fixed: packages by name,
// then channels and entries in catalog order.
type registry struct {
	api.UnimplementedRegistryServer
	cat func() *Catalog
}

// errUnknown is opm's way of failing a call: a plain error, which gRPC
// sends with code Unknown.
func errUnknown(format string, args ...any) error {
	return status.Errorf(codes.Unknown, format, args...)
}

// catalog returns the loaded catalog, or Unavailable while it loads (gRPC
// clients retry that code).
func (r *registry) catalog() (*Catalog, error) {
	c := r.cat()
	if c == nil {
		return nil, status.Error(codes.Unavailable, "the catalog is still loading")
	}
	return c, nil
}

func (r *registry) ListPackages(_ *api.ListPackageRequest, stream api.Registry_ListPackagesServer) error {
	c, err := r.catalog()
	if err != nil {
		return err
	}
	for _, p := range c.model.Packages {
		if err := stream.Send(&api.PackageName{Name: p.Name}); err != nil {
			return err
		}
	}
	return nil
}

func (r *registry) GetPackage(_ context.Context, req *api.GetPackageRequest) (*api.Package, error) {
	c, err := r.catalog()
	if err != nil {
		return nil, err
	}
	p := c.model.Package(req.GetName())
	if p == nil {
		return nil, errUnknown("package %q not found", req.GetName())
	}
	out := &api.Package{Name: p.Name, DefaultChannelName: p.DefaultChannel}
	if p.Deprecation != nil {
		out.Deprecation = &api.Deprecation{Message: p.Deprecation.Message}
	}
	for _, name := range p.ChannelNames() {
		ch := p.Channel(name)
		pc := &api.Channel{Name: ch.Name}
		if h := ch.Head(); h != nil {
			pc.CsvName = h.Name
		}
		if ch.Deprecation != nil {
			pc.Deprecation = &api.Deprecation{Message: ch.Deprecation.Message}
		}
		out.Channels = append(out.Channels, pc)
	}
	return out, nil
}

// channel finds a package's channel in the loaded catalog, with opm's
// messages; pkgFormat is how the package is quoted (opm's
// GetBundleThatReplaces does not quote it).
func (r *registry) channel(pkg, ch, pkgFormat string) (*Catalog, *model.Channel, error) {
	c, err := r.catalog()
	if err != nil {
		return nil, nil, err
	}
	p := c.model.Package(pkg)
	if p == nil {
		return nil, nil, errUnknown(pkgFormat, pkg)
	}
	mc := p.Channel(ch)
	if mc == nil {
		return nil, nil, errUnknown("package %q, channel %q not found", pkg, ch)
	}
	return c, mc, nil
}

func (r *registry) GetBundle(_ context.Context, req *api.GetBundleRequest) (*api.Bundle, error) {
	c, ch, err := r.channel(req.GetPkgName(), req.GetChannelName(), "package %q not found")
	if err != nil {
		return nil, err
	}
	e := ch.Entry(req.GetCsvName())
	if e == nil || e.Bundle == nil {
		return nil, errUnknown("package %q, channel %q, bundle %q not found", req.GetPkgName(), req.GetChannelName(), req.GetCsvName())
	}
	return c.apiBundle(e, true, false)
}

func (r *registry) GetBundleForChannel(_ context.Context, req *api.GetBundleInChannelRequest) (*api.Bundle, error) {
	c, ch, err := r.channel(req.GetPkgName(), req.GetChannelName(), "package %q not found")
	if err != nil {
		return nil, err
	}
	h := ch.Head()
	if h == nil || h.Bundle == nil {
		return nil, errUnknown("package %q, channel %q has no head", req.GetPkgName(), req.GetChannelName())
	}
	return c.apiBundle(h, true, false)
}

func (r *registry) GetBundleThatReplaces(_ context.Context, req *api.GetReplacementRequest) (*api.Bundle, error) {
	c, ch, err := r.channel(req.GetPkgName(), req.GetChannelName(), "package %s not found")
	if err != nil {
		return nil, err
	}
	// opm picks any entry that replaces or skips the name (map order);
	// fbc picks the first in the channel's order.
	for _, e := range ch.Entries {
		if e.Bundle != nil && (e.Replaces == req.GetCsvName() || slices.Contains(e.Skips, req.GetCsvName())) {
			return c.apiBundle(e, true, false)
		}
	}
	return nil, errUnknown("no entry found for package %q, channel %q", req.GetPkgName(), req.GetChannelName())
}

func channelEntry(e *model.Entry, replaces string) *api.ChannelEntry {
	return &api.ChannelEntry{PackageName: e.Channel.Package.Name, ChannelName: e.Channel.Name, BundleName: e.Name, Replaces: replaces}
}

func (r *registry) GetChannelEntriesThatReplace(req *api.GetAllReplacementsRequest, stream api.Registry_GetChannelEntriesThatReplaceServer) error {
	c, err := r.catalog()
	if err != nil {
		return err
	}
	name := req.GetCsvName()
	var out []*api.ChannelEntry
	for _, e := range c.model.Replacing(name) {
		// One answer for the replaces edge and one per skip of the name
		// that is not also the replaces edge, each carrying the entry's
		// replaces (opm's shape).
		if e.Replaces == name {
			out = append(out, channelEntry(e, e.Replaces))
		}
		for _, s := range e.Skips {
			if s == name && s != e.Replaces {
				out = append(out, channelEntry(e, e.Replaces))
			}
		}
	}
	if len(out) == 0 {
		return errUnknown("no channel entries found that replace %s", name)
	}
	return sendAll(stream, out)
}

// providerEntries are the entries opm lists for a bundle that provides an
// API: one with its replaces, then one per skip (other than the replaces)
// with that skip as replaces; sameChannel keeps only skips of entries in the
// channel.
func providerEntries(e *model.Entry, sameChannel bool) []*api.ChannelEntry {
	out := []*api.ChannelEntry{channelEntry(e, e.Replaces)}
	for _, s := range e.Skips {
		if s != e.Replaces && (!sameChannel || e.Channel.Entry(s) != nil) {
			out = append(out, channelEntry(e, s))
		}
	}
	return out
}

func gvkOf(group, version, kind string) declcfg.GVK {
	return declcfg.GVK{Group: group, Version: version, Kind: kind}
}

func noProviders(g declcfg.GVK) error {
	return errUnknown("no channel entries found that provide group:%q version:%q kind:%q", g.Group, g.Version, g.Kind)
}

func (r *registry) GetChannelEntriesThatProvide(req *api.GetAllProvidersRequest, stream api.Registry_GetChannelEntriesThatProvideServer) error {
	c, err := r.catalog()
	if err != nil {
		return err
	}
	g := gvkOf(req.GetGroup(), req.GetVersion(), req.GetKind())
	var out []*api.ChannelEntry
	for _, b := range c.model.ProvidedBy(g) {
		for _, e := range b.Entries {
			out = append(out, providerEntries(e, false)...)
		}
	}
	if len(out) == 0 {
		return noProviders(g)
	}
	return sendAll(stream, out)
}

// latestProviders are the entries of channel heads that provide the API.
func (c *Catalog) latestProviders(g declcfg.GVK) []*api.ChannelEntry {
	var out []*api.ChannelEntry
	for _, b := range c.model.ProvidedBy(g) {
		for _, e := range b.Entries {
			if e.Channel.Head() == e {
				out = append(out, providerEntries(e, true)...)
			}
		}
	}
	return out
}

func (r *registry) GetLatestChannelEntriesThatProvide(req *api.GetLatestProvidersRequest, stream api.Registry_GetLatestChannelEntriesThatProvideServer) error {
	c, err := r.catalog()
	if err != nil {
		return err
	}
	g := gvkOf(req.GetGroup(), req.GetVersion(), req.GetKind())
	out := c.latestProviders(g)
	if len(out) == 0 {
		return noProviders(g)
	}
	return sendAll(stream, out)
}

func (r *registry) GetDefaultBundleThatProvides(_ context.Context, req *api.GetDefaultProviderRequest) (*api.Bundle, error) {
	c, err := r.catalog()
	if err != nil {
		return nil, err
	}
	g := gvkOf(req.GetGroup(), req.GetVersion(), req.GetKind())
	latest := c.latestProviders(g)
	if len(latest) == 0 {
		return nil, noProviders(g)
	}
	// Of the packages whose channel heads provide the API, the first by
	// name whose default channel's head does.
	slices.SortStableFunc(latest, func(a, b *api.ChannelEntry) int { return strings.Compare(a.PackageName, b.PackageName) })
	for _, le := range latest {
		p := c.model.Package(le.PackageName)
		if p != nil && le.ChannelName == p.DefaultChannel {
			if e := p.Channel(le.ChannelName).Entry(le.BundleName); e != nil && e.Bundle != nil {
				return c.apiBundle(e, true, false)
			}
		}
	}
	return nil, errUnknown("no entry found that provides group:%q version:%q kind:%q", g.Group, g.Version, g.Kind)
}

func (r *registry) ListBundles(_ *api.ListBundlesRequest, stream api.Registry_ListBundlesServer) error {
	c, err := r.catalog()
	if err != nil {
		return err
	}
	// opm's order: by channel name, then package name, then bundle name.
	type listed struct {
		ch, pkg, name string
		e             *model.Entry
	}
	var all []listed
	for _, p := range c.model.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				if e.Bundle != nil {
					all = append(all, listed{ch.Name, p.Name, e.Name, e})
				}
			}
		}
	}
	slices.SortFunc(all, func(a, b listed) int {
		if x := strings.Compare(a.ch, b.ch); x != 0 {
			return x
		}
		if x := strings.Compare(a.pkg, b.pkg); x != 0 {
			return x
		}
		return strings.Compare(a.name, b.name)
	})
	ctx := stream.Context()
	for _, l := range all {
		// A client that went away stops the stream here: nothing more is
		// read from the spill or converted for it.
		if err := ctx.Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		b, err := c.apiBundle(l.e, false, true)
		if err != nil {
			return status.Errorf(codes.Internal, "%v", err)
		}
		if err := stream.Send(b); err != nil {
			return err
		}
	}
	return nil
}

func sendAll[T any](stream interface{ Send(T) error }, items []T) error {
	for _, it := range items {
		if err := stream.Send(it); err != nil {
			return err
		}
	}
	return nil
}

// experimental answers ExperimentalListPackageCustomSchemas: the blobs of a
// schema OLM does not define, by package ("" for blobs without one), in
// catalog order, to clients that send x-acknowledge-experimental: true.
type experimental struct {
	api.UnimplementedExperimentalRegistryServer
	cat func() *Catalog
}

// customName is what opm accepts as a schema or package name in a query.
var customName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`) })

func (x *experimental) ExperimentalListPackageCustomSchemas(req *api.ExperimentalListPackageCustomSchemasRequest, stream api.ExperimentalRegistry_ExperimentalListPackageCustomSchemasServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	if v := md.Get("x-acknowledge-experimental"); len(v) == 0 || v[0] != "true" {
		// Clients unaware of the endpoint see an empty stream, as from opm.
		return nil
	}
	schema, pkg := req.GetSchema(), req.GetPackageName()
	if schema == "" {
		return status.Error(codes.InvalidArgument, "schema is required")
	}
	if !customName().MatchString(schema) {
		return status.Errorf(codes.InvalidArgument, "invalid custom schema query: invalid schema %q: must match %s", schema, customName())
	}
	if pkg != "" && !customName().MatchString(pkg) {
		return status.Errorf(codes.InvalidArgument, "invalid custom schema query: invalid packageName %q: must match %s", pkg, customName())
	}
	c := x.cat()
	if c == nil {
		return status.Error(codes.Unavailable, "the catalog is still loading")
	}
	for _, i := range c.customs[customKey{schema, pkg}] {
		if err := stream.Context().Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		line, err := c.readBlob(i)
		if err != nil {
			return status.Errorf(codes.Internal, "%v", err)
		}
		st := &structpb.Struct{}
		if err := st.UnmarshalJSON(line); err != nil {
			return status.Errorf(codes.Internal, "%v", err)
		}
		if err := stream.Send(st); err != nil {
			return err
		}
	}
	return nil
}
