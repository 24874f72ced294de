#!/usr/bin/env bash
# The main job: builds the toolchain and simulator, then assembles, links and disassembles an
# example vertex (a worker f32 vector add and the supervisor vertex that starts it on six
# workers) and runs it on a simulated tile, printing the cycle-level statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
out=build/examples
mkdir -p "$out"
build/bin/ipu-as examples/asm/vector_add.S -o "$out/vector_add.o"
build/bin/ipu-ld -o "$out/vector_add.elf" "$out/vector_add.o"
build/bin/ipu-objdump -d "$out/vector_add.elf"
# Vertex state: in0 = 0x60000, in1 = 0x61000, out = 0x62000, n = 12 float pairs (little-endian).
printf '\x00\x00\x06\x00\x00\x10\x06\x00\x00\x20\x06\x00\x0c\x00\x00\x00' > "$out/state.bin"
echo
echo "ipusim run-tile: VectorAdd_f32 on one tile (stats as JSON)"
build/bin/ipusim run-tile "$out/vector_add.elf" --entry VectorAdd_f32 --mode supervisor \
  --vertex-base 0x70000 --load "$out/state.bin@0x70000" --trace "$out/vector_add.trace"

# A program on four tiles of one IPU: each shifts four words to its neighbour over the exchange.
build/bin/ipu-as examples/programs/ring_shift.S -o "$out/ring_shift.o"
build/bin/ipu-ld -o "$out/ring_shift.elf" "$out/ring_shift.o"
echo
echo "ipusim run: examples/programs/ring_shift.toml (tile 0 receives tile 3's words 300..303)"
build/bin/ipusim run examples/programs/ring_shift.toml --stats "$out/ring_shift.json" \
  --dump "0:0x71000:16:$out/ring_tile0.bin"
od -An -tu4 "$out/ring_tile0.bin"
