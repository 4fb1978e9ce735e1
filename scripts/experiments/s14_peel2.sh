#!/usr/bin/env bash
# Session 14, fourth and fifth GPU calls: the peel strips with unrolled k
# loops, then the strip kernels by width (peel1..8). GPU test of the peeled kernels, then kernel_probe of tiles with
# (pe=1) and without peeling on sides 1..8 past a multiple of the tile.
#   OUT=/tmp/o bash scripts/experiments/s14_peel2.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
( timeout 100 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='GpuKernels.WarptiledPeeled*'
  echo "test_gpu_kernels rc=$?" ) > "$OUT/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/gpu-tests.log"
probe() {  # config-without-pe shape
  for pe in 0 1; do
    printf "%-92s %-20s " "$1 pe=$pe" "$2"
    timeout 60 "$B"/tools/kernel_probe --config "${1% ta=*} pe=$pe ta=${1#* ta=}" --shape "$2" 2>&1 |
      grep -E "as built|failed|error|invalid" | head -1 | awk '{print $3, $4, $NF}'
  done
}
{
W=warptiled
probe "$W bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "$W bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=4 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "$W bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "$W bm=256 bn=128 bk=16 wm=64 wn=64 ln=8 st=3 vec=1 sw=8 ta=0 tb=0" 4095x4097x1023
probe "$W bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 4097x4097x4097
probe "$W bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 ta=0 tb=0" 1025x4097x4096
probe "$W bm=256 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=4 sw=1 ta=1 tb=1" 1025x1023x2049:TT
probe "$W bm=32 bn=256 bk=8 wm=32 wn=64 ln=8 st=3 vec=1 sk=2 sw=8 ta=1 tb=1" 1025x1023x2049:TT
probe "$W bm=128 bn=128 bk=16 wm=32 wn=64 ln=8 st=3 vec=1 sk=8 sw=1 ta=1 tb=1" 1025x1023x2049:TT
probe "$W bm=128 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=8 sw=1 ta=1 tb=1" 1025x1023x2049:TT
probe "$W bm=256 bn=64 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sk=2 sw=1 ta=1 tb=1" 1025x1023x2049:TT
probe "$W bm=32 bn=32 bk=8 wm=16 wn=32 ln=8 st=3 vec=1 sk=6 sw=1 ta=0 tb=0" 127x257x509
probe "$W bm=128 bn=128 bk=16 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0" 5000x5000x5000
} | tee "$OUT/probe.log"
