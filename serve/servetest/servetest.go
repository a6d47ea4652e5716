// Package servetest calls a registry server by method name, over a real
// gRPC connection: the goldens, the CLI's scripts and the benchmark share
// it. It is for tests and benchmarks only.
package servetest

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/fbc-project/fbc/serve/api"
)

// Method describes one method of the registry services.
type Method struct {
	Service string
	Stream  bool
	Request func() proto.Message
	Answer  func() proto.Message
}

// Methods are the registry services' methods by name.
var Methods = map[string]Method{
	"ListPackages":                       {"api.Registry", true, func() proto.Message { return &api.ListPackageRequest{} }, func() proto.Message { return &api.PackageName{} }},
	"GetPackage":                         {"api.Registry", false, func() proto.Message { return &api.GetPackageRequest{} }, func() proto.Message { return &api.Package{} }},
	"GetBundle":                          {"api.Registry", false, func() proto.Message { return &api.GetBundleRequest{} }, func() proto.Message { return &api.Bundle{} }},
	"GetBundleForChannel":                {"api.Registry", false, func() proto.Message { return &api.GetBundleInChannelRequest{} }, func() proto.Message { return &api.Bundle{} }},
	"GetChannelEntriesThatReplace":       {"api.Registry", true, func() proto.Message { return &api.GetAllReplacementsRequest{} }, func() proto.Message { return &api.ChannelEntry{} }},
	"GetBundleThatReplaces":              {"api.Registry", false, func() proto.Message { return &api.GetReplacementRequest{} }, func() proto.Message { return &api.Bundle{} }},
	"GetChannelEntriesThatProvide":       {"api.Registry", true, func() proto.Message { return &api.GetAllProvidersRequest{} }, func() proto.Message { return &api.ChannelEntry{} }},
	"GetLatestChannelEntriesThatProvide": {"api.Registry", true, func() proto.Message { return &api.GetLatestProvidersRequest{} }, func() proto.Message { return &api.ChannelEntry{} }},
	"GetDefaultBundleThatProvides":       {"api.Registry", false, func() proto.Message { return &api.GetDefaultProviderRequest{} }, func() proto.Message { return &api.Bundle{} }},
	"ListBundles":                        {"api.Registry", true, func() proto.Message { return &api.ListBundlesRequest{} }, func() proto.Message { return &api.Bundle{} }},
	"ExperimentalListPackageCustomSchemas": {"api.ExperimentalRegistry", true,
		func() proto.Message { return &api.ExperimentalListPackageCustomSchemasRequest{} }, func() proto.Message { return &structpb.Struct{} }},
}

// MethodNames lists Methods sorted.
func MethodNames() []string {
	names := make([]string, 0, len(Methods))
	for n := range Methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Request parses a request for method from its JSON form.
func Request(method, reqJSON string) (proto.Message, error) {
	m, ok := Methods[method]
	if !ok {
		return nil, fmt.Errorf("unknown method %q (methods: %s)", method, strings.Join(MethodNames(), ", "))
	}
	req := m.Request()
	if reqJSON != "" {
		if err := protojson.Unmarshal([]byte(reqJSON), req); err != nil {
			return nil, fmt.Errorf("%s request: %w", method, err)
		}
	}
	return req, nil
}

// Invoke makes one call and returns every answer received and the call's
// error (a gRPC status).
func Invoke(ctx context.Context, conn *grpc.ClientConn, method string, req proto.Message, md map[string]string) ([]proto.Message, error) {
	m, ok := Methods[method]
	if !ok {
		return nil, fmt.Errorf("unknown method %q", method)
	}
	if len(md) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(md))
	}
	path := "/" + m.Service + "/" + method
	if !m.Stream {
		ans := m.Answer()
		if err := conn.Invoke(ctx, path, req, ans); err != nil {
			return nil, err
		}
		return []proto.Message{ans}, nil
	}
	s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, path)
	if err != nil {
		return nil, err
	}
	if err := s.SendMsg(req); err != nil {
		return nil, err
	}
	if err := s.CloseSend(); err != nil {
		return nil, err
	}
	var out []proto.Message
	for {
		ans := m.Answer()
		if err := s.RecvMsg(ans); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		out = append(out, ans)
	}
}

// Receiver is a server stream of the registry API.
type Receiver[T any] interface{ Recv() (T, error) }

// Collect reads a stream to its end.
func Collect[T any](s Receiver[T], err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	var out []T
	for {
		v, err := s.Recv()
		if err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}
