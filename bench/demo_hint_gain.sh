#!/usr/bin/env bash
# Checks the demo report's creator-starvation hint on real cores against the gain of removing
# its cause: runs matmul on 2 real cores in pairs, round-robin placement (the demo's; the divider
# waits behind its own core's pieces before it creates the next) and others-first (the paper's
# cure, 3.4.1: the other cores' pieces made first), alternating so that both see the same spell
# of the host. For each pair it prints the round-robin run's first hint and the loss the report
# names for creator starvation beside the gain, (makespan round-robin - makespan others-first)
# x cores; then the medians. Timings on a shared VM are noisy: read the medians.
#
#   bench/demo_hint_gain.sh [--pairs N] [--no-build] [-- MATMUL ARGS...]
#     --pairs N     pairs of runs (default 10)
#     --no-build    use the binaries already built
#     MATMUL ARGS   passed to both runs (default: --size 960, the demo test's size)
# Environment: MOIRAI_BUILD_DIR (default build/release).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs=10 build=1 args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pairs) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "demo_hint_gain.sh: --pairs takes a positive whole number" >&2; exit 2; }
             pairs=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; args=("$@"); break ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo_hint_gain.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#args[@]} -gt 0 ]] || args=(--size 960)
command -v jq >/dev/null || { echo "demo_hint_gain.sh: needs jq (apt-get install jq)" >&2; exit 2; }

cd "$root"
dir="${MOIRAI_BUILD_DIR:-build/release}"
if [[ $build -eq 1 ]]; then
  cmake --build "$dir" --target matmul moirai -j"$(nproc)" >/dev/null
fi
matmul="$dir/apps/matmul/matmul" moirai="$dir/tools/moirai"
for tool in "$matmul" "$moirai"; do
  [[ -x "$tool" ]] || { echo "demo_hint_gain.sh: $tool is missing; build first (or drop --no-build)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| pair | first hint (round-robin) | creator-starvation loss (ms) | makespan round-robin (ms) | others-first (ms) | gain x 2 cores (ms) |"
echo "| ---: | --- | ---: | ---: | ---: | ---: |"
losses=() gains=()
for ((k = 1; k <= pairs; k++)); do
  "$matmul" --cores 2 --counters none --placement round-robin "${args[@]}" --trace "$work/rr.mtrace" >/dev/null
  "$matmul" --cores 2 --counters none --placement others-first "${args[@]}" --trace "$work/of.mtrace" >/dev/null
  json=$("$moirai" report --json "$work/rr.mtrace")
  first=$(jq -r '.hints[0].rule // "none"' <<<"$json")
  loss=$(jq '[.hints[], .minor_hints[] | select(.rule == "creator-starvation") | .lost_core_s] | add // 0 | . * 1000' <<<"$json")
  rr=$(jq '.makespan_s * 1000' <<<"$json")
  of=$(jq '.makespan_s * 1000' <<<"$("$moirai" report --json "$work/of.mtrace")")
  gain=$(awk -v a="$rr" -v b="$of" 'BEGIN {print (a - b) * 2}')
  losses+=("$loss") gains+=("$gain")
  printf '| %d | %s | %.1f | %.1f | %.1f | %.1f |\n' "$k" "$first" "$loss" "$rr" "$of" "$gain"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
printf 'median creator-starvation loss %.1f ms, median gain of others-first %.1f ms (%d pairs)\n' "$(median "${losses[@]}")" "$(median "${gains[@]}")" "$pairs"
