#!/usr/bin/env bash
# Session 16: where the 16-row time goes. kernel_probe of the tiled split-K
# winner (and neighbours) with AG_PROBE 1 (no FMAs), 2 (no partial stores),
# 3 (no K loop: launches, partials and reduce only), and of the best gemv
# ring configs with AG_PROBE 1 (no FMAs) and 2 (constant vectors).
#   OUT=/tmp/o bash scripts/experiments/s16_probe.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
probe() {  # config shape variants...
  local c=$1 s=$2; shift 2
  local v=(); for x in "$@"; do v+=(--variant "$x"); done
  timeout 90 "$B"/tools/kernel_probe --config "$c" --shape "$s" "${v[@]}" 2>&1 | grep -v "^\[\|ptxas"
}
T="-DAG_PROBE=1 -DAG_PROBE=2 -DAG_PROBE=3"
{
probe "tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4 sk=16 rd=1 sw=1 st=4 ta=0 tb=0" 16x4096x4096 $T
probe "tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4 sk=8 rd=1 sw=1 st=4 ta=0 tb=0" 16x4096x4096 $T
probe "tiled bm=16 bn=128 bk=16 tm=4 tn=4 wc=8 vec=4 sk=8 rd=1 sw=1 st=4 ta=0 tb=0" 16x4096x4096 $T
probe "tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4 sk=16 sw=1 st=4 ta=0 tb=0" 16x4096x4096 $T
probe "tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4 sk=6 rd=1 sw=1 st=4 ta=0 tb=0" 16x11008x4096 $T
probe "gemv one=0 rows=16 thr=512 kg=64 sk=1 st=2 vec=4 ta=0 tb=0" 16x4096x4096 -DAG_PROBE=1 -DAG_PROBE=2
probe "gemv one=0 rows=16 thr=256 kg=32 sk=1 st=4 vec=4 ta=0 tb=0" 16x4096x4096 -DAG_PROBE=1 -DAG_PROBE=2
probe "gemv one=0 rows=8 thr=256 kg=32 sk=1 st=4 vec=4 ta=0 tb=0" 8x4096x4096 -DAG_PROBE=1 -DAG_PROBE=2
probe "gemv one=0 thr=512 kg=64 sk=1 un=2 vec=4 ta=0 tb=0" 1x4096x4096
} > "$OUT/probe.log" 2>&1
cat "$OUT/probe.log"
