#!/usr/bin/env bash
# Installs what `make test` needs beyond Go modules, on a fresh Debian machine.
set -euo pipefail
need=()
command -v docker-registry >/dev/null 2>&1 || need+=(docker-registry)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
  echo "installing ${need[*]} (needed by end-to-end tests)" >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
go mod download
