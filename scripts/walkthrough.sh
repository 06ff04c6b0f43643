#!/usr/bin/env bash
# The paper's tuning session (section 3.4) on a simulated 40-core machine: runs the walkthrough
# test with its traces kept, then draws every step's Scheduling Consequence Graph at one scale
# (that of the longest run) into docs/walkthrough/, with the report of each step beside it.
# Usage: scripts/walkthrough.sh [OUT_DIR]   (default docs/walkthrough; builds the release preset)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/walkthrough}
mkdir -p "$out"
scripts/build.sh release >/dev/null
traces=$(mktemp -d)
trap 'rm -rf "$traces"' EXIT
MOIRAI_WALKTHROUGH_OUT="$traces" build/release/tests/moirai_walkthrough_tests --gtest_brief=1
moirai=build/release/tools/moirai
# The longest run sets the scale, so every graph fits and all compare directly.
longest=$(for trace in "$traces"/*.mtrace; do
  echo "$("$moirai" report --json "$trace" | jq -r .makespan_s) $trace"  # any number form nlohmann-json prints
done | sort -g | tail -1 | cut -d' ' -f2)
for step in a b c d e f g h; do
  "$moirai" scg "$traces/$step.mtrace" -o "$out/$step-scg.svg" --same-scale-as "$longest"
  "$moirai" report "$traces/$step.mtrace" > "$out/$step-report.txt"
done
echo "walkthrough: $out/{a..h}-scg.svg at the scale of $(basename "$longest"), reports in $out/{a..h}-report.txt"
