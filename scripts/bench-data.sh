#!/usr/bin/env bash
# Generates the scaled benchmark catalog (gitignored) from the shared corpus:
#   testdata/bench/v4.16-x10: ten copies of certified-operators/catalogs/v4.16
#   (51 MB, the heaviest real catalog: every bundle inlines its manifests), each
#   copy's packages renamed <package>-x<N> so that the result is still one valid
#   catalog (504 MB, 460 packages).
# The unscaled catalog is read from the corpus directly. Set FBC_SHARED when the
# shared folder is not ../shared next to the repository.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${FBC_SHARED:-$root/../shared}
src=$shared/corpus/certified-operators/catalogs/v4.16
out=$root/testdata/bench/v4.16-x10
stamp=$root/testdata/bench/.v4.16-x10.complete
copies=10

if [ ! -d "$src" ]; then
  echo "bench-data: $src not found; set FBC_SHARED to the shared folder" >&2
  exit 1
fi
if [ -f "$stamp" ] && [ -d "$out" ]; then
  echo "bench-data: $out is up to date" >&2
  exit 0
fi

echo "bench-data: writing $copies renamed copies of $src to $out" >&2
tmp=$(mktemp -d "$root/testdata/bench/.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$root/testdata/bench"; mktemp -d "$root/testdata/bench/.tmp.XXXXXX"; })
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

for f in "$src"/*/catalog.*; do
  dir=$(basename "$(dirname "$f")")
  # The package name is what channels and bundles name (it can differ from
  # the directory: isovalent-networking holds package clife).
  pkg=$(grep -m1 -E '^package: ' "$f" | sed -E 's/^package: "?([^"]*)"?$/\1/')
  if [ -z "$pkg" ]; then
    echo "bench-data: no package found in $f" >&2
    exit 1
  fi
  for n in $(seq 0 $((copies - 1))); do
    mkdir -p "$tmp/$dir-x$n"
    # opm render writes these keys in plain style, one per line: the
    # package blob's name, every blob's package, and the olm.package
    # property's packageName.
    sed -E "s/^(name|package): $pkg\$/\1: $pkg-x$n/; s/^( +packageName): $pkg\$/\1: $pkg-x$n/" \
      "$f" >"$tmp/$dir-x$n/$(basename "$f")"
  done
done

rm -rf "$out" "$stamp"
mv "$tmp" "$out"
trap - EXIT
touch "$stamp"
du -sh "$out" >&2
