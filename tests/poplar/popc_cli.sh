#!/usr/bin/env bash
# popc takes gcc-style options before, between or after the files, with values attached or as the
# next word (helper review: -O2 was rejected and -I/-D swallowed the input file).
#   popc_cli.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
popc="$build/bin/popc"
export IPUSIM_CACHE_DIR="$build/cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir inc
echo '#define SCALE 3' > inc/scale.h
# Compiles only when N is 7 and SCALE comes from inc/scale.h: the options reached ipu-cc.
cat > v.cpp <<'SRC'
#include <poplar/Vertex.hpp>
#include "scale.h"
static_assert(N == 7, "-D N=7 must reach the compiler");
class V : public poplar::Vertex { public: poplar::Output<int> o; bool compute() { *o = N * SCALE; return true; } };
SRC
fail() { echo "popc_cli.sh: $*" >&2; exit 1; }
for form in "-O2 -DN=7 -Iinc v.cpp -o a.gp" "-D N=7 -I inc v.cpp -o a.gp" "v.cpp -O3 -oa.gp -DN=7 -I inc" \
            "-O0 -g -Wall --target=ipu2 -std=c++17 -DN=7 -Iinc v.cpp -o a.gp"; do
  rm -f a.gp
  # shellcheck disable=SC2086
  "$popc" $form || fail "'popc $form' failed"
  [[ -s a.gp ]] || fail "'popc $form' wrote no a.gp"
done
# Errors: exit status 2 and a message naming the problem.
expect_error() {
  local want="$1"; shift
  local status=0
  "$popc" "$@" > out.txt 2>&1 || status=$?
  [[ $status -eq 2 ]] || fail "'popc $*' exited $status, want 2"
  grep -qF "$want" out.txt || fail "'popc $*' did not say '$want': $(cat out.txt)"
}
expect_error "popc: error: unknown optimisation level '-O9' (use -O0, -O1, -O2 or -O3)" -O9 v.cpp -o a.gp
expect_error "popc: error: unknown option '-x'" -x c++ v.cpp -o a.gp
expect_error "popc: error: no input files" -o a.gp
expect_error "popc: error: no output file (-o OUT.gp)" -DN=7 v.cpp
expect_error "popc: error: -D needs NAME or NAME=VALUE" v.cpp -o a.gp -D
# A compile error is the source's, exit status 1.
status=0
"$popc" v.cpp -o a.gp -Iinc > out.txt 2>&1 || status=$?
[[ $status -eq 1 ]] || fail "a compile error exited $status, want 1"
grep -q "v.cpp:3:15: error: use of undeclared identifier 'N'" out.txt || fail "compile error not located: $(cat out.txt)"
echo "popc_cli.sh: ok"
