#!/usr/bin/env bash
# One GPU call: the gemv GPU tests, the product path on the public suite
# (gemm_tune --device 0 on a fresh cache, then gemm_bench), then extra
# short-dimension shapes tuned into the same cache and benchmarked.
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
timeout 200 $B/tests/test_gpu_kernels --gtest_filter='*Gemv*:*GpuFamilies*gemv*' --gtest_brief=1 2>&1 | grep -v "^\[ NVRTC\|ptxas" | tail -n 30
echo "gemv tests rc=${PIPESTATUS[0]}"
OUT=$OUT SKIP_TESTS=1 timeout 380 bash scripts/gpu_check.sh $B > $OUT/suite.log 2>&1; echo "gpu_check rc=$?"
tail -n 40 $OUT/suite.log
EX="--shape 4096x1x4096:TN --shape 1x4097x4095 --shape 8x4096x4096 --shape 4x11008x4096 --shape 16x4096x4096:NT --shape 1x4096x4096:NT --shape 4096x1x4096 --shape 16x4097x4095"
timeout 120 $B/tools/gemm_tune --device 0 --db $OUT/tuning.db $EX --json $OUT/tune-extra.json 2>&1 | grep -v "^\[" | tail -n 12
AUTOGEMM_CACHE=$OUT/tuning.db timeout 100 $B/tools/gemm_bench $EX --json $OUT/bench-extra.json 2>&1 | tail -n 14
} > $OUT/run.log 2>&1
rm -f $OUT/tuning.db* $OUT/tune.log $OUT/example.log $OUT/bench.log
grep -v "^\[" $OUT/run.log | tail -n 70
