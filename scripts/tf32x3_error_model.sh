#!/usr/bin/env bash
# Builds and runs the CPU model of tf32x3wg's rounding (tf32x3_error_model.cpp):
# relative and element-wise error (over the FFMA bound) of a sequential FP32
# FMA dot and of the kernel's accumulation schemes (as built; AG_COMPENSATE=1
# "order"; AG_COMPENSATE=2 "carry") on the verifier's inputs.
#   usage: scripts/tf32x3_error_model.sh K SPREAD [SK [ROWS [COLS [W]]]]
#   e.g.   scripts/tf32x3_error_model.sh 4096 30 2 64
set -euo pipefail
if [[ $# -lt 2 || $1 == -h || $1 == --help ]]; then sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
here=$(cd "$(dirname "$0")" && pwd)
bin=${TMPDIR:-/tmp}/tf32x3_error_model
if [[ ! -x $bin || $here/tf32x3_error_model.cpp -nt $bin ]]; then
  g++ -O2 -std=c++17 -o "$bin" "$here/tf32x3_error_model.cpp"
fi
exec "$bin" "$@"
