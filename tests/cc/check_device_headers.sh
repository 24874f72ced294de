#!/usr/bin/env bash
# Checks ipu-cc's device headers (codelet_compiler/device-include, docs/device-headers.md):
#  1. every sample codelet in header_samples/ compiles to LLVM IR with exactly ipu-cc's flags,
#     with -Wall and no diagnostics at all (the samples also static_assert the IPU vertex layouts);
#  2. every sample compiles for the host (x86-64, host C++ library) with -Wall, no diagnostics;
#  3. host runs: layouts.cpp (bind() and the vertex on host data) and math_functions.cpp (the
#     software math functions' max ulp error against the host libm, asserted per function).
# Usage: tests/cc/check_device_headers.sh   (CLANG=clang-19, CLANGXX=clang++-19 by default)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
inc="$root/codelet_compiler/device-include"
samples="$here/header_samples"
CLANG="${CLANG:-clang-19}"
CLANGXX="${CLANGXX:-clang++-19}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

ipu_flags=(--target=riscv32-unknown-elf -march=rv32imf_zfh -mabi=ilp32f
  -Xclang -ffloat16-excess-precision=none -ffreestanding -fno-exceptions -fno-rtti
  -fno-math-errno -nostdinc++ -nostdlibinc -isystem "$inc/c++" -isystem "$inc"
  -D__IPU__ -D__IPU_ARCH_VERSION__=2 -D__IPU_REPEAT_COUNT_SIZE__=16 -std=c++17 -O2 -S -emit-llvm
  -Wall)
host_flags=(-std=c++17 -O2 -Wall -isystem "$inc/c++" -isystem "$inc")

fail=0
check_quiet() { # name, log: the compile must have produced no diagnostics
  if [[ -s "$2" ]]; then
    echo "FAIL $1: diagnostics:"
    cat "$2"
    fail=1
  fi
}

for src in "$samples"/*.cpp; do
  name="$(basename "$src" .cpp)"
  if "$CLANG" "${ipu_flags[@]}" "$src" -o "$out/$name.ll" 2>"$out/$name.ipu.log"; then
    check_quiet "$name (ipu)" "$out/$name.ipu.log"
    [[ -s "$out/$name.ll" ]] || { echo "FAIL $name (ipu): no IR"; fail=1; }
    echo "ok   ipu  $name"
  else
    echo "FAIL $name (ipu)"
    cat "$out/$name.ipu.log"
    fail=1
  fi
  if "$CLANGXX" "${host_flags[@]}" -c "$src" -o "$out/$name.o" 2>"$out/$name.host.log"; then
    check_quiet "$name (host)" "$out/$name.host.log"
    echo "ok   host $name"
  else
    echo "FAIL $name (host)"
    cat "$out/$name.host.log"
    fail=1
  fi
done

# A double in <cmath> must be rejected with the library's message.
printf '#include <cmath>\ndouble f(double x) { return std::sqrt(x); }\n' >"$out/dbl.cpp"
if "$CLANG" "${ipu_flags[@]}" "$out/dbl.cpp" -o /dev/null 2>"$out/dbl.log"; then
  echo "FAIL double: std::sqrt(double) compiled for the IPU"
  fail=1
elif grep -q "double is not supported on the IPU" "$out/dbl.log"; then
  echo "ok   ipu  std::sqrt(double) rejected with a message"
else
  echo "FAIL double: unexpected diagnostic"
  cat "$out/dbl.log"
  fail=1
fi

# Host runs.
"$CLANGXX" "${host_flags[@]}" -DIPUSIM_HOST_MAIN "$samples/layouts.cpp" -o "$out/layouts" &&
  "$out/layouts" || { echo "FAIL layouts host run"; fail=1; }
"$CLANGXX" "${host_flags[@]}" -DIPUSIM_HOST_MATH_CHECK "$samples/math_functions.cpp" -o "$out/math" -lm &&
  "$out/math" || { echo "FAIL math accuracy"; fail=1; }

if [[ $fail -ne 0 ]]; then
  echo "check_device_headers: FAILED"
  exit 1
fi
echo "check_device_headers: all passed"
