#!/usr/bin/env bash
# Fetches what `make test` needs beyond Go modules, without installing any
# system package or service: the CNCF Distribution registry binary
# (docker-registry), which the end-to-end image tests run on 127.0.0.1.
#
# The Debian package docker-registry is downloaded (apt-get download) and
# only its binary is unpacked (dpkg-deb -x) into
#   $FBC_TOOLS/docker-registry/docker-registry
# ($FBC_TOOLS defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/fbc-tools), where
# the tests look first (image/imagetest.DistributionBinary). Installing the
# package instead would also enable a registry service on port 5000 at every
# boot. A docker-registry already on $PATH is used as it is.
set -euo pipefail

tools="${FBC_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-tools}"
dest="$tools/docker-registry"

fetch_registry() {
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "test-deps: apt-get and dpkg-deb are needed to fetch docker-registry (a Debian package);" >&2
    echo "           elsewhere, put a docker-registry binary (CNCF Distribution 2.x) at $dest/docker-registry" >&2
    return 1
  fi
  local tmp
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  local apt_opts=()
  # As root, apt hands downloads to its _apt user, which cannot write to a
  # private temporary directory; downloading as root is what it falls back to.
  if [ "$(id -u)" -eq 0 ]; then apt_opts=(-o APT::Sandbox::User=root); fi
  echo "test-deps: fetching docker-registry into $dest (binary only, no service)" >&2
  if ! (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq docker-registry >&2); then
    # A fresh machine may have no package lists yet: refresh them (this
    # installs nothing) and try again.
    local sudo=
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo=sudo; fi
    $sudo apt-get update -qq >&2
    (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq docker-registry >&2)
  fi
  dpkg-deb -x "$tmp"/docker-registry_*.deb "$tmp/root"
  mkdir -p "$dest"
  cp "$tmp/root/usr/bin/docker-registry" "$dest/docker-registry.partial"
  chmod 0755 "$dest/docker-registry.partial"
  mv "$dest/docker-registry.partial" "$dest/docker-registry"
}

if [ ! -x "$dest/docker-registry" ] && ! command -v docker-registry >/dev/null 2>&1; then
  fetch_registry
fi
go mod download
