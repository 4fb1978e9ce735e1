#!/usr/bin/env bash
# One GPU call: rotating timing (gemm_bench --timing rotate, the worker's
# timing) and the model cutoff of the tuner, on the product path.
#  1. GPU tests of the benchmark and the worker;
#  2. the public suite tuned on a fresh cache (tuning time per shape), then
#     gemm_bench with the default (rotating) timing;
#  3. the suite's short-dimension shapes again with --timing flush;
#  4. alignment pairs and more short-dimension shapes tuned into the same
#     cache and benchmarked (rotating);
# a table of each bench file last (scripts/experiments/bench_table.py).
#   OUT=/tmp/o bash scripts/experiments/rotating_timing.sh gbuild
B=${1:-gbuild}
OUT=${OUT:-$PWD/gpu-out}
export LD_LIBRARY_PATH=$PWD/$B/lib
T=scripts/experiments/bench_table.py
SHORT="--shape 1x4096x4096 --shape 1x11008x4096 --shape 1x4096x11008 --shape 16x4096x4096 --shape 16x11008x4096 --shape 16x4096x11008"
EX="--shape 4096x4096x1024 --shape 4095x4097x1023 --shape 1024x1024x2048:TT --shape 1025x1023x2049:TT
    --shape 3000x3000x1536:NT --shape 3001x2999x1537:NT --shape 4096x1x4096:TN --shape 8x4096x4096
    --shape 4x11008x4096 --shape 1x4097x4095"
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
for t in test_gpu_benchmark test_gpu_worker; do
  timeout 200 "$B/tests/$t" --gtest_brief=1 2>&1 | tail -n 6; echo "$t rc=${PIPESTATUS[0]}"
done
timeout 330 "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" --json "$OUT/suite-tune.json" > "$OUT/suite-tune.log" 2>&1
echo "suite gemm_tune rc=$?"
AUTOGEMM_CACHE="$OUT/tuning.db" timeout 150 "$B"/tools/gemm_bench --json "$OUT/suite-bench.json" 2>&1 | tail -n 4
# shellcheck disable=SC2086
AUTOGEMM_CACHE="$OUT/tuning.db" timeout 60 "$B"/tools/gemm_bench $SHORT --timing flush --overhead-calls 0 \
  --json "$OUT/short-flush.json" 2>&1 | tail -n 2
# shellcheck disable=SC2086
timeout 150 "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" $EX --json "$OUT/extra-tune.json" > "$OUT/extra-tune.log" 2>&1
echo "extra gemm_tune rc=$?"
# shellcheck disable=SC2086
AUTOGEMM_CACHE="$OUT/tuning.db" timeout 60 "$B"/tools/gemm_bench $EX --overhead-calls 0 --json "$OUT/extra-bench.json" 2>&1 | tail -n 2
"$B"/tools/autogemm_cache export --db "$OUT/tuning.db" --out "$OUT/trials.json" 2>&1 | tail -n 1
gzip -f "$OUT/trials.json"
} > "$OUT/run.log" 2>&1
rm -f "$OUT"/tuning.db*
cat "$OUT/run.log"
python3 scripts/experiments/tune_table.py "$OUT/suite-tune.json" "$OUT/extra-tune.json"
python3 $T "$OUT/suite-bench.json"
python3 $T "$OUT/short-flush.json"
python3 $T "$OUT/extra-bench.json"
