#!/usr/bin/env bash
# Session 15's closing GPU call: test_gpu_sgemm and the warptiled edge and
# split-K kernel tests; the edge-move probe (s15_shift2.sh); then the
# README's `gemm_tune --device 0` on a fresh cache (the public suite) with
# gemm_bench, and the unaligned pairs and sides just past a multiple of the
# tile (with aligned neighbours) tuned into the same cache and benchmarked.
# At most 8 files under $OUT: tests/gpu-tests.log, probe.log,
# suite/{run.log,suite-tune.json,suite-bench.json,extra-tune.json,extra-bench.json}.
#   OUT=/tmp/o bash scripts/experiments/s15_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/suite"
{
  timeout 120 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
  timeout 120 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='GpuKernels.Warptiled*:GpuKernels.SplitK*'
  echo "test_gpu_kernels rc=$?"
} > "$OUT/tests/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests/gpu-tests.log"
timeout 170 bash scripts/experiments/s15_shift2.sh "$B" > /dev/null 2>&1
awk '/ on /{for (i = 1; i <= NF; i++) if ($i == "on") s = $(i + 1); printf "\n%s %s %s:", $2, $3, s}
  / yes$/{printf " %s", $(NF-2)}' "$OUT/probe.log"; echo
TESTS=" " SUITE_TIMEOUT=230 EXTRA_TIMEOUT=150 OUT="$OUT/suite" \
  EXTRA="4096x4096x1024 4095x4097x1023 1024x1024x2048:TT 1025x1023x2049:TT 3000x3000x1536:NT 3001x2999x1537:NT 4097x4097x4097 1024x4096x4096 1025x4097x4096" \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 60
