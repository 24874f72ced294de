#!/usr/bin/env bash
# Re-runs the correlation study's cases (docs/validation.md) and fails if a simulated cycle count
# moved from docs/validation.csv or an output is wrong. It needs a poplibs checkout, which the
# repository does not hold (its code is Graphcore's): set IPUSIM_POPLIBS_DIR to one. Without it
# the test is skipped (exit 77), and says so.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -z "${IPUSIM_POPLIBS_DIR:-}" ]; then
  echo "skipped: set IPUSIM_POPLIBS_DIR to a graphcore/poplibs checkout to run the poplibs correlation cases"
  exit 77
fi
exec python3 "$root/scripts/validate-poplibs.py" "$IPUSIM_POPLIBS_DIR" --build "${1:-$root/build}" \
  --check "$root/docs/validation.csv"
