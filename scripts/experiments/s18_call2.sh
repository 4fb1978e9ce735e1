#!/usr/bin/env bash
# Session 18, second call: the gemv ring with its copy sources advanced a
# batch at a time, slot indices carried and, where every thread of a warp
# copies whole pieces, no source size (working copy s18_sgemv.cu, AG_HOIST=1
# as built; -DAG_HOIST=0 is the committed loop), side by side in
# kernel_probe; the SASS mix of both loops and ncu of the 16-row winner.
#   OUT=/tmp/o bash scripts/experiments/s18_call2.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
# The working copy: the committed sgemv.cu with docs/results/2026-12-03-s18-call2/s18_sgemv.patch
# applied (the patch of the second call; the first call's copy is that patch with AG_HOIST=0, AG_RUNROLL=1).
W=${W:-scripts/experiments/s18_sgemv.cu}
probe() {  # config shape [variants...]
  local c=$1 s=$2; shift 2
  timeout 100 "$B"/tools/kernel_probe --source $W --config "gemv $c" --shape "$s" --variant "-DAG_HOIST=0" "$@" \
    2>&1 | grep -v "^\[\|ptxas"
}
{
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=8 sk=4 un=2 st=2 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=8 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 8x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x11008x4096 --variant "-DAG_MINBLOCKS=3"
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 16x4096x4096:TN
probe "one=0 rows=4 thr=256 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 4x4096x4096
probe "one=0 rows=16 thr=256 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x8192x8192
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 13x4100x4096
} > "$OUT/probe.log" 2>&1
grep -E ' on |^\(as|^-D' "$OUT/probe.log" | sed 's/  */ /g' | cut -c1-110
G16="gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
rm -rf /tmp/cub; mkdir -p /tmp/cub
timeout 60 "$B"/tools/kernel_probe --source $W --config "$G16" --shape 16x4096x4096 --variant "-DAG_HOIST=0" \
  --cubin-dir /tmp/cub > /dev/null 2>&1
for f in /tmp/cub/*.cubin; do cuobjdump --dump-sass "$f" > "/tmp/cub/$(basename "$f" .cubin).sass"; done
python3 scripts/experiments/sass_loop_mix.py /tmp/cub/*.sass | tee "$OUT/sass-mix.txt"
tar -C /tmp/cub -czf "$OUT/sass.tgz" .
timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section SchedulerStats --section InstructionStats \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  "$B"/tools/kernel_probe --source $W --config "$G16" --shape 16x4096x4096 > "$OUT/ncu.txt" 2>&1
echo "== ncu rc=$?"
grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Executed Instructions  " "$OUT/ncu.txt"
grep -E "stalled" "$OUT/ncu.txt" | awk '{print $1, $3}' | sed 's/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//' \
  | sort -k2 -g -r | head -6 | tr '\n' ' '; echo
