#!/usr/bin/env bash
# Session 19, second call: the gemv ring on the working copy s19_sgemv.cu,
# which now skips the register batch loop after a ring (dead there: only the
# last K % batch steps are left, but ptxas held its registers: 168 -> 164 at
# 16 rows, 134 -> 93 for the 8-row winner). Side by side in kernel_probe (L2
# flushed): batches of 16 k (un=4, allowed with rings now: their batches wait
# in shared memory) against 8, with AG_UOUTER (the matrix read from the
# slot a quad of k at a time), AG_ROT and AG_SPLITLOOP (see s19_call1.sh).
# Then the SASS of the 16-row configs and ncu stalls of the best guess.
#   OUT=/tmp/o bash scripts/experiments/s19_call2.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
# The working copy: the sgemv.cu of 5f8b512 with docs/results/2026-12-04-s19-call2/s19_sgemv.patch
# applied (the second call's copy; the first call's had neither AG_UOUTER nor the skipped register loop).
W=${W:-scripts/experiments/s19_sgemv.cu}
V=(--variant "-DAG_UOUTER=1" --variant "-DAG_ROT=1 -DAG_SPLITLOOP=1" --variant "-DAG_UOUTER=1 -DAG_ROT=1 -DAG_SPLITLOOP=1")
probe() {  # config shape [more variants...]
  local c=$1 s=$2; shift 2
  timeout 100 "$B"/tools/kernel_probe --source $W --config "gemv $c" --shape "$s" "${V[@]}" "$@" \
    2>&1 | grep -v "^\[\|ptxas"
}
{
echo "committed kernel:"
timeout 60 "$B"/tools/kernel_probe --config "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" \
  --shape 16x4096x4096 2>&1 | grep -v "^\[\|ptxas"
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=2 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=4 st=2 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=8 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 8x4096x4096
probe "one=0 rows=8 thr=256 kg=32 sk=1 un=4 st=2 vec=4 ta=0 tb=0" 8x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x11008x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=2 vec=4 ta=0 tb=0" 16x11008x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 16x4096x4096:TN
probe "one=1 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 4096x16x4096:TN
probe "one=0 rows=16 thr=256 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x8192x8192
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=3 vec=4 ta=0 tb=0" 13x4100x4096
} > "$OUT/probe.log" 2>&1
grep -E ' on |^\(as|^-D' "$OUT/probe.log" | sed 's/  */ /g;s/ vec=4//;s/ NN aligned//;s/ sk=1//' | cut -c1-100
rm -rf /tmp/cub; mkdir -p /tmp/cub /tmp/cub4
timeout 60 "$B"/tools/kernel_probe --source $W --config "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" \
  --shape 16x4096x4096 "${V[@]}" --cubin-dir /tmp/cub > /dev/null 2>&1
timeout 60 "$B"/tools/kernel_probe --source $W --config "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=3 vec=4 ta=0 tb=0" \
  --shape 16x4096x4096 "${V[@]}" --cubin-dir /tmp/cub4 > /dev/null 2>&1
for f in /tmp/cub/*.cubin /tmp/cub4/*.cubin; do cuobjdump --dump-sass "$f" > "${f%.cubin}.sass"; done
python3 scripts/experiments/sass_loop_mix.py /tmp/cub/*.sass /tmp/cub4/*.sass | tee "$OUT/sass-mix.txt"
mv /tmp/cub4 /tmp/cub/un4; tar -C /tmp/cub -czf "$OUT/sass.tgz" .
sed 's/^#define AG_ROT 0$/#define AG_ROT 1/;s/^#define AG_SPLITLOOP 0$/#define AG_SPLITLOOP 1/;s/^#define AG_UOUTER 0$/#define AG_UOUTER 1/' $W > /tmp/all.cu
stalls() {  # tag source config
  timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section InstructionStats \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    "$B"/tools/kernel_probe --source "$2" --config "gemv $3" --shape 16x4096x4096 > /tmp/ncu-$1.txt 2>&1
  echo "== ncu $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Executed Instructions  " /tmp/ncu-$1.txt
  grep -E "stalled" /tmp/ncu-$1.txt | awk '{print $1, $3}' | sed 's/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//' \
    | sort -k2 -g -r | head -7 | tr '\n' ' '; echo
}
{ stalls all-un4st3 /tmp/all.cu "one=0 rows=16 thr=128 kg=16 sk=1 un=4 st=3 vec=4 ta=0 tb=0"
  stalls all-un2st3 /tmp/all.cu "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0"; } 2>&1 | tee "$OUT/ncu-summary.txt"
cat /tmp/ncu-*.txt > "$OUT/ncu-all.txt"
