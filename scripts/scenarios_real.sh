#!/usr/bin/env bash
# Runs every scenario of the report's suite (apps/scenarios) on real cores (2 by default) and
# says, for each, whether the report's first hint is the one the scenario plants on the simulated
# machine. Not part of the test command: real cores are noisy and the scenarios were sized for
# their simulated core counts, so this measures how far the diagnosis carries, it does not gate.
#   scripts/scenarios_real.sh [cores] [build dir]
set -uo pipefail
cd "$(dirname "$0")/.."
cores=${1:-2}
build=${2:-build/release}
runner=$build/apps/scenarios/moirai-scenarios
moirai=$build/tools/moirai
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
agree=0
total=0
busy_runs=0
while read -r name sim_cores expected _; do
  [[ -z "$name" ]] && continue
  [[ "$expected" == "(clean)" ]] && expected=none
  if ! "$runner" --scenario "$name" --cores "$cores" --trace "$tmp/$name.mtrace" >/dev/null 2>"$tmp/err"; then
    echo "$name: run failed: $(head -1 "$tmp/err")"
    continue
  fi
  # The first hint's rule, and "busy" when the report's first line says the OS took the cores.
  read -r first busy < <("$moirai" report "$tmp/$name.mtrace" --json | python3 -c \
    'import json,sys; d=json.load(sys.stdin); h=d["hints"]; print(h[0]["rule"] if h else "none", "busy" if any(w.startswith("machine was busy") for w in d["warnings"]) else "-")')
  total=$((total + 1))
  note=""
  [[ "$busy" == busy ]] && note=" [machine was busy]" && busy_runs=$((busy_runs + 1))
  if [[ "$first" == "$expected" ]]; then
    agree=$((agree + 1))
    echo "$name: agrees ($first)$note"
  else
    echo "$name: first hint $first, on sim:$sim_cores $expected$note"
  fi
done < <("$runner" --list | awk '{print $1, $2, $4}')
echo "first hint agrees with the simulated machine's on $agree of $total scenarios ($cores real cores; $busy_runs of them on a busy machine, load average $(cut -d' ' -f1-3 /proc/loadavg))"
