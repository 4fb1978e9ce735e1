#!/usr/bin/env bash
# tf32x3wg_probe.sh — where the wgmma 3xTF32 kernel's time goes: kernel_probe
# over stage-omitting variants for a few configs, then ncu on one config.
#   OUT=/tmp/o SHAPE=4096x4096x4096 CONFIGS="cfg1;cfg2" NCU_CONFIG="cfg" bash scripts/experiments/tf32x3wg_probe.sh gbuild
set -u -o pipefail
B=${1:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B/lib:${LD_LIBRARY_PATH:-}
SHAPE=${SHAPE:-4096x4096x4096}
VARIANTS=${VARIANTS:-"-DAG_PROBE=1|-DAG_PROBE=2|-DAG_PROBE=3|-DAG_PROBE=4|-DAG_TF32_PASSES=1"}
i=0
IFS=';' read -ra cfgs <<< "${CONFIGS:-}"
for c in "${cfgs[@]}"; do
  vargs=(); IFS='|' read -ra vs <<< "$VARIANTS"; for v in "${vs[@]}"; do vargs+=(--variant "$v"); done
  timeout 240 "$B"/tools/kernel_probe --config "$c" --shape "$SHAPE" "${vargs[@]}" --json "$OUT/probe-$i.json" 2>&1 | tee -a "$OUT/probe.log"
  i=$((i + 1))
done
if [ -n "${NCU_CONFIG:-}" ]; then
  timeout 300 ncu --clock-control none --kernel-name agemm_tf32x3wg --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --section Occupancy --section InstructionStats \
    "$B"/tools/kernel_probe --config "$NCU_CONFIG" --shape "$SHAPE" > "$OUT/ncu.txt" 2>&1
  echo "ncu rc=$?"
  grep -E "Duration|Throughput|Pipe|Tensor|Shared|Bank|Issue|Eligible|Stall|Registers|Warp Cycles|Executed Ipc|No Eligible|Active Warps" "$OUT/ncu.txt" | head -80
fi
