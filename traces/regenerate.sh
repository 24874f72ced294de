#!/usr/bin/env bash
# Regenerates the golden traces from the commands below (run after scripts/build.sh). A change to
# a golden trace is a change in modelled behaviour: review `ipu-trace diff OLD NEW` before
# committing the new one. tests/sim/golden_trace_test.cpp runs the same commands and diffs.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ring_shift: examples/programs/ring_shift.S on 8 tiles, every instruction traced.
build/bin/ipu-as examples/programs/ring_shift.S -o "$tmp/ring_shift.o"
build/bin/ipu-ld -o "$tmp/ring_shift.elf" "$tmp/ring_shift.o"
printf '\x08\x00\x00\x00' > "$tmp/n.bin"
cat > "$tmp/ring_shift.toml" <<TOML
tiles = 8
[[tile]]
tiles = "0-7"
image = "ring_shift.elf"
entry = "ring_shift"
vertex_base = 0x70000
load = ["n.bin@0x70000"]
TOML
build/bin/ipusim run "$tmp/ring_shift.toml" --trace traces/ring_shift.trace --trace-instructions > /dev/null
echo "wrote traces/ring_shift.trace"
