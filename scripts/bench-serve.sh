#!/usr/bin/env bash
# Compares `fbc serve` with `opm serve` in one run per catalog
# (serve/servebench): time from start to the first ListPackages answer, peak
# RSS at that moment and after the load, and a load test of 64 concurrent
# clients making 1,000 mixed registry calls each on loopback (zero errors
# wanted), with p50/p99 latency and calls per second for both. Prints the
# ratios against the targets (ready >= 10x sooner, <= 1/3 of the memory).
# The catalogs are certified-operators v4.16 (olm.bundle.object manifests),
# certified-operators v4.18 (olm.csv.metadata, the format of 4.17 on) and
# community-operators v4.22; SERVE_CATALOGS names others (paths under the
# corpus). Run by `make bench`; needs `make build`. opm v1.73.0 comes from
# ../shared/tools/build-opm.sh (built the first time, about two minutes);
# without it only fbc is measured. SERVE_CLIENTS and SERVE_CALLS shrink the
# load test.
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
catalogs=${SERVE_CATALOGS:-certified-operators/catalogs/v4.16 certified-operators/catalogs/v4.18 community-operators-prod/catalogs/v4.22}
[ -n "$opm" ] || echo "bench-serve: opm not available; measuring fbc alone" >&2
bench=$(mktemp -d)
trap 'rm -rf "$bench"' EXIT
(cd "$root" && go build -o "$bench/servebench" ./serve/servebench)
for c in $catalogs; do
  catalog=$shared/corpus/$c
  if [ ! -d "$catalog" ]; then
    echo "bench-serve: $catalog not found; skipping" >&2
    continue
  fi
  echo "serve: $c ($(du -sh "$catalog" | cut -f1)), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
  "$bench/servebench" -catalog "$catalog" -fbc "$root/bin/fbc" -opm "$opm" \
    -clients "${SERVE_CLIENTS:-64}" -calls "${SERVE_CALLS:-1000}"
done
