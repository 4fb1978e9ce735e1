#!/usr/bin/env bash
# Session 18, first call: the whole test_gpu_kernels in 8 parallel gtest
# shards (its NVRTC builds ran past 240 s serially), the gemv ring with its
# batch loop unrolled by the ring depth (constant slots, copy sources set up
# once; working copy s18_sgemv.cu, AG_RUNROLL=0 is the committed loop) side
# by side in kernel_probe, the SASS mix of both loops, and ncu stalls.
#   OUT=/tmp/o bash scripts/experiments/s18_call1.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
# The working copy: the committed sgemv.cu with docs/results/2026-12-03-s18-call2/s18_sgemv.patch
# applied (the patch of the second call; the first call's copy is that patch with AG_HOIST=0, AG_RUNROLL=1).
W=${W:-scripts/experiments/s18_sgemv.cu}
t0=$(date +%s)
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 "$B"/tests/test_gpu_kernels --gtest_brief=1 \
    > /tmp/shard$i.log 2>&1 &
done
wait
for i in 0 1 2 3 4 5 6 7; do echo "== shard $i"; cat /tmp/shard$i.log; done > "$OUT/tests.log"
echo "test_gpu_kernels 8 shards: $(( $(date +%s) - t0 )) s"
grep -hE "^\[  PASSED|^\[  FAILED|Failure|tests ran" /tmp/shard*.log | sort | uniq -c | head -12
probe() {  # config shape
  timeout 100 "$B"/tools/kernel_probe --source $W --config "gemv $1" --shape "$2" --variant "-DAG_RUNROLL=0" --variant "-DAG_FULLSYNC=1" \
    2>&1 | grep -v "^\[\|ptxas"
}
{
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 16x4096x4096
probe "one=0 rows=8 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 8x4096x4096
probe "one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=2 vec=4 ta=0 tb=0" 16x11008x4096
probe "one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=1 tb=0" 16x4096x4096:TN
probe "one=0 rows=4 thr=256 kg=16 sk=1 un=2 st=4 vec=4 ta=0 tb=0" 4x4096x4096
probe "one=0 rows=16 thr=256 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0" 16x8192x8192
} > "$OUT/probe.log" 2>&1
grep -E ' on |^\(as|^-D' "$OUT/probe.log" | sed 's/  */ /g' | cut -c1-110
G16="gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
mkdir -p /tmp/cub
timeout 60 "$B"/tools/kernel_probe --source $W --config "$G16" --shape 16x4096x4096 --variant "-DAG_RUNROLL=0" --variant "-DAG_FULLSYNC=1" \
  --cubin-dir /tmp/cub > /dev/null 2>&1
for f in /tmp/cub/*.cubin; do cuobjdump --dump-sass "$f" > "/tmp/cub/$(basename "$f" .cubin).sass"; done
python3 scripts/experiments/sass_loop_mix.py /tmp/cub/*.sass | tee "$OUT/sass-mix.txt"
tar -C /tmp/cub -czf "$OUT/sass.tgz" .
stalls() {  # tag config extra...
  local tag=$1 cfg=$2; shift 2
  timeout 90 ncu --clock-control none --kernel-name agemv --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section InstructionStats \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    "$B"/tools/kernel_probe --config "$cfg" --shape 16x4096x4096 "$@" > /tmp/ncu-$tag.txt 2>&1
  echo "== ncu $tag rc=$?"
  grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Executed Ipc A|Issue Slots Busy" /tmp/ncu-$tag.txt
  grep -E "stalled" /tmp/ncu-$tag.txt | awk '{print $1, $3}' | sed 's/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//' \
    | sort -k2 -g -r | head -6 | tr '\n' ' '; echo
}
{
stalls g16b3 "gemv one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0"
stalls g16new "$G16" --source $W
stalls g16b3new "gemv one=0 rows=16 thr=256 kg=32 sk=1 un=2 st=3 vec=4 ta=0 tb=0" --source $W
} 2>&1 | tee "$OUT/ncu-summary.txt"
cat /tmp/ncu-*.txt > "$OUT/ncu-all.txt"
