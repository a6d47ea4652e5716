#!/usr/bin/env bash
# Generates the scaled benchmark catalogs (gitignored) from the shared corpus.
set -euo pipefail
echo "bench-data: not yet generating scaled catalogs" >&2
