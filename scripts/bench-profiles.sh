#!/usr/bin/env bash
# Compares `bin/fbc validate --profile ...` (fbc with fbc-profile) with the
# same run of the last fbc that linked the profiles itself (commit 5bcc4c9,
# built once into the cache), issue 22's speed goal: within 10% of it.
# Runs alternate between the two, BENCH_RUNS times each (default 9; the
# machine's speed drifts, so only runs of one loop are compared), and the
# medians of wall time, CPU time (user and system, both processes) and peak
# RSS (the larger process) are printed with their ratios. The catalogs are
# copied out of their repositories first: inside them the pipeline rules of
# their OpenShift release run too, which the pre-split build does not know.
# Run by `make bench`; needs `make build` and a clone with history.
# BENCH_CATALOGS=NAME,... picks some of the catalogs by name.
set -euo pipefail
bench_without_opm=1
bench_accept=1
. "$(dirname "$0")/bench-lib.sh"
bench_need_time
runs=${BENCH_RUNS:-9}
only=${BENCH_CATALOGS:-}
presplit=5bcc4c9
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fbc-tools/fbc-presplit-$presplit
old=$cache/fbc

if [ ! -x "$old" ]; then
  if ! git -C "$root" cat-file -e "$presplit^{commit}" 2>/dev/null; then
    echo "bench-profiles: commit $presplit is not in this clone; skipping" >&2
    exit 0
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  git -C "$root" archive "$presplit" | tar -x -C "$tmp"
  mkdir -p "$cache"
  (cd "$tmp" && CGO_ENABLED=0 go build -trimpath -o "$old.tmp" .) && mv "$old.tmp" "$old"
fi

work=$(mktemp -d)
trap 'rm -rf "$work" ${tmp:+"$tmp"}' EXIT

measure() { # name path profiles
  local name=$1 path=$2 set=$3 a b i
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
    return
  fi
  if [ ! -d "$path" ]; then
    echo "bench-profiles: $path not found (set FBC_SHARED)" >&2
    return
  fi
  cp -r "$path" "$work/$name"
  chmod -R u+w "$work/$name"
  a=$work/$name.old b=$work/$name.new
  for ((i = 0; i < runs; i++)); do
    bench_once "$a" /dev/null "$old" validate --profile "$set" "$work/$name" || return 0
    bench_once "$b" /dev/null "$root/bin/fbc" validate --profile "$set" "$work/$name" || return 0
  done
  awk -v n="$name" -v s="$set" -v r="$runs" -v o="$(bench_medians "$a")" -v f="$(bench_medians "$b")" 'BEGIN {
      split(o, a, " "); split(f, b, " ")
      printf "%-12s --profile %s\n  pre-split %5.2f s wall %5.2f s CPU %4.0f MB | fbc + fbc-profile %5.2f s %5.2f s %4.0f MB | %.2fx wall, %.2fx CPU (target <= 1.10), median of %d\n",
        n, s, a[1], a[2], a[3] / 1024, b[1], b[2], b[3] / 1024, b[1] / a[1], b[2] / a[2], r
    }'
}

four=operatorframework,operatorhub,good-practices,k8s-version=1.33
measure cert-v4.16 "$shared/corpus/certified-operators/catalogs/v4.16" "$four"
measure cert-v4.18 "$shared/corpus/certified-operators/catalogs/v4.18" "$four"
measure comm-v4.22 "$shared/corpus/community-operators-prod/catalogs/v4.22" "$four"
measure cert-v4.16-olmv1 "$shared/corpus/certified-operators/catalogs/v4.16" operatorframework,operatorhub,good-practices,olmv1
