#!/usr/bin/env bash
# setup.sh — everything a fresh Debian/Ubuntu machine needs to build autogemm:
# installs the packages (as root, only those missing), then configures and
# builds a Release tree in ./build (or $BUILD_DIR).
# The CUDA Toolkit (NVRTC, cuda.h; cuBLAS for gemm_bench) must already be in
# /usr/local/cuda; no GPU or driver is needed to build or to run the CPU tests.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

pkgs=(cmake g++ make pkgconf gnuplot-nox openmpi-bin libsqlite3-dev libspdlog-dev libfmt-dev libgtest-dev libcli11-dev nlohmann-json3-dev)
# The reliability stage of CI (scripts/reliability_ci.sh): libFuzzer and its runtime.
[ "${AUTOGEMM_RELIABILITY:-0}" = 1 ] && pkgs+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi

if [ ! -f /usr/local/cuda/include/nvrtc.h ]; then
  echo "setup.sh: the CUDA Toolkit (NVRTC) was not found in /usr/local/cuda" >&2
  exit 1
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build "$BUILD_DIR" -j"$(nproc)"
