#!/usr/bin/env bash
# Session 16: gemv rings with the vectors staged in them. The gemv kernel
# tests, then kernel_probe of ring configs on the short-row shapes (AG_PROBE
# 1: no FMAs, 2: constant vectors), against the tiled split-K winner.
#   OUT=/tmp/o bash scripts/experiments/s16_probe2.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*' > "$OUT/tests.log" 2>&1
echo "test_gpu_kernels gemv rc=$?"; grep -E "PASSED|FAILED|Failure" "$OUT/tests.log" | head -8
probe() {  # config shape variants...
  local c=$1 s=$2; shift 2
  local v=(); for x in "$@"; do v+=(--variant "$x"); done
  timeout 90 "$B"/tools/kernel_probe --config "$c" --shape "$s" "${v[@]}" 2>&1 | grep -v "^\[\|ptxas"
}
{
probe "tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4 sk=16 rd=1 sw=1 st=4 ta=0 tb=0" 16x4096x4096
for c in "thr=512 kg=64 sk=1 st=2" "thr=256 kg=32 sk=1 st=4" "thr=256 kg=32 sk=1 st=2" "thr=128 kg=16 sk=1 st=4" \
         "thr=256 kg=8 sk=4 st=4" "thr=512 kg=16 sk=4 st=4" "thr=256 kg=16 sk=2 st=3" "thr=128 kg=16 sk=1 st=6"; do
  probe "gemv one=0 rows=16 $c vec=4 ta=0 tb=0" 16x4096x4096 -DAG_PROBE=2
done
probe "gemv one=0 rows=16 thr=256 kg=32 sk=1 st=4 ld=1 vec=4 ta=0 tb=0" 16x4096x4096
probe "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "gemv one=0 rows=16 thr=256 kg=32 sk=1 st=4 vec=4 ta=0 tb=0" 16x11008x4096
probe "gemv one=0 rows=16 thr=256 kg=16 sk=2 st=4 vec=4 ta=0 tb=0" 16x4096x11008
probe "gemv one=0 rows=8 thr=256 kg=32 sk=1 st=4 vec=4 ta=0 tb=0" 8x4096x4096
probe "gemv one=0 thr=512 kg=64 sk=1 un=2 vec=4 ta=0 tb=0" 1x4096x4096
} > "$OUT/probe.log" 2>&1
awk '/ on /{c=$0} /as built/{print $3, c} /PROBE=2/{print "   const x:", $3}' "$OUT/probe.log"
