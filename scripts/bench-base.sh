#!/usr/bin/env bash
# Time and peak memory of `fbc validate --base HEAD` of a pull request
# against `fbc validate operators/<pkg>` of the same operator folder,
# measured in the same run (GNU time, medians of BENCH_RUNS runs each,
# default 3): target, --base at most twice plain validate's time. The pull
# request is a real one when the community repository is fetched (the
# first release of ../shared/vectors/pr-replay.json: the release bot adding
# minio-object-store-operator to six catalogs); else a bundle added to a
# corpus operator (kaoto-operator). Run by `make bench`; needs `make build`
# and git. BENCH_CORPUS=1 takes the corpus pull request even with the fetched repository.
set -euo pipefail
bench_without_opm=1
. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-3}
bench_need_time
command -v git >/dev/null || { echo "bench-base: git not found; skipping" >&2; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false "$@"; }

mirror=""
for d in "$root/../.mirror" "$root/../../.mirror"; do
  m=$d/redhat-openshift-ecosystem+certified-operators/repo
  [ -d "$m" ] && { mirror=$m; break; }
done
archive() { # git-dir commit dest: operators/<pkg>, catalogs/*/<pkg>, config.yaml
  local git=$1 commit=$2 dest=$3 p c
  for p in "operators/$pkg" $(git --git-dir "$git" ls-tree --name-only "$commit" catalogs/ | sed "s|\$|/$pkg|"); do
    git --git-dir "$git" cat-file -e "$commit:$p" 2>/dev/null || continue
    git --git-dir "$git" archive --format=tar --prefix="$p/" "$commit:$p" | tar -x -C "$dest"
  done
  git --git-dir "$git" show "$commit:config.yaml" >"$dest/config.yaml"
}
if [ -z "${BENCH_CORPUS:-}" ] && [ -n "$mirror" ] && [ -f "$shared/vectors/pr-replay.json" ]; then
  pkg=minio-object-store-operator
  what="the release of minio-object-store-operator 2026.4.13102716 (certified-operators 303d2dd2)"
  archive "$mirror" a538ec562ce47587d726017f501fc6ce55b381c8 "$repo"
  g init -q && g add -A && g commit -q -m parent
  find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
  archive "$mirror" 303d2dd253f8afa8b03e576a976f5a486f7ad9ab "$repo"
else
  pkg=kaoto-operator
  what="a bundle added to the corpus's kaoto-operator"
  src=$shared/corpus/community-operators-prod
  [ -d "$src/operators/$pkg" ] || { echo "bench-base: $src/operators/$pkg not found (set FBC_SHARED)" >&2; exit 0; }
  mkdir -p "$repo/operators" "$repo/catalogs"
  cp -r "$src/operators/$pkg" "$repo/operators/"
  for c in "$src"/catalogs/*/"$pkg"; do [ -d "$c" ] || continue; mkdir -p "$repo/catalogs/$(basename "$(dirname "$c")")" && cp -r "$c" "$repo/catalogs/$(basename "$(dirname "$c")")/"; done
  printf 'organization: community-operators\n' >"$repo/config.yaml"
  last=$(ls "$repo/operators/$pkg" | grep -E '^[0-9]' | sort -V | tail -1)
  mv "$repo/operators/$pkg/$last" "$work/new-bundle"
  g init -q && g add -A && g commit -q -m parent
  mv "$work/new-bundle" "$repo/operators/$pkg/$last"
fi

cd "$repo"
bench_accept="1"
v=$(bench_median "$runs" /dev/null "$fbc" validate "operators/$pkg") || exit 0
b=$(bench_median "$runs" /dev/null "$fbc" validate --base HEAD) || exit 0
awk -v w="$what" -v v="$v" -v b="$b" -v r="$runs" 'BEGIN {
  split(v, a, " "); split(b, c, " ")
  printf "validate --base of %s: %.2f s (%.2f s CPU, %.0f MB) | validate of the operator folder %.2f s (%.2f s CPU, %.0f MB) | %.2fx its time, %.2fx its CPU, %.2fx its memory (target <= 2) (medians of %d)\n",
    w, c[1], c[2], c[3] / 1024, a[1], a[2], a[3] / 1024, c[1] / a[1], c[2] / a[2], c[3] / a[3], r
}'
