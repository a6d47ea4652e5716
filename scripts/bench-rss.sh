#!/usr/bin/env bash
# Compares `bin/fbc validate` with `opm validate` measured in the same run:
# wall time and peak RSS (GNU time), best of BENCH_RUNS runs each (default 1;
# the machine is shared, so use 3 for figures you publish), on the catalogs
# maintainers ship: certified v4.16 (olm.bundle.object), certified v4.18 and
# community v4.22 (olm.csv.metadata), and the scaled v4.16 copy from
# `make bench-data`. Each catalog's targets are printed with its figures:
# at least 10x faster and at most a third of opm's peak memory for
# certified v4.16 (and its scaled copy); issue 22's for the
# olm.csv.metadata catalogs, at least 7x and at most a third for certified
# v4.18, at most half the memory for community v4.22. Run by `make bench`; needs `make build`; opm comes from
# ../shared/tools/build-opm.sh (without it, fbc's figures alone are printed).
# BENCH_CATALOGS=NAME,... picks some of the catalogs by name.
set -euo pipefail
# A repository's catalogs get its OpenShift release's pipeline rules too,
# and real catalogs have findings (exit 1): a measured run all the same.
bench_accept=1
. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-1}
only=${BENCH_CATALOGS:-}
bench_need_time
[ -n "$opm" ] || echo "bench-rss: opm could not be built; fbc's figures only" >&2

measure() { # name path speed-target memory-target ("-": none)
  local name=$1 path=$2 speed=$3 mem=$4 f o
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
    return
  fi
  if [ ! -d "$path" ]; then
    echo "bench-rss: $path not found (make bench-data, or set FBC_SHARED)" >&2
    return
  fi
  f=$(bench_best "$runs" /dev/null "$fbc" validate "$path") || return 0
  if [ -z "$opm" ]; then
    awk -v n="$name" -v f="$f" -v r="$runs" 'BEGIN {
      split(f, a, " "); printf "%-14s fbc validate %6.2f s %5.0f MB peak RSS (best of %d)\n", n, a[1], a[2] / 1024, r
    }'
    return
  fi
  o=$(bench_best "$runs" /dev/null "$opm" validate "$path") || return 0
  awk -v n="$name" -v f="$f" -v o="$o" -v r="$runs" -v st="$speed" -v mt="$mem" 'BEGIN {
    split(f, a, " "); split(o, b, " ")
    sp = b[1] / a[1]; m = a[2] / b[2]
    st_txt = st == "-" ? "no target" : sprintf("target >= %s: %s", st, sp >= st + 0 ? "met" : "NOT met")
    mt_txt = mt == "-" ? "no target" : sprintf("target <= %s: %s", mt, m <= mt + 0 ? "met" : "NOT met")
    printf "%-14s fbc validate %6.2f s %5.0f MB peak RSS | opm %6.2f s %5.0f MB | %5.1fx faster (%s), %4.2f of the memory (%s) (best of %d)\n",
      n, a[1], a[2] / 1024, b[1], b[2] / 1024, sp, st_txt, m, mt_txt, r
  }'
}

measure cert-v4.16 "$shared/corpus/certified-operators/catalogs/v4.16" 10 0.33
measure cert-v4.18 "$shared/corpus/certified-operators/catalogs/v4.18" 7 0.33
measure comm-v4.22 "$shared/corpus/community-operators-prod/catalogs/v4.22" - 0.5
measure cert-v4.16-x10 "$root/testdata/bench/v4.16-x10" 10 0.33
