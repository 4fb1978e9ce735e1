#!/usr/bin/env bash
# Session 14, third GPU call: warptiled's peeled edges (pe=1). GPU tests of
# the peeled kernels and of every family's space samples, test_gpu_sgemm,
# kernel_probe of tiles with and without peeling on sides just past a
# multiple of the tile, then the exhaustive warptiled yardsticks of the two
# unaligned shapes again, now with the pe=1 variants in the space.
#   OUT=/tmp/o bash scripts/experiments/s14_peel.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
  timeout 200 "$B"/tests/test_gpu_kernels --gtest_brief=1 \
    --gtest_filter='GpuKernels.WarptiledPeeled*:*GpuFamilies.SpaceSamples*:*GpuFamilies.Defaults*:*GpuFamilies.AlphaZero*'
  echo "test_gpu_kernels rc=$?"
  timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
} > "$OUT/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/gpu-tests.log"
probe() {  # config shape
  printf "%-92s %-20s " "$1" "$2"
  timeout 60 "$B"/tools/kernel_probe --config "$1" --shape "$2" 2>&1 | grep -E "as built|failed|error|invalid" | head -1 | awk '{print $3, $4, $NF}'
}
{
L="warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8"
for pe in 0 1; do
  probe "$L pe=$pe ta=0 tb=0" 4095x4097x1023
  probe "$L pe=$pe ta=0 tb=0" 4097x4097x4097
  probe "$L pe=$pe ta=0 tb=0" 1025x4097x4096
done
probe "$L ta=0 tb=0" 4096x4096x4096
T="warptiled bm=256 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=4 sw=1"
probe "$T ta=1 tb=1" 1024x1024x2048:TT
probe "$T ta=1 tb=1" 1025x1023x2049:TT
probe "$T pe=1 ta=1 tb=1" 1025x1023x2049:TT
} | tee "$OUT/probe.log"
OUT=$OUT EXH_GROUPS="warptiled:4095x4097x1023,1025x1023x2049:TT" TIMEOUTS=330 \
  bash scripts/experiments/suite_yardsticks.sh "$B" | tail -n 6
