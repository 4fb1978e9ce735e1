#!/usr/bin/env bash
# One GPU call: gemm_tune under mpirun with 2 ranks sharing GPU 0, each into
# its own cache file, merged into one with autogemm_cache; then a check that
# the batch arguments added to the tiled and warptiled kernels cost nothing on
# plain shapes (tuned and benchmarked on a fresh cache, to compare with the
# eighth session's figures in NOTES 46).
# Files under $OUT: mpi.txt regression-tune.json regression-bench.json regression.txt
#   OUT=/tmp/o bash scripts/experiments/mpi_and_regression.sh gbuild
# MPI_SHAPES replaces the shapes, MPI_TIMEOUT (s) the limit of the 2-rank run;
# SKIP_REGRESSION=1 leaves out the second part, SKIP_MPI=1 the first; ONE_RANK=1 first tunes the
# same shapes with one process, for the timing against two.
B=${1:-gbuild}
OUT=${OUT:-$PWD/gpu-out}
export LD_LIBRARY_PATH=$PWD/$B/lib
T=$B/tools
W=$(mktemp -d)
quiet() { grep -v "^\[ NVRTC\|ptxas\|elapsed"; }
say() { echo "\$ $*"; "$@" 2>&1 | quiet; echo; }
SHAPES=${MPI_SHAPES:-"--shape 1024x1024x1024 --shape 512x512x512 --shape 64x64x64@4096 --shape 2048x2048x2048 --shape 16x4096x4096@8 --shape 1000x1000x1000"}
[ -z "$SKIP_MPI" ] && {
  say mpirun --version
  say "$T/gemm_tune" --device 0 --db "$W/t.{rank}.db" $SHAPES --plan
  if [ -n "$ONE_RANK" ]; then
    start=$SECONDS
    "$T/gemm_tune" --device 0 --db "$W/one.db" $SHAPES 2>&1 | quiet | tail -n 8
    echo "1 rank: $((SECONDS - start)) s of wall time"
  fi
  start=$SECONDS
  say timeout "${MPI_TIMEOUT:-200}" mpirun --allow-run-as-root --oversubscribe -np 2 "$T/gemm_tune" --device 0 --db "$W/t.{rank}.db" $SHAPES
  echo "2 ranks: $((SECONDS - start)) s of wall time"
  say ls "$W"
  say "$T/autogemm_cache" merge --db "$W/merged.db" --from "$W/t.0.db"
  say "$T/autogemm_cache" merge --db "$W/merged.db" --from "$W/t.1.db"
  say "$T/autogemm_cache" list --db "$W/merged.db"
  say "$T/autogemm_cache" show --db "$W/merged.db" --shape 512x512x512
  say timeout 100 "$T/gemm_bench" --db "$W/merged.db" $SHAPES --overhead-calls 0
} > "$OUT/mpi.txt" 2>&1
[ -n "$SKIP_REGRESSION" ] && { grep -E "ranks?:|merged|geometric" "$OUT/mpi.txt"; rm -rf "$W"; exit 0; }
R="--shape 4096x4096x4096 --shape 4096x4096x4096:NT --shape 1024x1024x1024 --shape 512x512x512 --shape 127x257x509 --shape 16x4096x4096"
{
  timeout 200 "$T/gemm_tune" --device 0 --db "$W/r.db" $R --json "$OUT/regression-tune.json" 2>&1 | quiet | tail -n 9
  timeout 120 "$T/gemm_bench" --db "$W/r.db" $R --json "$OUT/regression-bench.json" 2>&1 | quiet | tail -n 12
} > "$OUT/regression.txt" 2>&1
[ -z "$SKIP_MPI" ] && grep -E "ranks:|merged|winner|geometric" "$OUT/mpi.txt"
cat "$OUT/regression.txt"
rm -rf "$W"
