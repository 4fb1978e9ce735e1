#!/usr/bin/env bash
# Session 13: does the tiled cluster fold (rd=2) pay at 16 slices, and does
# it need its blocks spread over the SMs? kernel_probe times each config
# (verified) as built and with static shared memory reserved so an SM holds
# at most ~4, 2 or 1 of its blocks (-DAG_PROBE_SMEM_PAD), on two 16-row shapes.
#   OUT=/tmp/o bash scripts/experiments/s13_cluster_probe.sh gbuild
# Needs docs/results/2026-12-02-s13-cluster-fold/cluster-fold.patch applied
# (rd=2 was dropped after this probe, NOTES step 77).
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
T="tiled bm=16 bn=256 bk=8 tm=4 tn=8 wc=8 vec=4"
S="tiled bm=16 bn=128 bk=16 tm=4 tn=4 wc=8 vec=4"
for shape in 16x4096x4096 16x4096x11008; do
  for cfg in "$T sk=16 rd=1 sw=1 st=4" "$T sk=16 rd=2 sw=1 st=4" "$T sk=8 rd=2 sw=1 st=4" \
             "$S sk=16 rd=1 sw=1 st=4" "$S sk=16 rd=2 sw=1 st=4"; do
    echo "== $cfg @ $shape"
    timeout 60 "$B"/tools/kernel_probe --config "$cfg ta=0 tb=0" --shape "$shape" \
      --variant "-DAG_PROBE_SMEM_PAD=20000" --variant "-DAG_PROBE_SMEM_PAD=40000" \
      --variant "-DAG_PROBE_SMEM_PAD=44000" 2>&1 | grep -v "NVRTC\|ptxas\|^ *$"
  done
done > "$OUT/probe.log" 2>&1
grep -E "^==|as built|PAD" "$OUT/probe.log" | awk '/^==/{print; next} {printf "   %-28s %s %s %s\n", $1, $2, $3, $NF}' | sed 's/-DAG_PROBE_SMEM_PAD=/pad /'
