#!/usr/bin/env bash
# Runs a libFuzzer harness for a bounded time on a fresh copy of its seed corpus.
#   run_fuzzer.sh FUZZER SECONDS asm|elf|sim|trace BIN_DIR SEED_FILES...
set -euo pipefail
fuzzer=$1 seconds=$2 kind=$3 bin=$4
shift 4
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
i=0
for seed in "$@"; do
  i=$((i + 1))
  if [[ $kind == asm || $kind == trace ]]; then
    cp "$seed" "$corpus/seed$i"
  elif [[ $kind == sim ]]; then
    # Code seeds: the text of each assembled input's first code section.
    "$bin/ipu-as" "$seed" -o "$corpus/seed$i.o"
  else
    # ELF seeds: each input assembled to an object and linked to a tile image.
    "$bin/ipu-as" "$seed" -o "$corpus/seed$i.o"
    "$bin/ipu-ld" -o "$corpus/seed$i.elf" "$corpus/seed$i.o" || true
  fi
done
# A fixed seed: the same inputs in the same order on every run (how many depends on the host's
# speed), so that a failure under ctest can be run again.
"$fuzzer" "$corpus" -seed=1 -max_total_time="$seconds" -timeout=25 -max_len=8192 -rss_limit_mb=4096 \
  -close_fd_mask=3 -print_final_stats=1 2>&1 | tail -n 12
exit "${PIPESTATUS[0]}"
