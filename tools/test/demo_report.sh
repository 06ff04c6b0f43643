#!/bin/bash
# The README's demo at a quarter of its size (matmul on 2 cores, verified and recorded): the
# report's singleton hint must claim no more than the idle its end satisfied (the idle table's
# line for the singleton's call site), and on an undisturbed run it must be the first hint.
#   demo_report.sh MATMUL MOIRAI TRACE
set -euo pipefail
matmul=$1 moirai=$2 trace=$3
trap 'rm -f "$trace"' EXIT
"$matmul" --cores 2 --size 960 --check --counters none --trace "$trace" >/dev/null
json=$("$moirai" report --json "$trace")
site=apps/matmul/matmul.cpp:102
hint=$(jq -c --arg site "$site" '[.hints[], .minor_hints[]] | map(select(.rule == "long-serial" and .site == $site)) | first // empty' <<<"$json")
explain() { jq -c '{warnings, critical_path, idle_causes, hints: [.hints[] | {rule, site, lost_core_s}]}' <<<"$json"; }
[ -n "$hint" ] || { echo "demo_report: no long-serial hint at $site"; explain; exit 1; }
lost=$(jq '.lost_core_s' <<<"$hint")
idle=$(jq --arg site "$site" '[.idle_causes[] | select(.site == $site) | .idle_s] | add // 0' <<<"$json")
echo "singleton hint: lost $lost s; idle ended at $site: $idle s"
jq -e -n --argjson lost "$lost" --argjson idle "$idle" '$lost <= $idle' >/dev/null ||
  { echo "demo_report: the hint claims more than its cause's idle time"; explain; exit 1; }
first=$(jq -r '.hints[0] | "\(.rule) \(.site)"' <<<"$json")
busy=$(jq '.warnings | length' <<<"$json")
echo "first hint: $first (warnings: $busy)"
if [ "$busy" -eq 0 ] && [ "$first" != "long-serial $site" ]; then
  echo "demo_report: the first hint is not the singleton on an undisturbed run"; explain; exit 1
fi
echo "demo_report: ok"
