#!/usr/bin/env bash
# Session 15, first GPU call: warptiled edge tiles shifted back inside C.
# GPU tests of the warptiled family (its GpuFamilies instances, the peeled
# and shifted edges) and test_gpu_sgemm; kernel_probe of the same tiles on
# aligned shapes and on sides just past a multiple of the tile (edge rows,
# edge columns, odd K); then the unaligned pairs and their aligned
# neighbours tuned on a fresh cache and benchmarked against cuBLAS.
# Files under $OUT: gpu-tests.log probe.log run.log extra-tune.json extra-bench.json
#   OUT=/tmp/o bash scripts/experiments/s15_shift.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
  timeout 200 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*GpuFamilies*warptiled*:GpuKernels.Warptiled*'
  echo "test_gpu_kernels rc=$?"
  timeout 120 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
} > "$OUT/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/gpu-tests.log"
probe() {  # config shape...
  local c=$1; shift
  for s in "$@"; do
    printf "%-92s %-20s " "$c" "$s"
    timeout 60 "$B"/tools/kernel_probe --config "$c" --shape "$s" 2>&1 | grep -E "as built|failed|error|invalid" | head -1 | awk '{print $3, $4, $NF}'
  done
}
{
W="warptiled bm=256 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 sw=8"
probe "$W vec=1 ta=0 tb=0" 4096x4096x1024 4095x4097x1023 4095x4096x1024 4096x4097x1024 4096x4096x1023
probe "$W vec=4 ta=0 tb=0" 4096x4096x1024 4096x4100x1024 4092x4096x1024
W="warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 sw=8"
probe "$W vec=1 ta=0 tb=0" 4096x4096x1024 4095x4096x1024 4095x4097x1023
probe "warptiled bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=4 vec=1 sw=8 ta=0 tb=0" 4096x4096x1024 4095x4097x1023
probe "warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4096x4096x1024 4095x4097x1023
probe "warptiled bm=256 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=4 sw=1 ta=1 tb=1" 1024x1024x2048:TT 1025x1023x2049:TT
probe "warptiled bm=128 bn=128 bk=16 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0" 4096x4096x4096 5000x5000x5000
probe "warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4097x4097x4097
} | tee "$OUT/probe.log"
TESTS=" " SKIP_SUITE=1 EXTRA_TIMEOUT=150 OUT="$OUT" \
  EXTRA="4096x4096x1024 4095x4097x1023 1024x1024x2048:TT 1025x1023x2049:TT 3000x3000x1536:NT 3001x2999x1537:NT 4097x4097x4097 1024x4096x4096 1025x4097x4096 1000x1000x1000 5000x5000x5000" \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 40
