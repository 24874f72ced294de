#!/usr/bin/env bash
# The main job: builds the toolchain and simulator, then assembles, links and disassembles an
# example vertex (a worker f32 vector add and the supervisor vertex that starts it on six
# workers) and runs it on a simulated tile, printing the cycle-level statistics; then runs the
# example programs of examples/programs on one IPU (docs/program-manifest.md): a ring shift over
# the exchange on four tiles, a broadcast and an all-to-all on 16, and the vector add on all 1472
# tiles (elementwise.toml); then a system of IPUs (an M2000: its topology, a ring all-reduce over
# IPU-Links, a host round trip); then builds a Poplar program of ours the way Poplar users build
# theirs (examples/poplar/matvec.cpp against build/enable.sh) and runs it on the simulated IPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
out=build/examples
mkdir -p "$out"
build/bin/ipu-as examples/asm/vector_add.S -o "$out/vector_add.o"
build/bin/ipu-ld -o "$out/vector_add.elf" "$out/vector_add.o"
build/bin/ipu-objdump -d "$out/vector_add.elf"
# Vertex state: in0 = 0x60000, in1 = 0x61000, out = 0x62000, n = 12 float pairs.
build/bin/ipusim pack-state -o "$out/state.bin" 0x60000 0x61000 0x62000 12
echo
echo "ipusim run-tile: VectorAdd_f32 on one tile (stats as JSON), out = in0 + in1"
build/bin/ipusim run-tile "$out/vector_add.elf" --entry VectorAdd_f32 --mode supervisor \
  --vertex-base 0x70000 --load "$out/state.bin@0x70000" --load examples/asm/vector_add_in0.bin@0x60000 \
  --load examples/asm/vector_add_in1.bin@0x61000 --dump "0x62000:96:$out/vector_add_out.bin" \
  --trace "$out/vector_add.trace"
od -An -tf4 "$out/vector_add_out.bin"

# A program on four tiles of one IPU: each shifts four words to its neighbour over the exchange.
build/bin/ipu-as examples/programs/ring_shift.S -o "$out/ring_shift.o"
build/bin/ipu-ld -o "$out/ring_shift.elf" "$out/ring_shift.o"
echo
echo "ipusim run: examples/programs/ring_shift.toml (tile 0 receives tile 3's words 300..303)"
build/bin/ipusim run examples/programs/ring_shift.toml --stats "$out/ring_shift.json" \
  --dump "0:0x71000:16:$out/ring_tile0.bin"
od -An -tu4 "$out/ring_tile0.bin"

# Two more exchange programs on 16 tiles: tile 0 broadcasts 16 words to the others; every tile
# sends a word to every other in 15 steps. Their IPU-wide statistics (all in $out/NAME.json).
for p in broadcast all_to_all; do
  build/bin/ipu-as "examples/programs/$p.S" -o "$out/$p.o"
  build/bin/ipu-ld -o "$out/$p.elf" "$out/$p.o"
  echo
  echo "ipusim run: examples/programs/$p.toml"
  build/bin/ipusim run "examples/programs/$p.toml" --stats "$out/$p.json"
  grep -E '"ipu0\.(cycles|sync|phase|exchange)' "$out/$p.json"
done

# The vector add on every tile of the IPU: 1472 tiles, 384 float pairs each. The statistics of
# the IPU and of tiles 0 and 1471 (all of them are in elementwise.json).
echo
echo "ipusim run: examples/programs/elementwise.toml (VectorAdd_f32 on all 1472 tiles)"
build/bin/ipusim run examples/programs/elementwise.toml --stats "$out/elementwise.json" \
  --dump "1471:0x62000:16:$out/elementwise_tile1471.bin"
grep -E '"ipu0\.(cycles|sync|phase|exchange)|"ipu0\.tile(0|1471)\.' "$out/elementwise.json"
echo "tile 1471, out[0..3] = in0 + in1:"
od -An -tf4 "$out/elementwise_tile1471.bin"

# A system of IPUs (docs/systems.md): the M2000's IPU-Link topology, a ring all-reduce over its
# four IPUs as inter-IPU packets and external syncs, and a host <-> IPU round trip through the
# IPU-Gateway and Streaming Memory.
echo
build/bin/ipusim info m2000
echo "ipusim run: examples/programs/ring_allreduce_m2000.toml (every element: 10000 + 4 k^2)"
build/bin/ipusim run examples/programs/ring_allreduce_m2000.toml --stats "$out/ring_allreduce.json" \
  --dump "ipu3.0:0x71000:16:$out/allreduce_ipu3.bin"
grep -E '"system\.' "$out/ring_allreduce.json"
od -An -tu4 "$out/allreduce_ipu3.bin"
echo "ipusim run: examples/programs/host_round_trip.toml (the host gets 2 x + 1 for x = 1000 ..)"
(cd "$out" && ../bin/ipusim run ../../examples/programs/host_round_trip.toml --stats host_round_trip.json &&
  od -An -tu4 -N16 host_out.bin)

# A C++ codelet compiled by ipu-cc (clang in process, LLVM's optimiser, ipusim's backend): its
# vertex-state layout, the inner loop it becomes, and a run of it on one worker of a tile.
echo
echo "ipu-cc: examples/codelets/vector_add.cpp"
build/bin/ipu-cc -c examples/codelets/vector_add.cpp -o "$out/vector_add_cc.o"
build/bin/ipu-cc -S examples/codelets/vector_add.cpp -o "$out/vector_add_cc.s"
build/bin/ipu-cc --print-vertex-layout "$out/vector_add_cc.o"
grep -B1 -A1 "ld2xst64pace" "$out/vector_add_cc.s"
build/bin/ipu-ld -o "$out/vector_add_cc.elf" "$out/vector_add_cc.o"
# The state by the layout ipu-cc recorded: a (24 floats from the file), b, out in 3 memory elements.
build/bin/ipusim pack-state --layout "$out/vector_add_cc.o" --vertex VectorAdd -o "$out/cc_state.bin" \
  a=examples/asm/vector_add_in0.bin@0x60000 b=0x64000 out=0x68000
build/bin/ipusim run-tile "$out/vector_add_cc.elf" --entry __runCodelet_VectorAdd --mode worker \
  --vertex-base 0x70000 --load "$out/cc_state.bin@0x70000" --load examples/asm/vector_add_in0.bin@0x60000 \
  --load examples/asm/vector_add_in1.bin@0x64000 --dump "0x68000:96:$out/cc_out.bin"
echo "out = a + b:"
od -An -tf4 "$out/cc_out.bin"

# A Poplar program, built as with Graphcore's SDK and run on the simulated IPU: a 10,000 x 1,000
# matrix-vector product over all 1,472 tiles (90,000 vertices), data through host FIFOs.
echo
echo "Poplar: examples/poplar/matvec.cpp (g++ --std=c++11 -lpoplar -lpoputil against build/enable.sh)"
(
  source build/enable.sh
  cd examples/poplar
  g++ --std=c++11 -O2 matvec.cpp -lpoplar -lpoputil -o "../../$out/matvec"
  "../../$out/matvec" 10000 1000 8 --time
)
