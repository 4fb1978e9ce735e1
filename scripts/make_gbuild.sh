#!/usr/bin/env bash
# Makes gbuild/, the Release build in the shape the device tool carries
# (carry: ["gbuild"], at most 64 MiB with the repository): the build folder
# without object files, static libraries, CMake state or CPU-only tests, and
# an installed prefix under gbuild/prefix for the package's own tools.
#   bash scripts/experiments/make_gbuild.sh [build]
# gbuild/ must be ignored by git: echo /gbuild/ >> .git/info/exclude
set -euo pipefail
B=${1:-build}
rm -rf gbuild && mkdir gbuild
tar -C "$B" --exclude='*.o' --exclude='*.a' --exclude=CMakeFiles --exclude=Testing \
  --exclude=install_test --exclude=_deps -cf - . | tar -C gbuild -xf -
# Only the GPU test binaries (and the fake worker they start) travel.
find gbuild/tests -type f -executable ! -name 'test_gpu_*' ! -name fake_worker -delete
cmake --install "$B" --prefix "$PWD/gbuild/prefix" > /dev/null
rm -f gbuild/prefix/lib/libautogemm.a
grep -qx /gbuild/ .git/info/exclude || echo /gbuild/ >> .git/info/exclude
du -sh gbuild
