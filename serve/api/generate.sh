#!/bin/sh
# Regenerates registry.pb.go and registry_grpc.pb.go from registry.proto.
# Needs protoc (Debian: protobuf-compiler); the Go plugins are built at
# pinned versions into a temporary directory.
set -eu
cd "$(dirname "$0")"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOFLAGS= GOBIN=$bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOFLAGS= GOBIN=$bin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1
PATH=$bin:$PATH protoc -I . --go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative registry.proto
