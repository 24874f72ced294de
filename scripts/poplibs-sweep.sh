#!/usr/bin/env bash
# Assembles (asm) or compiles (cpp) every codelet source of a poplibs checkout with the flags
# poplibs' own build gives popc (cmake/Modules/AddGPLibrary.cmake: -I include, -I lib/<lib>,
# -I lib/<lib>/codelets, -DNDEBUG), and prints one line per file: PASS or FAIL with the first
# error. The last line counts them. docs/poplibs-compat.md lists the residue with reasons.
#   scripts/poplibs-sweep.sh POPLIBS_DIR asm|cpp [BUILD_DIR]
set -u
src=${1:?poplibs checkout}; kind=${2:?asm or cpp}; build=${3:-$(cd "$(dirname "$0")/.." && pwd)/build}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
pass=0; total=0
cd "$src" || exit 1
if [ "$kind" = asm ]; then files=$(find lib -path "*codelets/asm/*.S" ! -name "*.h.S" | sort)
else files=$(find lib -path "*/codelets/*.cpp" | sort); fi
for f in $files; do
  lib=$(echo "$f" | cut -d/ -f1-2)
  flags=(-I include -I "$lib" -I "$lib/codelets" -DNDEBUG)
  if [ "$kind" = asm ]; then cmd=("$build/bin/ipu-as" "${flags[@]}" "$f" -o "$out/x.o")
  else cmd=("$build/bin/ipu-cc" "${flags[@]}" -O3 -c "$f" -o "$out/x.o"); fi
  total=$((total + 1))
  if err=$("${cmd[@]}" 2>&1 >/dev/null); then pass=$((pass + 1)); echo "PASS $f"
  else echo "FAIL $f: $(echo "$err" | grep -m1 'error' | cut -c1-300)"; fi
done
echo "$pass/$total pass"
