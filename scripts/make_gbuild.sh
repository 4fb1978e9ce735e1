#!/usr/bin/env bash
# make_gbuild.sh — makes gbuild/ at the repository root: a Release build in
# the shape the device tool carries (carry: ["gbuild"], at most 64 MiB with
# the repository): the build folder without object files, static libraries,
# CMake state or CPU-only tests, and an installed prefix under gbuild/prefix
# for the package's own tools. Adds /gbuild/ to .git/info/exclude.
#   bash scripts/make_gbuild.sh build
set -euo pipefail
HELP="usage: bash scripts/make_gbuild.sh BUILD_DIR  (copies a Release build into gbuild/ for a GPU machine: tools, lib, GPU tests, installed prefix; no objects)"
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -f "$1/CMakeCache.txt" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
[ "$B" != "$PWD/gbuild" ] || { echo "make_gbuild.sh: the build folder cannot be gbuild/ itself" >&2; exit 2; }
rm -rf gbuild && mkdir gbuild
tar -C "$B" --exclude='*.o' --exclude='*.a' --exclude=CMakeFiles --exclude=Testing \
  --exclude=install_test --exclude=_deps -cf - . | tar -C gbuild -xf -
# Only the GPU test binaries (and the fake worker they start) travel.
find gbuild/tests -type f -executable ! -name 'test_gpu_*' ! -name fake_worker -delete
cmake --install "$B" --prefix "$PWD/gbuild/prefix" > /dev/null
rm -f gbuild/prefix/lib/libautogemm.a
grep -qx /gbuild/ .git/info/exclude || echo /gbuild/ >> .git/info/exclude
du -sh gbuild
