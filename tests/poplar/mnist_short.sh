#!/usr/bin/env bash
# A short run of examples/poplar/mnist.cpp, built as users build it: four training steps on one
# Fashion-MNIST batch (Debian's dataset-fashion-mnist), whose mean loss must fall at every step and
# by at least 2% in all (AdamW at lr 0.001 moves slowly), and one test batch. The full training run and its figures are in docs/performance.md.
#   mnist_short.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../../examples/poplar" && pwd)/mnist.cpp
# shellcheck source=/dev/null
source "$build/enable.sh"
export IPUSIM_CACHE_DIR="$build/cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ --std=c++17 -O1 -Wall -Wextra -Werror "$src" -lpoplar -lpoputil -lpopops -lpoplin -lpopnn -lz -o "$work/mnist"
"$work/mnist" --same-batch --steps 4 --print-every 1 --test-images 40 | tee "$work/out.txt"
read -r first last < <(sed -n 's/^loss: first step \([0-9.e+-]*\), last step \([0-9.e+-]*\)$/\1 \2/p' "$work/out.txt")
if [[ -z "${first:-}" ]]; then echo "mnist_short.sh: no loss line" >&2; exit 1; fi
if ! awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < 0.98 * a) }'; then
  echo "mnist_short.sh: the loss did not fall by 2% ($first -> $last)" >&2
  exit 1
fi
if ! sed -n 's/^step [0-9]*: mean loss //p' "$work/out.txt" | awk 'NR > 1 && $1 >= prev { bad = 1 } { prev = $1 } END { exit bad }'; then
  echo "mnist_short.sh: the loss rose at some step" >&2
  exit 1
fi
grep -q '^test accuracy: [0-9]* of 40 ' "$work/out.txt"
echo "mnist_short.sh: loss $first -> $last"
