#!/usr/bin/env bash
# How faithful is the simulated machine? Runs matmul at its default size on 2 real cores and on
# sim:2 with measured work, for several piece counts, records both, and prints each makespan
# (from `moirai report`) and the simulation's error. docs/performance.md quotes its output.
#
#   bench/sim_faithfulness.sh [PIECES...]     default: 2 8 32 128
#
# Environment: MOIRAI_BENCH_BUILD_DIR (default build/release; matmul and moirai must be built).
# Run it on an otherwise idle machine: the real run needs both cores to itself.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MOIRAI_BENCH_BUILD_DIR:-$root/build/release}"
matmul="$build/apps/matmul/matmul"
moirai="$build/tools/moirai"
for tool in "$matmul" "$moirai"; do
  [[ -x "$tool" ]] || { echo "sim_faithfulness: $tool is not built" >&2; exit 2; }
done
pieces_list=("$@")
[[ ${#pieces_list[@]} -gt 0 ]] || pieces_list=(2 8 32 128)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

makespan_ms() {  # the "makespan: X ms" line of moirai report
  "$moirai" report "$1" | sed -n 's/^makespan: *\([0-9.]*\) ms.*/\1/p'
}

echo "matmul, default size, 2 cores; makespan from moirai report; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| pieces | real 2 cores (ms) | sim:2 measured (ms) | sim / real |\n|---:|---:|---:|---:|\n'
for pieces in "${pieces_list[@]}"; do
  "$matmul" --cores 2 --pieces "$pieces" --counters none --trace "$work/real.mtrace" > /dev/null
  "$matmul" --machine sim:2 --sim-work measured --pieces "$pieces" --trace "$work/sim.mtrace" > /dev/null
  real="$(makespan_ms "$work/real.mtrace")"
  sim="$(makespan_ms "$work/sim.mtrace")"
  printf '| %s | %s | %s | %s |\n' "$pieces" "$real" "$sim" "$(awk -v s="$sim" -v r="$real" 'BEGIN { printf "%.3f", s / r }')"
done
