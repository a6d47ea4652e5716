#!/usr/bin/env bash
# Prints wall time and peak RSS of `bin/fbc validate` on the benchmark
# catalogs, next to opm's figures on this machine kind (2 cores) and the
# targets (5x faster, a third of the memory). Run by `make bench`; needs
# `make build` and `make bench-data`, and GNU time at /usr/bin/time.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${FBC_SHARED:-$root/../shared}
fbc=$root/bin/fbc
if [ ! -x /usr/bin/time ]; then
  echo "bench-rss: /usr/bin/time (GNU time) not found; skipping" >&2
  exit 0
fi

measure() { # name path opm-seconds opm-MB
  local name=$1 path=$2 opm_s=$3 opm_mb=$4
  if [ ! -d "$path" ]; then
    echo "bench-rss: $path not found (make bench-data)" >&2
    return
  fi
  local report out
  report=$(mktemp)
  /usr/bin/time -o "$report" -f '%e %M' "$fbc" validate "$path" >/dev/null 2>&1 || true
  out=$(tail -1 "$report")
  rm -f "$report"
  local secs=${out% *} kb=${out#* }
  awk -v n="$name" -v s="$secs" -v kb="$kb" -v os="$opm_s" -v omb="$opm_mb" 'BEGIN {
    mb = kb / 1024
    printf "%-6s fbc validate %6.2f s %6.0f MB peak RSS | opm %5.1f s %5.0f MB | %4.1fx faster (target >= 5), %4.2f of the memory (target <= 0.33)\n",
      n, s, mb, os, omb, os / s, mb / omb
  }'
}

measure v4.16 "$shared/corpus/certified-operators/catalogs/v4.16" 4.0 310
measure x10 "$root/testdata/bench/v4.16-x10" 35.5 2765
