#!/bin/bash
# The README's demo at a quarter of its size (matmul on 2 cores, verified and recorded): the
# report's singleton hint must claim no more than the idle its end satisfied (the idle table's
# line for the singleton's call site), or be absent only while that idle is under 3 % of the core
# time, and on an undisturbed run the first hint must claim no more than the idle it explains: the
# idle its call site ended, or, for the idle tail (a slow core's last piece), a creator starved
# behind a piece (paper 3.4.1) and a unit that ran alone, the run's idle. On this VM, whose two
# vCPUs run at different speeds from time to time, the first hint varies from run to run; when
# they did, or the OS took a share of them, the report warns first and the first hint is not checked.
#   demo_report.sh MATMUL MOIRAI TRACE
set -euo pipefail
matmul=$1 moirai=$2 trace=$3
trap 'rm -f "$trace"' EXIT
"$matmul" --cores 2 --size 960 --check --counters none --trace "$trace" >/dev/null
json=$("$moirai" report --json "$trace")
site=apps/matmul/matmul.cpp:102
hint=$(jq -c --arg site "$site" '[.hints[], .minor_hints[]] | map(select(.rule == "long-serial" and .site == $site)) | first // empty' <<<"$json")
explain() { jq -c '{warnings, critical_path, idle_causes, hints: [.hints[] | {rule, site, lost_core_s}]}' <<<"$json"; }
idle=$(jq --arg site "$site" '[.idle_causes[] | select(.site == $site) | .idle_s] | add // 0' <<<"$json")
if [ -z "$hint" ]; then
  # On a fast spell of this VM the copy-transpose takes 10 ms of a 200 ms run: then the report is
  # right to name no hint for it only while the idle it caused is under its 3 % threshold.
  share=$(jq -n --argjson idle "$idle" --argjson json "$json" '$idle / ($json.makespan_s * $json.cores)')
  jq -e -n --argjson share "$share" '$share < 0.03' >/dev/null ||
    { echo "demo_report: no long-serial hint at $site, though its idle is $share of the core time"; explain; exit 1; }
  echo "singleton: no hint, its idle ($idle s) is $share of the core time, under the report's 3 %"
  lost=0
else
  lost=$(jq '.lost_core_s' <<<"$hint")
fi
echo "singleton hint: lost $lost s; idle ended at $site: $idle s"
jq -e -n --argjson lost "$lost" --argjson idle "$idle" '$lost <= $idle' >/dev/null ||
  { echo "demo_report: the hint claims more than its cause's idle time"; explain; exit 1; }
if [ "$(jq '.hints | length' <<<"$json")" -eq 0 ]; then
  echo "first hint: none on this run ($(jq -r '.notes[0] // "no note"' <<<"$json"))"
  echo "demo_report: ok"
  exit 0
fi
first=$(jq -r '.hints[0] | "\(.rule) \(.site)"' <<<"$json")
first_site=$(jq -r '.hints[0].site' <<<"$json")
first_lost=$(jq '.hints[0].lost_core_s' <<<"$json")
first_idle=$(jq --arg site "$first_site" '[.idle_causes[] | select(.site == $site) | .idle_s] | add // 0' <<<"$json")
busy=$(jq '.warnings | length' <<<"$json")
echo "first hint: $first, lost $first_lost s; the idle table at its site: $first_idle s (warnings: $busy)"
if [ "$busy" -eq 0 ]; then
  case "$first" in
    idle-tail* | creator-starvation* | long-serial*) # not the singleton at $site: checked above
      # These take idle that constructs at other call sites ended (the last reports, the end of
      # the run, creations at several sites): at most the run's idle.
      all_idle=$(jq '[.per_core[].idle_s] | add' <<<"$json")
      jq -e -n --argjson lost "$first_lost" --argjson idle "$all_idle" '$idle > 0 and $lost <= $idle' >/dev/null ||
        { echo "demo_report: the first hint claims more than the run's idle ($all_idle s)"; explain; exit 1; } ;;
    *)
      jq -e -n --argjson lost "$first_lost" --argjson idle "$first_idle" '$idle > 0 and $lost <= $idle' >/dev/null ||
        { echo "demo_report: on an undisturbed run the first hint must name a cause of the idle table and claim no more than its idle"; explain; exit 1; } ;;
  esac
fi
echo "demo_report: ok"
