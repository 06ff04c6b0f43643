#!/usr/bin/env bash
# Does the compiled-in cost model (no --cost-model) predict this machine? Runs matmul and every
# scenario of the report's suite (apps/scenarios: units spin for the time they declare) on 2 real
# cores and on sim:2 with declared work, each real run --repeat times (the median makespan
# counts: this VM's vCPUs change speed), and prints a markdown table of the makespans (from
# `moirai report`; with the real runs' spread) and the simulation's error. Target (issue 13, point 6): within 15 %.
# docs/performance.md quotes its output.
#
#   bench/sim_default_check.sh [--repeat K] [--cost-model FILE] [--only NAME...]
#                                         default: 3 real runs each, the compiled-in model
#
# Environment: MOIRAI_BENCH_BUILD_DIR (default build/release; matmul, moirai-scenarios and moirai
# must be built). Run it on an otherwise idle machine: the real runs need both cores to themselves.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MOIRAI_BENCH_BUILD_DIR:-$root/build/release}"
matmul="$build/apps/matmul/matmul"
scenarios="$build/apps/scenarios/moirai-scenarios"
moirai="$build/tools/moirai"
repeat=3
only=()
model_flags=()
model_text="the compiled-in cost model"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "sim_default_check.sh: --repeat takes a positive count" >&2; exit 2; }
              repeat=$2; shift 2 ;;
    --cost-model) [[ $# -ge 2 ]] || { echo "sim_default_check.sh: --cost-model takes a file" >&2; exit 2; }
                  model_flags=(--cost-model "$2"); model_text="the cost model $2"; shift 2 ;;
    --only) shift; while [[ $# -gt 0 && "$1" != --* ]]; do only+=("$1"); shift; done ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sim_default_check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in "$matmul" "$scenarios" "$moirai"; do
  [[ -x "$tool" ]] || { echo "sim_default_check.sh: $tool is not built" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

makespan_ms() {
  "$moirai" report "$1" --json | python3 -c 'import json,sys; print("%.3f" % (json.load(sys.stdin)["makespan_s"] * 1e3))'
}

# The cases: a name and the command after the program (real: --cores 2; sim: --machine sim:2).
cases=("matmul-p8|$matmul --pieces 8" "matmul-p32|$matmul --pieces 32")
while read -r name _; do
  [[ -n "$name" ]] && cases+=("$name|$scenarios --scenario $name")
done < <("$scenarios" --list)

echo "2 real cores (median of $repeat) against sim:2 with $model_text; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | real 2 cores ms | real runs, fastest-slowest ms | sim:2 ms | error |"
echo "| --- | ---: | ---: | ---: | ---: |"
errors=()
for entry in "${cases[@]}"; do
  name="${entry%%|*}"
  command="${entry#*|}"
  if [[ ${#only[@]} -gt 0 && " ${only[*]} " != *" $name "* ]]; then continue; fi
  reals=()
  for ((k = 0; k < repeat; ++k)); do
    # shellcheck disable=SC2086
    $command --cores 2 --counters none --trace "$work/real.mtrace" >/dev/null
    reals+=("$(makespan_ms "$work/real.mtrace")")
  done
  real=$(printf '%s\n' "${reals[@]}" | sort -g | sed -n "$(( (repeat + 1) / 2 ))p")
  range="$(printf '%s\n' "${reals[@]}" | sort -g | sed -n 1p)-$(printf '%s\n' "${reals[@]}" | sort -g | tail -n 1)"
  # shellcheck disable=SC2086
  $command --machine sim:2 "${model_flags[@]}" --trace "$work/sim.mtrace" >/dev/null
  sim="$(makespan_ms "$work/sim.mtrace")"
  error=$(python3 -c "print('%+.1f' % (($sim - $real) / $real * 100))")
  errors+=("$error")
  printf '| %s | %s | %s | %s | %s %% |\n' "$name" "$real" "$range" "$sim" "$error"
done
python3 - "${errors[@]}" <<'EOF'
import statistics, sys
e = [abs(float(x)) for x in sys.argv[1:]]
within = sum(1 for x in e if x <= 15)
print("\n%d of %d runs within 15 %%; median error %.1f %%, largest %.1f %%." % (within, len(e), statistics.median(e), max(e)))
EOF
