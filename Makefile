# fbc build, test and benchmark entry points. `make test` is what CI runs.
GO        ?= go
BIN       := bin/fbc
# The two executables: fbc, and fbc-profile, which runs the bundle-content
# profiles for fbc validate --profile (fbc itself does not link them).
MAINS     := . ./cmd/fbc-profile
# Pinned tool versions (run with `go run`, so nothing is installed globally).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build install test test-race test-replay test-deps lint bench bench-data fuzz clean docs

# Static binaries (no cgo), so that fbc build --server fbc can ship fbc in
# an image without a C library. Both land in bin/: fbc finds fbc-profile
# next to itself.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -o bin/ $(MAINS)

# install puts fbc where `go install` puts programs ($GOBIN, default
# $GOPATH/bin), says so when that folder is not on PATH, and runs the
# installed fbc on the bundled sample catalog: the first thing a newcomer
# does with it (README, Set up).
install:
	CGO_ENABLED=0 $(GO) install -trimpath -buildvcs=auto $(MAINS)
	@bin=$$($(GO) env GOBIN); [ -n "$$bin" ] || bin=$$($(GO) env GOPATH)/bin; \
	case ":$$PATH:" in \
	*":$$bin:"*) echo "installed $$bin/fbc and $$bin/fbc-profile" ;; \
	*) echo "installed $$bin/fbc and $$bin/fbc-profile; $$bin is not on your PATH: add it to run fbc (export PATH=\"$$bin:\$$PATH\")" ;; \
	esac; \
	echo "$$ fbc validate testdata/catalog"; \
	"$$bin/fbc" validate testdata/catalog

# test-deps fetches what the end-to-end tests need on a fresh machine (the
# docker-registry binary, into a cache folder: nothing is installed).
test-deps:
	@./scripts/test-deps.sh

# The tests print each package's result as it finishes, and every minute
# the packages still running (cmd/testprogress runs go test -json).
test: test-deps
	$(GO) vet ./...
	$(GO) build ./...
	GO=$(GO) $(GO) run ./cmd/testprogress -timeout 30m ./...

# test-replay replays real history of the community and certified operator
# repositories (fetched with the fetch tool into ../.mirror): every release
# of vectors/release-replay.json made again, every merged change of
# vectors/pr-replay.json judged as a maintainer and as a pull-request check
# judge it. Minutes of work, so make test leaves it out.
test-replay:
	FBC_REPLAY=1 GO=$(GO) $(GO) run ./cmd/testprogress -timeout 60m -run 'Replay' ./cmd

# test-race runs the tests under the race detector: validate, render,
# template and compose work in parallel, and CI keeps them race-free. It runs
# them with -short, which skips the tests that read whole corpus catalogs
# (make test runs those): under the detector they take most of CI's time and
# exercise the same concurrent code as the smaller tests.
test-race: test-deps
	GO=$(GO) $(GO) run ./cmd/testprogress -race -short -timeout 30m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) mod tidy -diff
	$(GO) run ./cmd/docgen -check
	GOOS=windows $(GO) build -o /dev/null ./...
	GOOS=darwin $(GO) build -o /dev/null ./...

# docs regenerates the CLI reference in docs/cli from the command tree
# (`make lint` fails while it is out of date).
docs:
	$(GO) run ./cmd/docgen

# bench runs every benchmark once per size; scaled inputs come from bench-data.
# It ends with wall time and peak RSS of bin/fbc validate next to opm's, of
# bin/fbc diff next to bin/fbc validate,
# fbc serve against opm serve: readiness, memory, a load test, and
# bin/fbc validate --profile next to the last fbc that linked the profiles.
bench: bench-data build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	@./scripts/bench-rss.sh
	@./scripts/bench-render.sh
	@./scripts/bench-diff.sh
	@./scripts/bench-base.sh
	@./scripts/bench-serve.sh
	@./scripts/bench-images.sh
	@./scripts/bench-mirror.sh
	@./scripts/bench-profiles.sh

bench-data:
	@./scripts/bench-data.sh

# fuzz runs every fuzz target briefly, one after another (longer:
# FUZZTIME=10m make fuzz). The list is every func Fuzz* in the tree.
FUZZTIME ?= 20s
FUZZ_TARGETS := declcfg:FuzzParseFile declcfg:FuzzDecodeDocument declcfg:FuzzDecodeValues declcfg:FuzzYAMLStream declcfg:FuzzSplitDocuments declcfg/internal/fastyaml:FuzzFastYAML declcfg/internal/jsonstream:FuzzJSONStream declcfg:FuzzParseRange declcfg:FuzzPackageProperty compose:FuzzFilter compose:FuzzFilterGraph \
	image:FuzzReadFiles image:FuzzParseReference render:FuzzFirstDocument model:FuzzRangeBounds graph:FuzzResolve \
	validate:FuzzValidate validate/internal/yamllint:FuzzLint internal/manifestscan:FuzzScan validate/internal/cueshape:FuzzMatchesCUE internal/imageref:FuzzMatchReference internal/imageref:FuzzRewrite image:FuzzReferenceGrammar \
	template:FuzzRender template:FuzzParseImageMap template:FuzzConvert compose:FuzzParseConfig model:FuzzBuild \
	resolve:FuzzManifests resolve:FuzzConstraint resolve:FuzzFlags resolve/olmv1:FuzzClusterExtension serve:FuzzCanonical serve:FuzzFitsJSON internal/textscan:FuzzScan declcfg:FuzzAppendIndented declcfg:FuzzAppendBundleJSON declcfg:FuzzYAMLTextEdit repo:FuzzParseSettings \
	images:FuzzRewrite images:FuzzParseMirrorSets images:FuzzTopLevelKind images:FuzzCSVRead images:FuzzReplaySegment
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t#*:}; \
		echo "fuzz $$pkg $$fn"; \
		$(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

clean:
	rm -rf bin
