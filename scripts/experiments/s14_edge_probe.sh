#!/usr/bin/env bash
# Session 14, second GPU call: warps of an edge tile wholly outside C skip
# the inner product (sgemm_warptiled.cu). test_gpu_sgemm; kernel_probe of
# tiles that add a nearly empty tile row or column on the unaligned pairs
# (and of aligned winners, which must not move); then the exhaustive
# warptiled yardsticks of the two unaligned shapes again with this kernel.
# Needs docs/results/2026-12-03-s14-edge-skip/edge-skip.patch applied (the
# change was dropped after this call, NOTES step 82).
#   OUT=/tmp/o bash scripts/experiments/s14_edge_probe.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
( timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?" ) > "$OUT/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/gpu-tests.log"
probe() {  # config shape
  printf "%-92s %-20s " "$1" "$2"
  timeout 60 "$B"/tools/kernel_probe --config "$1" --shape "$2" 2>&1 | grep -E "as built|failed|error|invalid" | head -1 | awk '{print $3, $4, $NF}'
}
{
L="warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 sw=8"
probe "$L vec=4 ta=0 tb=0" 4096x4096x4096
probe "$L vec=4 ta=0 tb=0" 4096x4096x1024
probe "$L vec=1 ta=0 tb=0" 4096x4096x1024
probe "$L vec=1 ta=0 tb=0" 4095x4097x1023
probe "$L vec=1 ta=0 tb=0" 4096x4097x1024
probe "$L vec=1 ta=0 tb=0" 4095x4096x1024
probe "$L vec=1 ta=0 tb=0" 4096x4096x1023
W="warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 sw=8"
probe "$W vec=1 ta=0 tb=0" 4095x4097x1023
T="warptiled bm=256 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 sk=4 sw=1"
probe "$T vec=4 ta=1 tb=1" 1024x1024x2048:TT
probe "$T vec=1 ta=1 tb=1" 1024x1024x2048:TT
probe "$T vec=1 ta=1 tb=1" 1025x1023x2049:TT
X="warptiled bm=32 bn=256 bk=8 wm=32 wn=64 ln=8 st=3 sk=2 sw=8"
probe "$X vec=1 ta=1 tb=1" 1025x1023x2049:TT
} | tee "$OUT/probe.log"
OUT=$OUT EXH_GROUPS="warptiled:4095x4097x1023,1025x1023x2049:TT" TIMEOUTS=240 \
  bash scripts/experiments/suite_yardsticks.sh "$B" | tail -n 12
