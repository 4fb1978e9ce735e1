#!/usr/bin/env bash
# Session 17: where the 16-row gemv ring time goes. ncu (clocks left alone)
# on the 16-row, 8-row and 1-row gemv winners, the SASS of the 16-row
# winner's loop, and kernel_probe of its variants.
#   OUT=/tmp/o bash scripts/experiments/s17_diag.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
G16="gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
G16B="gemv one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=2 vec=4 ta=0 tb=0"
G8="gemv one=0 rows=8 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
G1="gemv one=0 thr=512 kg=64 sk=1 un=2 vec=4 ta=0 tb=0"
ncu_one() {  # tag config shape
  timeout 120 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
    "$B"/tools/kernel_probe --config "$2" --shape "$3" > "$OUT/ncu-$1.txt" 2>&1
  echo "ncu $1 rc=$?"
}
ncu_one g16 "$G16" 16x4096x4096
ncu_one g16b "$G16B" 16x4096x4096
ncu_one g8 "$G8" 8x4096x4096
ncu_one g1 "$G1" 1x4096x4096
for t in g16 g8; do
  c=$G16; s=16x4096x4096; [ $t = g8 ] && c=$G8 && s=8x4096x4096
  timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    "$B"/tools/kernel_probe --config "$c" --shape $s > "$OUT/stalls-$t.txt" 2>&1
  echo "stalls $t rc=$?"; grep -E "stalled" "$OUT/stalls-$t.txt" | sort -k3 -g -r | head -8
done
mkdir -p /tmp/cub
timeout 60 "$B"/tools/kernel_probe --config "$G16" --shape 16x4096x4096 --cubin-dir /tmp/cub ${VARIANTS:+$VARIANTS} > "$OUT/probe.log" 2>&1
for f in /tmp/cub/*.cubin; do cuobjdump --dump-sass "$f" > "/tmp/cub/$(basename "$f" .cubin).sass"; done
tar -C /tmp/cub -czf "$OUT/sass.tgz" .
grep -v "^\[" "$OUT/probe.log" | tail -12
for t in g16 g16b g8 g1; do
  echo "== $t"
  grep -E "Duration|DRAM Throughput|SM Frequency|Issue Slots Busy|Eligible Warps|No Eligible|Warp Cycles Per Issued|Active Warps Per|Registers Per|Stall|Executed Ipc A" "$OUT/ncu-$t.txt" | head -24
done
