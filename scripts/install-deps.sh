#!/usr/bin/env bash
# Installs the Debian 12 packages ipusim builds with (docs/architecture.md, "Conventions").
# Does nothing when they are all present, so repeated runs are cheap.
set -euo pipefail
packages=(
  build-essential cmake ninja-build
  clang-19 lld-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev libclang-rt-19-dev
  libsystemc-dev libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev dataset-fashion-mnist
  libopenmpi-dev openmpi-bin
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ipusim: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q "${missing[@]}"
fi
