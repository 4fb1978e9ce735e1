#!/usr/bin/env bash
# Session 14, first GPU call: test_gpu_sgemm with the split-K reductions as
# programmatic dependent launches, then kernel_probe (each config verified):
#  1. the 16-row suite shapes at sk 16/32 and cp.async stages 4/6/8 (the
#     session-13 probe timed bm=16 bn=256 bk=8 sk=16 rd=1 st=4 at 34.6 us on
#     16x4096x4096 and 68.3 us on 16x4096x11008 before the change);
#  2. what an aligned (padded) copy of unaligned operands could buy: the
#     exhaustive best unaligned tiles at vec=1 against the same tile at vec=4
#     on a shape of the same tile count whose leading dimensions are aligned.
#   OUT=/tmp/o bash scripts/experiments/s14_probe.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
( timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?" ) > "$OUT/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/gpu-tests.log"
probe() {  # config shape
  printf "%-92s %-20s " "$1" "$2"
  timeout 60 "$B"/tools/kernel_probe --config "$1" --shape "$2" 2>&1 | grep -E "as built|failed|error" | head -1 | awk '{print $3, $4, $NF}'
}
T="tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4"
U="tiled bm=16 bn=128 bk=16 tm=4 tn=4 wc=8 vec=4"
{
for shape in 16x4096x4096 16x4096x11008 16x11008x4096; do
  for sk in 16 32; do
    for st in 4 6 8; do probe "$T sk=$sk rd=1 sw=1 st=$st ta=0 tb=0" $shape; done
    probe "$U sk=$sk rd=1 sw=1 st=4 ta=0 tb=0" $shape
  done
  probe "$T sk=6 rd=1 sw=1 st=4 ta=0 tb=0" $shape
  probe "$T sk=8 rd=1 sw=1 st=6 ta=0 tb=0" $shape
done
W="warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 sw=8"
V="warptiled bm=256 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 sw=8"
for cfg in "$W" "$V"; do
  probe "$cfg vec=1 ta=0 tb=0" 4095x4097x1023
  probe "$cfg vec=4 ta=0 tb=0" 4096x4100x1024
  probe "$cfg vec=1 ta=0 tb=0" 4096x4096x1024
  probe "$cfg vec=4 ta=0 tb=0" 4096x4096x1024
done
X="warptiled bm=32 bn=256 bk=8 wm=32 wn=64 ln=8 st=3 sk=2 sw=8"
probe "$X vec=1 ta=1 tb=1" 1025x1023x2049:TT
probe "$X vec=4 ta=1 tb=1" 1028x1024x2052:TT
probe "$X vec=1 ta=1 tb=1" 1024x1024x2048:TT
probe "$X vec=4 ta=1 tb=1" 1024x1024x2048:TT
} | tee "$OUT/probe.log"
