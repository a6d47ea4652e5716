#!/usr/bin/env bash
# Peak memory of `fbc diff CATALOG CATALOG` against `fbc validate CATALOG`
# measured in the same run (GNU time, best of BENCH_RUNS runs each, default
# 1; use 3 for figures you publish), on certified v4.16 (every bundle inlines
# its manifests), community v4.22 and the scaled v4.16 copy from
# `make bench-data` (504 MB, 460 packages). diff holds both catalogs a
# package's names, edges and versions at a time, never their manifests:
# target, diff's peak at most twice validate's on the same input. opm has no
# diff to compare with. Run by `make bench`; needs `make build`.
# BENCH_CATALOGS=NAME,... picks some of the catalogs by name.
set -euo pipefail
bench_without_opm=1
. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-1}
only=${BENCH_CATALOGS:-}
bench_need_time

measure() { # name path
  local name=$1 path=$2 v d
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
    return
  fi
  if [ ! -d "$path" ]; then
    echo "bench-diff: $path not found (make bench-data, or set FBC_SHARED)" >&2
    return
  fi
  v=$(bench_best "$runs" /dev/null "$fbc" validate "$path") || return 0
  d=$(bench_best "$runs" /dev/null "$fbc" diff "$path" "$path") || return 0
  awk -v n="$name" -v v="$v" -v d="$d" -v r="$runs" 'BEGIN {
    split(v, a, " "); split(d, b, " ")
    printf "%-14s fbc diff %6.2f s %5.0f MB peak RSS | fbc validate %6.2f s %5.0f MB | %4.2fx validate'"'"'s memory (target <= 2) (best of %d)\n",
      n, b[1], b[2] / 1024, a[1], a[2] / 1024, b[2] / a[2], r
  }'
}

measure cert-v4.16 "$shared/corpus/certified-operators/catalogs/v4.16"
measure comm-v4.22 "$shared/corpus/community-operators-prod/catalogs/v4.22"
measure cert-v4.16-x10 "$root/testdata/bench/v4.16-x10"
