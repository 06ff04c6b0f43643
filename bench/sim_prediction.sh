#!/usr/bin/env bash
# Checks the simulated machine against the 16-core reference machine (issue 13): fits a model
# with `moirai-calibrate --fit` from some of the real traces in ../shared/reference-traces/xeon16,
# predicts the others with `--machine sim:N --cost-model MODEL` (the same commands, re-run by
# `moirai-calibrate --predict`), and prints a markdown table of real against predicted makespan,
# the error and each run's first hint (`moirai report`). docs/performance.md quotes it.
#
#   bench/sim_prediction.sh                   both splits below, and the sweep check
#   bench/sim_prediction.sh --split cores     fewer cores in: fit on 1-8 cores, predict 16
#   bench/sim_prediction.sh --split pieces    fit on the 64-piece runs (and the 1-core size 3840
#                                             one), predict 16 cores with 16 and 256 pieces
#   bench/sim_prediction.sh --check ...       exit 1 when a target is missed (CTest runs this)
#   bench/sim_prediction.sh --no-build ...    use the binaries already built
#   bench/sim_prediction.sh --all-traces ...  predict the traces the fit used too (marked "fit")
#
# Targets on the traces the fit did not use: median error at most 15 %, none above 30 %, the
# same first hint as the real run; the sweep check: `moirai sweep` over pieces on sim:16 with the
# model names a value whose real makespan is within 10 % of the best real one.
# Environment: MOIRAI_BUILD_DIR (default build/release), MOIRAI_REFERENCE (default
# ../shared/reference-traces/xeon16 beside the repository).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=1 check=0 all=0 splits=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --split) [[ $# -ge 2 && ( "$2" == cores || "$2" == pieces ) ]] || { echo "sim_prediction.sh: --split takes cores or pieces" >&2; exit 2; }
             splits+=("$2"); shift 2 ;;
    --check) check=1; shift ;;
    --no-build) build=0; shift ;;
    --all-traces) all=1; shift ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sim_prediction.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#splits[@]} -gt 0 ]] || splits=(cores pieces)
sweep_check=0
[[ ${#splits[@]} -eq 2 ]] && sweep_check=1

cd "$root"
bdir="${MOIRAI_BUILD_DIR:-$root/build/release}"
ref="${MOIRAI_REFERENCE:-$root/../shared/reference-traces/xeon16}"
[[ -d "$ref" ]] || { echo "sim_prediction.sh: reference traces not found at $ref (set MOIRAI_REFERENCE)" >&2; exit 2; }
if [[ $build -eq 1 ]]; then
  echo "building moirai-calibrate, matmul and moirai (release preset)..." >&2
  cmake --preset release >/dev/null
  cmake --build --preset release -j2 --target moirai-calibrate matmul moirai_cli >/dev/null
fi
calibrate="$bdir/tools/moirai-calibrate"
moirai="$bdir/tools/moirai"
matmul="$bdir/apps/matmul/matmul"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The reference traces name build/release/apps/matmul/matmul: their commands re-run from a
# directory where that path is this build's matmul.
mkdir -p "$work/run/build/release/apps/matmul"
ln -s "$matmul" "$work/run/build/release/apps/matmul/matmul"

# report_line TRACE: "makespan_s first-hint-rule" from moirai report --json.
report_line() {
  "$moirai" report "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["makespan_s"], d["hints"][0]["rule"] if d["hints"] else "none")'
}

failed=0
for split in "${splits[@]}"; do
  if [[ $split == cores ]]; then
    fit=(c1-p64 c2-p64 c4-p64 c8-p64)
    held=(c16-p16 c16-p64 c16-p256)
    title="fewer cores in: fit on the 1-, 2-, 4- and 8-core runs, predict the 16-core ones"
  else
    fit=(c1-p64 c2-p64 c4-p64 c8-p64 c16-p64 c1-s3840-p16)
    held=(c16-p16 c16-p256)
    title="other piece counts: fit on the 64-piece runs and the 1-core size-3840 run, predict 16 cores with 16 and 256 pieces"
  fi
  model="$work/$split.model"
  fit_paths=()
  for t in "${fit[@]}"; do fit_paths+=("$ref/$t.mtrace"); done
  (cd "$work/run" && "$calibrate" --fit "${fit_paths[@]}" --rerun --output "$model" 2>"$work/$split.fit.log") ||
    { cat "$work/$split.fit.log" >&2; exit 1; }
  predict=("${held[@]}")
  [[ $all -eq 1 ]] && predict=("${fit[@]}" "${held[@]}")
  predict_paths=()
  for t in "${predict[@]}"; do predict_paths+=("$ref/$t.mtrace"); done
  (cd "$work/run" && "$calibrate" --fit "${predict_paths[@]}" --rerun --predict "$model" --into "$work/$split" 2>"$work/$split.predict.log") ||
    { cat "$work/$split.predict.log" >&2; exit 1; }

  echo "### $title"
  echo
  echo "Model: \`moirai-calibrate --fit\` $(printf '%s.mtrace ' "${fit[@]}")-> $(grep '^work_rate = \|^stretch\|^core_spread' "$model" | tr '\n' ';' | sed 's/;$//; s/;/, /g')"
  echo
  echo "| trace | used by the fit | real makespan s | predicted s | error | first hint, real | first hint, predicted |"
  echo "| --- | --- | ---: | ---: | ---: | --- | --- |"
  errors=()
  hints_differ=0
  for t in "${predict[@]}"; do
    read -r real_s real_hint < <(report_line "$ref/$t.mtrace")
    read -r pred_s pred_hint < <(report_line "$work/$split/$t.mtrace")
    error=$(python3 -c "print('%+.1f' % (($pred_s - $real_s) / $real_s * 100))")
    used=no
    [[ " ${fit[*]} " == *" $t "* ]] && used=fit
    if [[ $used == no ]]; then
      errors+=("$error")
      [[ "$real_hint" == "$pred_hint" ]] || hints_differ=$((hints_differ + 1))
    fi
    printf '| %s | %s | %.3f | %.3f | %s %% | %s | %s |\n' "$t" "$used" "$real_s" "$pred_s" "$error" "$real_hint" "$pred_hint"
  done
  verdict=$(python3 - "${errors[@]}" <<'EOF'
import statistics, sys
e = [abs(float(x)) for x in sys.argv[1:]]
med, worst = statistics.median(e), max(e)
ok = med <= 15 and worst <= 30
print(("met" if ok else "missed"), "%.1f" % med, "%.1f" % worst)
EOF
)
  read -r ok med worst <<<"$verdict"
  echo
  hints_ok=met
  [[ $hints_differ -eq 0 ]] || hints_ok=missed
  echo "Traces the fit did not use: median error $med %, largest $worst % (targets 15 % and 30 %): **$ok**;" \
       "first hint the same on $(( ${#held[@]} - hints_differ )) of ${#held[@]}: **$hints_ok**."
  echo
  [[ $ok == met && $hints_ok == met ]] || failed=1
done

if [[ $sweep_check -eq 1 ]]; then
  model="$work/pieces.model"
  "$moirai" sweep --param pieces=16,64,256 --out "$work/sweep" -- \
    "$matmul" --size 1920 --machine sim:16 --cost-model "$model" --pieces '{pieces}' >"$work/sweep.out" 2>"$work/sweep.err" ||
    { cat "$work/sweep.err" >&2; exit 1; }
  best=$(sed -n "s/^best: pieces=\([0-9]*\).*/\1/p" "$work/sweep.out" | head -n 1)
  [[ -n "$best" ]] || { echo "sim_prediction.sh: the sweep named no best value:" >&2; cat "$work/sweep.out" >&2; exit 1; }
  real_best=""; real_best_s=""; chosen_s=""
  for p in 16 64 256; do
    read -r s _ < <(report_line "$ref/c16-p$p.mtrace")
    if [[ -z "$real_best_s" ]] || python3 -c "import sys; sys.exit(0 if $s < $real_best_s else 1)"; then real_best=$p; real_best_s=$s; fi
    [[ $p == "$best" ]] && chosen_s=$s
  done
  within=$(python3 -c "print('met' if $chosen_s <= 1.10 * $real_best_s else 'missed')")
  echo "### Noise-free tuning: \`moirai sweep --param pieces=16,64,256\` on sim:16 with the pieces-split model"
  echo
  sed -n '/^pieces \|^[0-9]/p' "$work/sweep.out" | sed 's/^/    /'
  echo
  echo "The sweep names $best pieces; its real makespan is $(printf '%.3f' "$chosen_s") s against the best real one," \
       "$real_best pieces at $(printf '%.3f' "$real_best_s") s (target: within 10 %): **$within**."
  [[ $within == met ]] || failed=1
fi

if [[ $check -eq 1 && $failed -ne 0 ]]; then
  echo "sim_prediction.sh: a target was missed (above)" >&2
  exit 1
fi
