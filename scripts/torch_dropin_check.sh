#!/usr/bin/env bash
# torch_dropin_check.sh — an unmodified PyTorch FP32 program on autogemm
# through the cuBLAS drop-in: plain cuBLAS, then autogemm_run recording its
# shapes, gemm_tune --from-record (strict, then fp32_accurate), then strict and
# fp32_accurate runs on the tuned cache; a table of speed and error of each op
# against plain cuBLAS, the training losses compared, the drop-in's counters.
# REPEAT=N (1) runs plain cuBLAS and the tuned strict program N more times,
# alternated, and takes each op's fastest run of each side: processes apart
# in time see the GPU's clocks drift by several percent.
#   OUT=/tmp/o [REPEAT=2] bash scripts/torch_dropin_check.sh [build-dir] [training-steps]
# Needs a GPU, PyTorch with CUDA, and a build (Release) with the tools.
set -u -o pipefail
B=${1:-build}
STEPS=${2:-300}
OUT=${OUT:-$PWD/dropin-out}
mkdir -p "$OUT"
DB="$OUT/dropin.db"
W="$(dirname "$0")/torch_fp32_workload.py"
export AUTOGEMM_CACHE="$DB" PYTHONUNBUFFERED=1
step() { echo "== $1 ($(date +%T))"; }

step "plain cuBLAS"
python3 "$W" --json "$OUT/plain.json" --steps "$STEPS" || exit 1
step "autogemm_run --record (untuned)"
"$B"/tools/autogemm_run --record -- python3 "$W" --json "$OUT/untuned.json" --steps "$STEPS" 2> "$OUT/untuned.log"
grep "drop-in" "$OUT/untuned.log"
step "gemm_tune --from-record"
"$B"/tools/gemm_tune --device 0 --db "$DB" --from-record 2>&1 | tee "$OUT/tune.log" | tail -n 45
step "gemm_tune --from-record --math-mode fp32_accurate"
"$B"/tools/gemm_tune --device 0 --db "$DB" --from-record --math-mode fp32_accurate 2>&1 | tee "$OUT/tune_acc.log" | tail -n 5
step "autogemm_run (tuned, strict)"
"$B"/tools/autogemm_run -- python3 "$W" --json "$OUT/strict.json" --steps "$STEPS" 2> "$OUT/strict.log"
grep "drop-in" "$OUT/strict.log"
step "autogemm_run --math-mode fp32_accurate (tuned)"
"$B"/tools/autogemm_run --math-mode fp32_accurate -- python3 "$W" --json "$OUT/accurate.json" --steps "$STEPS" 2> "$OUT/accurate.log"
grep "drop-in" "$OUT/accurate.log"
for r in $(seq 1 "${REPEAT:-0}"); do
  step "again, round $r: plain cuBLAS, then tuned strict"
  python3 "$W" --json "$OUT/plain.r$r.json" --steps "$STEPS"
  "$B"/tools/autogemm_run --quiet -- python3 "$W" --json "$OUT/strict.r$r.json" --steps "$STEPS"
done

python3 - "$OUT" <<'PY'
import json, math, os, sys
out = sys.argv[1]
import glob
def load(kind):
    """A kind's run, each op at its fastest over the repeated runs."""
    files = sorted(glob.glob(os.path.join(out, kind + ".json")) + glob.glob(os.path.join(out, kind + ".r*.json")))
    if not files:
        return None
    first = json.load(open(files[0]))
    for f in files[1:]:
        again = {r["name"]: r for r in json.load(open(f))["ops"]}
        for r in first["ops"]:
            if r["name"] in again:
                r["ms"] = min(r["ms"], again[r["name"]]["ms"])
    first["processes"] = len(files)
    return first
runs = {k: v for k in ("plain", "untuned", "strict", "accurate") if (v := load(k))}
print("processes per kind: " + ", ".join(f"{k} {v['processes']}" for k, v in runs.items()))
plain = {r["name"]: r for r in runs["plain"]["ops"]}
names = [r["name"] for r in runs["plain"]["ops"]]
cols = [k for k in ("untuned", "strict", "accurate") if k in runs]
print(f"\n{'op':40s} {'cuBLAS ms':>9s} {'err':>8s}" + "".join(f" {c:>9s} {'err':>8s}" for c in cols))
ratios = {c: [] for c in cols}
big = {c: [] for c in cols}
worse = {c: 0 for c in cols}
for n in names:
    p = plain[n]
    line = f"{n:40s} {p['ms']:9.3f} {p['err']:8.1e}"
    for c in cols:
        r = {x["name"]: x for x in runs[c]["ops"]}.get(n)
        if not r:
            line += f" {'-':>9s} {'-':>8s}"
            continue
        ratio = p["ms"] / r["ms"]
        ratios[c].append(ratio)
        if min(r["m"], r["n"], r["k"]) >= 2048:
            big[c].append(ratio)
        if r["err"] > p["err"] * 1.0 + 1e-9:
            worse[c] += 1
        line += f" {ratio:8.3f}x {r['err']:8.1e}"
    print(line)
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
for c in cols:
    print(f"{c:9s}: geomean {gm(ratios[c]):.3f}x cuBLAS over {len(ratios[c])} ops; "
          f"GEMM-bound (all dims >= 2048) {gm(big[c]):.3f}x over {len(big[c])}; error above cuBLAS's on {worse[c]} ops")
pl = runs["plain"]["train"]["losses"]
for c in cols:
    l = runs[c]["train"]["losses"]
    d = max(abs(a - b) / max(abs(a), 1e-30) for a, b in zip(pl, l))
    print(f"{c:9s}: training {len(l)} steps, loss {l[0]:.6g} -> {l[-1]:.6g} (cuBLAS {pl[0]:.6g} -> {pl[-1]:.6g}), "
          f"largest relative loss difference {d:.2e}; {runs[c]['train']['ms_per_step']:.3f} ms/step "
          f"(cuBLAS {runs['plain']['train']['ms_per_step']:.3f})")
    print(f"{c:9s}: drop-in counters {json.dumps(runs[c].get('dropin'))}")
PY
