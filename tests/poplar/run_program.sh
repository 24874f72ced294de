#!/usr/bin/env bash
# Builds one Poplar program of tests/poplar/programs the way users build theirs (ipusim's SDK from
# build/enable.sh, g++ -std=c++11, -lpoplar -lpoputil -lpopops -lpoplin -lpopnn -lpoprand), runs it in a scratch folder with its
# codelets and compares everything it prints with NAME.expected.
#   run_program.sh BUILD_DIR PROGRAM.cpp [ARGS...]
# With IPUSIM_UPDATE_EXPECTED=1 it writes NAME.expected instead (then read the change before
# committing it).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
name=$(basename "$src" .cpp)
dir=$(dirname "$src")
# shellcheck source=/dev/null
source "$build/enable.sh"
export IPUSIM_CACHE_DIR="$build/cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The program's files: NAME.cpp, NAME_codelets.cpp and any other NAME_* file.
cp "$dir/$name".cpp "$dir/$name"_* "$work/" 2>/dev/null || true
cd "$work"
# Codelets as users precompile them: popc NAME_codelets.cpp -o NAME_codelets.gp.
if [[ -e "${name}_codelets.cpp" ]]; then popc "${name}_codelets.cpp" -o "${name}_codelets.gp"; fi
g++ --std=c++11 -Wall -Wextra -Werror "$name.cpp" -lpoplar -lpoputil -lpopops -lpoplin -lpopnn -lpoprand -o "$name"
status=0
"./$name" "$@" > output.txt 2>&1 || status=$?
echo "exit status $status" >> output.txt
# Messages name files in the scratch folder: call it WORK.
sed -i "s|$work|WORK|g" output.txt
if [[ -n "${IPUSIM_UPDATE_EXPECTED:-}" ]]; then
  cp output.txt "$dir/$name.expected"
  exit 0
fi
if ! diff -u "$dir/$name.expected" output.txt; then
  echo "run_program.sh: $name printed something else than $dir/$name.expected (diff above)" >&2
  exit 1
fi
