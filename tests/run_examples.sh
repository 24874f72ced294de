#!/usr/bin/env bash
# Every example manifest runs right after the build, from any folder (here: a temporary one, where
# host_round_trip.toml's host writes its file), with the images the build made
# (examples/CMakeLists.txt). The ring shift's result is checked word for word.
#   run_examples.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for m in "$src"/examples/programs/*.toml; do
  if ! "$build/bin/ipusim" run "$m" --stats "$work/stats.json" --threads 2 2> "$work/err.txt"; then
    echo "run_examples.sh: $m failed from $work: $(cat "$work/err.txt")" >&2
    exit 1
  fi
done
# Tile 0 receives tile 3's words 300..303.
"$build/bin/ipusim" run "$src/examples/programs/ring_shift.toml" --stats "$work/ring.json" --dump "0:0x71000:16:$work/t0.bin"
got=$(od -An -tu4 "$work/t0.bin" | tr -s ' ' | sed 's/^ //')
if [[ "$got" != "300 301 302 303" ]]; then
  echo "run_examples.sh: ring shift gave '$got', want '300 301 302 303'" >&2
  exit 1
fi
echo "run_examples.sh: ok"
