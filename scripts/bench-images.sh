#!/usr/bin/env bash
# Times `fbc images list` of certified v4.16 (a scan, not a render; goal
# under 0.5 s) against `opm render` of the same catalog measured in the same
# run (what a pipeline runs before it picks the images out of the JSON):
# median wall time, median CPU time (user + system) and peak RSS (GNU time)
# of BENCH_RUNS runs (default 1; fbc, which is quick, runs at least 5
# times). It also checks that the images listed from the catalog are the
# images of opm's rendering of it. The `fbc images check` goal (1,000 images
# on a loopback registry under 5 s, each manifest asked once) is
# BenchmarkCheck1000 in images/. Run by `make bench`; needs `make build`;
# opm comes from ../shared/tools/build-opm.sh (without it, fbc's figures
# alone are printed).
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-1}
catalog=$shared/corpus/certified-operators/catalogs/v4.16
bench_need_time
if [ ! -d "$catalog" ]; then
  echo "bench-images: $catalog not found (set FBC_SHARED)" >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fruns=$((runs < 5 ? 5 : runs))
f=$(bench_median "$fruns" "$work/fbc.txt" "$fbc" images list -o plain "$catalog")
if [ -z "$opm" ]; then
  echo "bench-images: opm could not be built; fbc's figures only" >&2
  awk -v f="$f" -v n="$fruns" 'BEGIN {
    split(f, a, " "); printf "v4.16  fbc images list %6.2f s wall %5.2f s CPU %5.0f MB peak RSS (goal < 0.5 s; medians of %d)\n", a[1], a[2], a[3] / 1024, n
  }'
  exit 0
fi
o=$(bench_median "$runs" "$work/opm.json" "$opm" render "$catalog" -o json)
"$fbc" images list -o plain "$work/opm.json" | sort -u >"$work/opm-images.txt"
sort -u "$work/fbc.txt" >"$work/fbc-images.txt"
same="the same $(wc -l <"$work/fbc-images.txt") images as opm's rendering"
cmp -s "$work/fbc-images.txt" "$work/opm-images.txt" || same="IMAGES DIFFER FROM OPM'S RENDERING"
awk -v f="$f" -v o="$o" -v n="$fruns" -v m="$runs" -v same="$same" 'BEGIN {
  split(f, a, " "); split(o, b, " ")
  printf "v4.16  fbc images list %6.2f s wall %5.2f s CPU %5.0f MB peak RSS | opm render %6.2f s wall %5.2f s CPU %5.0f MB | %4.1fx faster (wall), %4.1fx less CPU, %4.2f of the memory (goal < 0.5 s), %s (medians of %d and %d runs)\n",
    a[1], a[2], a[3] / 1024, b[1], b[2], b[3] / 1024, b[1] / a[1], b[2] / a[2], a[3] / b[3], same, n, m
}'
