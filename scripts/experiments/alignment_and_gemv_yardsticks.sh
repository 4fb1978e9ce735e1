#!/usr/bin/env bash
# One GPU call: warptiled and gemv GPU tests; kernel_probe of the spread
# 4-byte copies (the same tiles as gpu3.sh); an exhaustive gemv tuning of
# short-dimension shapes (the ModelQuality yardsticks); the alignment pairs
# tuned on a fresh cache and benchmarked.
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
timeout 240 $B/tests/test_gpu_kernels --gtest_filter='*GpuFamilies*warptiled*:*Gemv*:*GpuFamilies*gemv*' --gtest_brief=1 2>&1 | grep -v "^\[ NVRTC\|ptxas" | tail -n 20
echo "gpu tests rc=${PIPESTATUS[0]}"
} > $OUT/run.log 2>&1
W="warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3"
T="warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=8 st=3"
P="$W vec=4 sw=8 ta=0 tb=0@4096x4096x1024;$W vec=1 sw=8 ta=0 tb=0@4096x4096x1024;$W vec=1 sw=8 ta=0 tb=0@4095x4097x1023"
P="$P;warptiled bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0@4095x4097x1023"
P="$P;$T vec=1 sk=4 sw=1 ta=1 tb=1@1024x1024x2048:TT;$T vec=1 sk=4 sw=1 ta=1 tb=1@1025x1023x2049:TT"
OUT=$OUT SKIP_TUNE=1 SKIP_BENCH=1 SASS_WINNERS=0 PROBES="$P" bash scripts/experiments/family_check.sh $B > $OUT/probe-run.log 2>&1
mv $OUT/sass.tar.gz $OUT/probe-sass.tar.gz
GS="--shape 1x4096x4096 --shape 1x11008x4096 --shape 16x4096x4096 --shape 8x4096x4096 --shape 4096x1x4096:TN --shape 1x4097x4095"
{
timeout 230 $B/tools/gemm_tune --device 0 --db $OUT/gemv.db --family gemv $GS --strategy exhaustive --json $OUT/gemv-tune.json 2>&1 | grep -v "^\[" | tail -n 9
$B/tools/autogemm_cache export --db $OUT/gemv.db --out $OUT/gemv-trials.json 2>&1 | tail -n 1
EX="--shape 4096x4096x1024 --shape 4095x4097x1023 --shape 1024x1024x2048:TT --shape 1025x1023x2049:TT --shape 3000x3000x1536:NT --shape 3001x2999x1537:NT"
timeout 200 $B/tools/gemm_tune --device 0 --db $OUT/tuning.db $EX --json $OUT/tune-align.json 2>&1 | grep -v "^\[" | tail -n 8
AUTOGEMM_CACHE=$OUT/tuning.db timeout 100 $B/tools/gemm_bench $EX --json $OUT/bench-align.json 2>&1 | tail -n 10
} >> $OUT/run.log 2>&1
rm -f $OUT/tuning.db* $OUT/gemv.db*
mkdir -p $OUT/x && tar -xzf $OUT/probe-sass.tar.gz -C $OUT/x sass/probe.log sass/mix.txt 2>/dev/null
grep -v "NVRTC\|ptxas\|^ *$\|^variant" $OUT/x/sass/probe.log | head -40
cat $OUT/x/sass/mix.txt | grep -v "^ " ; rm -rf $OUT/x
grep -v "^\[" $OUT/run.log
