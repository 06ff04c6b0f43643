#!/usr/bin/env bash
# Replay against the real runs it replays: each of the 16-core reference machine's traces
# (../shared/reference-traces/xeon16) replayed with `moirai replay` on a simulated machine of
# its own core count with the cost model fitted there (issue 28, acceptance 1: within 5 %), and
# the runs of 1 to 8 cores replayed on sim:16 against the real 16-core run of the same pieces
# (acceptance 2; the reference machine is noisy to about 15 %). Prints two Markdown tables.
# Usage: bench/replay_accuracy.sh [--no-build] [--help]. Builds `moirai` (release preset) first.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
bench_start 7 "$@"
[[ $build == 1 ]] && bench_build release moirai_cli
moirai=$build_dir/tools/moirai
bench_need "$moirai"
ref=$root/../shared/reference-traces/xeon16
[[ -d $ref ]] || bench_fail "no reference traces at $ref"
model=$ref/cost-model-16core.txt

field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p"; }
echo "| trace | recorded ms | replayed ms | error |"
echo "| --- | ---: | ---: | ---: |"
for trace in c1-p64 c2-p64 c4-p64 c8-p64 c16-p16 c16-p64 c16-p256 c1-s3840-p16; do
  cores=${trace#c}
  cores=${cores%%-*}
  out=$("$moirai" replay "$ref/$trace.mtrace" --machine "sim:$cores" --cost-model "$model" --json)
  awk -v t="$trace" -v r="$(field recorded_makespan_s <<<"$out")" -v s="$(field makespan_s <<<"$out")" \
    'BEGIN { printf "| %s | %.1f | %.1f | %+.2f %% |\n", t, r * 1e3, s * 1e3, (s / r - 1) * 100 }'
done
echo
real=$("$moirai" replay "$ref/c16-p64.mtrace" --machine sim:16 --cost-model "$model" --json | field recorded_makespan_s)
echo "| replayed on sim:16 | replayed ms | real c16-p64 ms | error |"
echo "| --- | ---: | ---: | ---: |"
for trace in c1-p64 c2-p64 c4-p64 c8-p64; do
  out=$("$moirai" replay "$ref/$trace.mtrace" --machine sim:16 --cost-model "$model" --json)
  awk -v t="$trace" -v r="$real" -v s="$(field makespan_s <<<"$out")" \
    'BEGIN { printf "| %s | %.1f | %.1f | %+.1f %% |\n", t, s * 1e3, r * 1e3, (s / r - 1) * 100 }'
done
