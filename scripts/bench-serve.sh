#!/usr/bin/env bash
# Compares `fbc serve` with `opm serve` on certified-operators v4.16 in one
# run (serve/servebench): time from start to the first ListPackages answer,
# peak RSS at that moment and after the load, and a load test of 64
# concurrent clients making 1,000 mixed registry calls each on loopback
# (zero errors wanted), with p50/p99 latency and calls per second for both.
# Prints the ratios against the targets (ready >= 10x sooner, <= 1/3 of the
# memory). Run by `make bench`; needs `make build`. opm v1.73.0 comes from
# ../shared/tools/build-opm.sh (built the first time, about two minutes);
# without it only fbc is measured. SERVE_CLIENTS and SERVE_CALLS shrink the
# load test.
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
catalog=$shared/corpus/certified-operators/catalogs/v4.16
if [ ! -d "$catalog" ]; then
  echo "bench-serve: $catalog not found; skipping" >&2
  exit 0
fi
[ -n "$opm" ] || echo "bench-serve: opm not available; measuring fbc alone" >&2
bench=$(mktemp -d)
trap 'rm -rf "$bench"' EXIT
(cd "$root" && go build -o "$bench/servebench" ./serve/servebench)
echo "serve: certified-operators v4.16 ($(du -sh "$catalog" | cut -f1)), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
"$bench/servebench" -catalog "$catalog" -fbc "$root/bin/fbc" -opm "$opm" \
  -clients "${SERVE_CLIENTS:-64}" -calls "${SERVE_CALLS:-1000}"
