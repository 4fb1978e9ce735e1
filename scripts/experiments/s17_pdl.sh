#!/usr/bin/env bash
# Session 17: gemv as a programmatic dependent launch. GPU tests (the whole
# test_gpu_sgemm, the gemv and split-K kernel tests), then the short-row and
# M = 1 shapes tuned on a fresh cache and benchmarked from it four times,
# alternating the dependent launch on and off (AUTOGEMM_DEPENDENT_LAUNCH=0).
# Files under $OUT: tests.log, tune.json, bench-{on,off}{1,2}.json.
#   OUT=/tmp/o bash scripts/experiments/s17_pdl.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
  timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
  timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*:GpuKernels.SplitK*'
  echo "test_gpu_kernels rc=$?"
} > "$OUT/tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests.log"
SHAPES="1x4096x4096 1x11008x4096 1x4096x11008 16x4096x4096 16x11008x4096 16x4096x11008 8x4096x4096 2x4096x4096 4096x16x4096:TN 16x8192x8192"
sh=(); for s in $SHAPES; do sh+=(--shape "$s"); done
timeout 120 "$B"/tools/gemm_tune --device 0 --db /tmp/pdl.db "${sh[@]}" --json "$OUT/tune.json" 2>&1 | grep -v "^\[" | tail -n 2
for i in 1 2; do
  AUTOGEMM_CACHE=/tmp/pdl.db timeout 60 "$B"/tools/gemm_bench "${sh[@]}" --overhead-calls 0 --json "$OUT/bench-on$i.json" > /dev/null 2>&1
  AUTOGEMM_DEPENDENT_LAUNCH=0 AUTOGEMM_CACHE=/tmp/pdl.db timeout 60 "$B"/tools/gemm_bench "${sh[@]}" --overhead-calls 0 \
    --json "$OUT/bench-off$i.json" > /dev/null 2>&1
  echo "bench $i rc=$?"
done
python3 scripts/experiments/bench_table.py "$OUT/bench-on1.json" "$OUT/bench-off1.json"
python3 scripts/experiments/bench_table.py "$OUT/bench-on2.json" "$OUT/bench-off2.json"
