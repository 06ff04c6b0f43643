#!/usr/bin/env bash
# Replay against the real runs it replays, on the 16-core reference machine's traces
# (../shared/reference-traces/xeon16):
#  - each trace replayed with `moirai replay` on a simulated machine of its own core count with
#    the cost model fitted there (cost-model-16core.txt): issue 28's acceptance 1, within 5 %;
#  - the runs of 1 to 8 cores replayed on sim:16 with a model `moirai-calibrate --fit` fits from
#    those same runs (its work stretch says how a unit slows with the cores busy beside it),
#    against the real 16-core run of the same 64 pieces: acceptance 2, median error at most 15 %,
#    none above 25 % (the reference machine is noisy to about 15 %).
# Prints two Markdown tables. With --check, exits 1 when a bound is missed.
# Usage: bench/replay_accuracy.sh [--no-build] [--check] [--help]. Builds moirai, moirai-calibrate
# and matmul (release preset) first; MOIRAI_BENCH_BUILD_DIR names another build.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
build=1
check=0
for arg in "$@"; do
  case $arg in
    --no-build) build=0 ;;
    --check) check=1 ;;
    --help | -h) bench_help 12 ;;
    *) bench_fail "unknown argument '$arg' (try --help)" ;;
  esac
done
[[ $build == 1 ]] && bench_build release moirai_cli moirai-calibrate matmul
[[ -d $build_dir ]] || bench_fail "no build at $build_dir"
build_dir=$(cd "$build_dir" && pwd)
moirai=$build_dir/tools/moirai
calibrate=$build_dir/tools/moirai-calibrate
bench_need "$moirai" "$calibrate" "$build_dir/apps/matmul/matmul"
ref=$root/../shared/reference-traces/xeon16
[[ -d $ref ]] || bench_fail "no reference traces at $ref"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
missed=0

field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p"; }
echo "| trace | recorded ms | replayed ms | error |"
echo "| --- | ---: | ---: | ---: |"
for trace in c1-p64 c2-p64 c4-p64 c8-p64 c16-p16 c16-p64 c16-p256 c1-s3840-p16; do
  cores=${trace#c}
  cores=${cores%%-*}
  out=$("$moirai" replay "$ref/$trace.mtrace" --machine "sim:$cores" --cost-model "$ref/cost-model-16core.txt" --json)
  row=$(awk -v t="$trace" -v r="$(field recorded_makespan_s <<<"$out")" -v s="$(field makespan_s <<<"$out")" \
    'BEGIN { e = (s / r - 1) * 100; printf "| %s | %.1f | %.1f | %+.2f %% |%s\n", t, r * 1e3, s * 1e3, e, (e > 5 || e < -5) ? " missed" : "" }')
  [[ $row == *missed ]] && missed=1
  echo "${row% missed}"
done
echo

# The fit re-runs each trace's command (build/release/apps/matmul/matmul ...) on the simulated
# machine to learn its declared work: from a scratch folder where that path is this build's matmul.
mkdir -p "$work/run/build/release/apps/matmul"
ln -s "$build_dir/apps/matmul/matmul" "$work/run/build/release/apps/matmul/matmul"
fit=(c1-p64 c2-p64 c4-p64 c8-p64)
fit_paths=()
for trace in "${fit[@]}"; do fit_paths+=("$ref/$trace.mtrace"); done
(cd "$work/run" && "$calibrate" --fit "${fit_paths[@]}" --rerun --output "$work/fewer.model" >/dev/null 2>"$work/fit.log") ||
  bench_fail "the fit failed: $(tail -3 "$work/fit.log")"
real=$("$moirai" replay "$ref/c16-p64.mtrace" --machine sim:16 --json | field recorded_makespan_s)
echo "| replayed on sim:16 | replayed ms | real c16-p64 ms | error |"
echo "| --- | ---: | ---: | ---: |"
errors=()
for trace in "${fit[@]}"; do
  out=$("$moirai" replay "$ref/$trace.mtrace" --machine sim:16 --cost-model "$work/fewer.model" --json)
  s=$(field makespan_s <<<"$out")
  awk -v t="$trace" -v r="$real" -v s="$s" 'BEGIN { printf "| %s | %.1f | %.1f | %+.1f %% |\n", t, s * 1e3, r * 1e3, (s / r - 1) * 100 }'
  errors+=("$(awk -v r="$real" -v s="$s" 'BEGIN { e = (s / r - 1) * 100; print (e < 0 ? -e : e) }')")
done
summary=$(printf '%s\n' "${errors[@]}" | sort -g | awk '{ e[NR] = $1 } END { m = NR % 2 ? e[(NR + 1) / 2] : (e[NR / 2] + e[NR / 2 + 1]) / 2; printf "%.1f %.1f", m, e[NR] }')
read -r median largest <<<"$summary"
echo
echo "median error $median %, largest $largest % (bounds: 15 %, 25 %)"
awk -v m="$median" -v l="$largest" 'BEGIN { exit !(m > 15 || l > 25) }' && missed=1
if [[ $check == 1 && $missed == 1 ]]; then
  echo "$script: a bound is missed"
  exit 1
fi
[[ $check == 1 ]] && echo "$script: every bound held"
exit 0
