#!/usr/bin/env bash
# One GPU call for strided batches (issue 11): the GPU tests of the batch and
# of the kernels it touched, then the batched suite benchmarked against
# cublasSgemmStridedBatched before tuning (defaults, empty cache), tuned, and
# benchmarked again from the tuned cache.
# Files under $OUT: gpu_tests.log untuned-bench.json tune.json tune.txt
# bench.json bench.txt
#   OUT=/tmp/o bash scripts/experiments/batched_session.sh gbuild
B=${1:-gbuild}
OUT=${OUT:-$PWD/gpu-out}
export LD_LIBRARY_PATH=$PWD/$B/lib
T=$B/tools
W=$(mktemp -d)
quiet() { grep -v "^\[ NVRTC\|ptxas"; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  command -v mpirun sqlite3 gnuplot || echo "(some of mpirun, sqlite3, gnuplot missing)"
  timeout 200 "$B/tests/test_gpu_kernels" --gtest_filter='*GpuFamilies*' --gtest_brief=1 2>&1 | tail -n 25
  echo "test_gpu_kernels rc=${PIPESTATUS[0]}"
  timeout 120 "$B/tests/test_gpu_sgemm" --gtest_brief=1 2>&1 | tail -n 25
  echo "test_gpu_sgemm rc=${PIPESTATUS[0]}"
  timeout 60 "$B/tests/test_gpu_worker" --gtest_brief=1 2>&1 | tail -n 10
  echo "test_gpu_worker rc=${PIPESTATUS[0]}"
  timeout 90 "$B/tests/test_gpu_tune_dispatch" --gtest_brief=1 2>&1 | tail -n 10
  echo "test_gpu_tune_dispatch rc=${PIPESTATUS[0]}"
} > "$OUT/gpu_tests.log" 2>&1
timeout 100 "$T/gemm_bench" --db "$W/empty.db" --suite batched --overhead-calls 0 --json "$OUT/untuned-bench.json" \
  2>&1 | quiet > "$OUT/untuned-bench.txt"
/usr/bin/time -f "tune wall %e s" timeout 240 "$T/gemm_tune" --device 0 --db "$W/b.db" --suite batched \
  --json "$OUT/tune.json" 2>&1 | quiet > "$OUT/tune.txt"
timeout 100 "$T/gemm_bench" --db "$W/b.db" --suite batched --overhead-calls 0 --json "$OUT/bench.json" 2>&1 | quiet \
  > "$OUT/bench.txt"
"$T/autogemm_cache" list --db "$W/b.db" >> "$OUT/bench.txt" 2>&1
cat "$OUT/gpu_tests.log" | grep -E "rc=|FAILED|PASSED"
tail -n 3 "$OUT/tune.txt"
grep -E "autogemm .* cuBLAS|geomean|geometric" "$OUT/untuned-bench.txt" "$OUT/bench.txt"
rm -rf "$W"
