#!/usr/bin/env bash
# Builds ipusim and runs every test (GoogleTest suites, tool tests and bounded fuzzing) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
