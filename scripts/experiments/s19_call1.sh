#!/usr/bin/env bash
# Session 19, first call: two changes to the gemv ring on a working copy
# (s19_sgemv.cu; both switches 0 is the committed kernel), side by side in
# kernel_probe (L2 flushed): AG_ROT keeps each thread's sums with their
# components rotated (columns 1, 2, 3, 0), so that the register quads of a
# sum and of the matrix's 16-byte piece put column c in different register
# banks; AG_SPLITLOOP runs the batches that refill the ring in a loop of
# their own (no refill test) and the last S - 1 after it. Then the SASS of
# the 16-row winner per variant (static issue cycles, FFMAs with two reads in
# one bank) and ncu's stalls of the committed loop and of AG_ROT.
#   OUT=/tmp/o bash scripts/experiments/s19_call1.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
# The working copy: the sgemv.cu of 5f8b512 with docs/results/2026-12-04-s19-call2/s19_sgemv.patch
# applied (the second call's copy; the first call's had neither AG_UOUTER nor the skipped register loop).
W=${W:-scripts/experiments/s19_sgemv.cu}
V=(--variant "-DAG_ROT=1" --variant "-DAG_SPLITLOOP=1" --variant "-DAG_ROT=1 -DAG_SPLITLOOP=1")
probe() {  # config shape [more variants...]
  local c=$1 s=$2; shift 2
  timeout 100 "$B"/tools/kernel_probe --source $W --config "gemv $c" --shape "$s" "${V[@]}" "$@" \
    2>&1 | grep -v "^\[\|ptxas"
}
{
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=8 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 8x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x11008x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 16x4096x4096:TN
probe "one=0 rows=4 thr=256 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 4x4096x4096
probe "one=0 rows=16 thr=256 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x8192x8192
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 13x4100x4096
probe "one=1 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 4096x16x4096:TN
} > "$OUT/probe.log" 2>&1
grep -E ' on |^\(as|^-D' "$OUT/probe.log" | sed 's/  */ /g' | cut -c1-110
G16="gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
rm -rf /tmp/cub; mkdir -p /tmp/cub
timeout 60 "$B"/tools/kernel_probe --source $W --config "$G16" --shape 16x4096x4096 "${V[@]}" \
  --cubin-dir /tmp/cub > /dev/null 2>&1
for f in /tmp/cub/*.cubin; do cuobjdump --dump-sass "$f" > "/tmp/cub/$(basename "$f" .cubin).sass"; done
python3 scripts/experiments/sass_loop_mix.py /tmp/cub/*.sass | tee "$OUT/sass-mix.txt"
tar -C /tmp/cub -czf "$OUT/sass.tgz" .
sed 's/^#define AG_ROT 0$/#define AG_ROT 1/' $W > /tmp/rot.cu
stalls() {  # tag source
  timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section InstructionStats \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    "$B"/tools/kernel_probe --source "$2" --config "$G16" --shape 16x4096x4096 > /tmp/ncu-$1.txt 2>&1
  echo "== ncu $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Executed Instructions  " /tmp/ncu-$1.txt
  grep -E "stalled" /tmp/ncu-$1.txt | awk '{print $1, $3}' | sed 's/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//' \
    | sort -k2 -g -r | head -7 | tr '\n' ' '; echo
}
{ stalls base $W; stalls rot /tmp/rot.cu; } 2>&1 | tee "$OUT/ncu-summary.txt"
cat /tmp/ncu-*.txt > "$OUT/ncu-all.txt"
