#!/usr/bin/env bash
# Session 15, second GPU call: which moves of an edge tile pay. kernel_probe
# of each tile as built (moves by any amount where no 16-byte access needs
# alignment) against the same kernel with moves only by multiples of 4
# along n, along m, never (the template before the change), and as built
# again (drift), on sides just past a multiple of the tile in every layout.
#   OUT=/tmp/o bash scripts/experiments/s15_shift2.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
NEVER="-DAG_SHIFT_M_STEP=1048576 -DAG_SHIFT_N_STEP=1048576"
probe() {  # config shape...
  local c=$1; shift
  for s in "$@"; do
    timeout 90 "$B"/tools/kernel_probe --config "$c" --shape "$s" --variant "-DAG_SHIFT_N_STEP=4" \
      --variant "-DAG_SHIFT_M_STEP=4" --variant "$NEVER" --variant "-DAG_PROBE_REPEAT=1" 2>&1 | grep -v "^\[\|ptxas"
  done
}
{
probe "warptiled bm=256 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023 4096x4097x1024 4095x4096x1024
probe "warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=4 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "warptiled bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=4 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "warptiled bm=64 bn=128 bk=16 wm=32 wn=64 ln=8 st=3 vec=1 sw=8 ta=0 tb=1" 3001x2999x1537:NT
probe "warptiled bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=4 sw=1 pe=1 ta=1 tb=1" 1025x1023x2049:TT
probe "warptiled bm=256 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 vec=1 sw=8 ta=1 tb=0" 4097x4096x1024:TN
probe "warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0" 5000x5000x5000
probe "warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sk=4 sw=8 ta=0 tb=0" 1000x1000x1000
} | tee "$OUT/probe.log"
