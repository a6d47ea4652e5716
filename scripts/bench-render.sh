#!/usr/bin/env bash
# Compares `fbc render` of certified v4.16 with `opm render` measured in the
# same run: wall time and peak RSS (GNU time), best of BENCH_RUNS runs
# (default 1; the machine is shared, so use 3 for figures you publish), and
# whether the bytes are the same. Targets for -o json: 5x faster, at most a
# third of opm's memory; -o yaml must give opm's bytes too. Run by
# `make bench`; needs `make build`; opm comes from ../shared/tools/build-opm.sh
# (without it, fbc's figures alone are printed).
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-1}
catalog=$shared/corpus/certified-operators/catalogs/v4.16
bench_need_time
if [ ! -d "$catalog" ]; then
  echo "bench-render: $catalog not found (set FBC_SHARED)" >&2
  exit 0
fi
[ -n "$opm" ] || echo "bench-render: opm could not be built; fbc's figures only" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# best NAME BINARY FORMAT: BINARY render -o FORMAT, its output kept in
# $work/NAME.FORMAT; prints "SECONDS KB", each the best of the runs.
best() {
  bench_best "$runs" "$work/$1.$3" "$2" render "$catalog" -o "$3"
}

for format in json yaml; do
  f=$(best fbc "$fbc" "$format")
  if [ -z "$opm" ]; then
    awk -v f="$f" -v fmt="$format" -v n="$runs" 'BEGIN {
      split(f, a, " "); printf "v4.16  fbc render -o %-4s %6.2f s %5.0f MB peak RSS (best of %d)\n", fmt, a[1], a[2] / 1024, n
    }'
    continue
  fi
  o=$(best opm "$opm" "$format")
  same="same bytes as opm"
  cmp -s "$work/fbc.$format" "$work/opm.$format" || same="DIFFERENT BYTES FROM OPM"
  awk -v f="$f" -v o="$o" -v fmt="$format" -v n="$runs" -v same="$same" 'BEGIN {
    split(f, a, " "); split(o, b, " ")
    target = fmt == "json" ? " (targets >= 5x, <= 0.33)" : ""
    printf "v4.16  fbc render -o %-4s %6.2f s %5.0f MB peak RSS | opm %6.2f s %5.0f MB | %4.1fx faster, %4.2f of the memory%s, %s (best of %d)\n",
      fmt, a[1], a[2] / 1024, b[1], b[2] / 1024, b[1] / a[1], a[2] / b[2], target, same, n
  }'
done
