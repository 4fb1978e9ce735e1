#!/usr/bin/env bash
# Session 17: gemv ring code generation. The gemv kernel tests, then
# kernel_probe (L2 flushed before each run) of the ring winners with the
# batch copies set up once (AG_NEWRING) or per batch, FMAs two rows at a
# time (AG_FMAPAIRS) or one, k quads outermost (AG_UOUTER) or rows, and
# __launch_bounds__ min blocks 1 (AG_MINB),
# ncu of the 16-row winner as built, exhaustive gemv on 16x4096x4096.
#   OUT=/tmp/o bash scripts/experiments/s17_probe.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*' > "$OUT/tests.log" 2>&1
echo "test_gpu_kernels gemv rc=$?"; grep -E "PASSED|FAILED|Failure" "$OUT/tests.log" | head -8
probe() {  # config shape
  timeout 120 "$B"/tools/kernel_probe --config "gemv $1" --shape "$2" \
    --variant "-DAG_NEWRING=0 -DAG_FMAPAIRS=0 -DAG_UOUTER=0" --variant "-DAG_NEWRING=0 -DAG_UOUTER=0" \
    --variant "-DAG_FMAPAIRS=0 -DAG_UOUTER=0" --variant "-DAG_NEWRING=0" --variant "-DAG_MINB=1" \
    --variant "-DAG_MINB=1 -DAG_NEWRING=0 -DAG_FMAPAIRS=0 -DAG_UOUTER=0" 2>&1 | grep -v "^\[\|ptxas"
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
} > "$OUT/probe.log" 2>&1
grep -E ' on |^\(as|^-D' "$OUT/probe.log" | sed 's/  */ /g' | cut -c1-120
timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  "$B"/tools/kernel_probe --config "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" \
  --shape 16x4096x4096 > "$OUT/ncu-g16.txt" 2>&1
echo "ncu rc=$?"
grep -E "Duration|Issue Slots Busy|Issued Instructions Per|Warp Cycles Per Issued" "$OUT/ncu-g16.txt"
grep -E "stalled" "$OUT/ncu-g16.txt" | sort -k3 -g -r | head -6
mkdir -p "$OUT/exh"
TESTS=" " SKIP_SUITE=1 OUT="$OUT/exh" EXH_FAMILY=gemv EXH_SHAPES="16x4096x4096" \
  EXH_TIMEOUT=${EXH_TIMEOUT:-200} bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 6
