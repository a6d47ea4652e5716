#!/usr/bin/env bash
# Time and peak memory of `fbc mirror plan` cutting one package (kube-green,
# heads of its channels, with --to: images.txt and cluster resources) out of
# the community catalog for OpenShift 4.20, against `fbc validate` of that
# whole catalog, the two run in turn (medians of BENCH_RUNS runs each,
# default 5). Target: mirror plan at most twice validate in time and in
# peak memory. The catalog is catalogs/v4.20 of
# redhat-openshift-ecosystem/community-operators-prod at the commit the
# filter scenarios were taken on, checked out of a fetched copy of the
# repository ($FBC_MIRRORS/owner+name/repo, or .mirror/ above the checkout;
# blobs the copy lacks are left out). Run by `make bench`; needs `make build`.
set -euo pipefail
bench_without_opm=1
. "$(dirname "$0")/bench-lib.sh"
fbc=$root/bin/fbc
runs=${BENCH_RUNS:-5}
repo=redhat-openshift-ecosystem+community-operators-prod
commit=699495f2ff526f9679a0d9d54688f09c683eff2c
bench_need_time

git=""
for d in ${FBC_MIRRORS:+"$FBC_MIRRORS"} "$root/../.mirror" "$root/../../.mirror"; do
  [ -f "$d/$repo/repo/HEAD" ] && { git=$d/$repo/repo; break; }
done
if [ -z "$git" ]; then
  echo "bench-mirror: $repo is not fetched (set FBC_MIRRORS); skipping" >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git --git-dir="$git" ls-tree -r "$commit" -- catalogs/v4.20 | while read -r _ _ sha name; do
  mkdir -p "$work/$(dirname "$name")"
  git --git-dir="$git" cat-file blob "$sha" >"$work/$name" 2>/dev/null || rm -f "$work/$name"
done
find "$work/catalogs" -type d -empty -delete
cat >"$work/isc.yaml" <<YAML
apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  operators:
  - catalog: $work/catalogs/v4.20
    packages:
    - name: kube-green
YAML
v=$work/validate.times m=$work/mirror.times
for ((i = 0; i < runs; i++)); do
  bench_once "$v" /dev/null "$fbc" validate "$work/catalogs/v4.20"
  bench_once "$m" /dev/null "$fbc" mirror plan "$work/isc.yaml" -o "$work/plan" --force --to mirror.example.com/olm
done
read -r vw vc vk < <(bench_medians "$v")
read -r mw mc mk < <(bench_medians "$m")
awk -v vw="$vw" -v vc="$vc" -v vk="$vk" -v mw="$mw" -v mc="$mc" -v mk="$mk" -v r="$runs" 'BEGIN {
  printf "community v4.20, one package: fbc mirror plan %5.2f s (cpu %5.2f s) %4.0f MB | fbc validate %5.2f s (cpu %5.2f s) %4.0f MB | %4.2fx wall, %4.2fx cpu, %4.2fx memory (target <= 2) (medians of %d)\n",
    mw, mc, mk / 1024, vw, vc, vk / 1024, mw / vw, mc / vc, mk / vk, r
}'
