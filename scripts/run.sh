#!/usr/bin/env bash
# The main job: builds the toolchain, then assembles, links and disassembles an example vertex
# (a worker f32 vector add and the supervisor vertex that starts it on six workers).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
out=build/examples
mkdir -p "$out"
build/bin/ipu-as examples/asm/vector_add.S -o "$out/vector_add.o"
build/bin/ipu-ld -o "$out/vector_add.elf" "$out/vector_add.o"
build/bin/ipu-objdump -d "$out/vector_add.elf"
