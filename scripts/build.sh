#!/usr/bin/env bash
# Configures (once) and builds ipusim in build/ with the "release" preset.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[[ -f build/build.ninja ]] || cmake --preset release
cmake --build build
