#!/usr/bin/env bash
# Fits the simulated machine's compiled-in cost model from this machine's real cores (issue 13,
# point 6): records matmul (8 and 32 pieces on 2 cores, 8 pieces on 1), every scenario of the
# report's suite and producer_consumer (the global channel's constructs; it declares no work, so
# it gives runtime steps only) on 2 real cores, each --repeat times (this VM's vCPUs change speed from run to
# run: the fit takes the median rate over runs and the mean cost of each runtime step), then runs `moirai-calibrate --fit` over all of those traces and
# prints the model. proto::CostModel::default_model() and ssr::cost_model() hold its runtime
# costs; matmul's declared cycles (apps/matmul/matmul.h) follow its work rates per call site.
# bench/sim_default_check.sh then says how well the model predicts fresh real runs.
#
#   bench/fit_default_model.sh [--repeat K] [--into DIR] [--output FILE]
#         default: 3 runs each, traces in a temporary folder (removed), the model on standard output
#
# Environment: MOIRAI_BENCH_BUILD_DIR (default build/release). Run it on an otherwise idle
# machine: the real runs need both cores to themselves.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MOIRAI_BENCH_BUILD_DIR:-$root/build/release}"
matmul="$build/apps/matmul/matmul"
scenarios="$build/apps/scenarios/moirai-scenarios"
producer_consumer="$build/apps/producer_consumer/producer_consumer"
calibrate="$build/tools/moirai-calibrate"
into=""
output=()
repeat=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "fit_default_model.sh: --repeat takes a positive count" >&2; exit 2; }
              repeat=$2; shift 2 ;;
    --into) [[ $# -ge 2 ]] || { echo "fit_default_model.sh: --into takes a folder" >&2; exit 2; }
            into=$2; shift 2 ;;
    --output) [[ $# -ge 2 ]] || { echo "fit_default_model.sh: --output takes a file" >&2; exit 2; }
              output=(--output "$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fit_default_model.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in "$matmul" "$scenarios" "$producer_consumer" "$calibrate"; do
  [[ -x "$tool" ]] || { echo "fit_default_model.sh: $tool is not built" >&2; exit 2; }
done
if [[ -z "$into" ]]; then
  into="$(mktemp -d)"
  trap 'rm -rf "$into"' EXIT
fi
mkdir -p "$into"

echo "fit_default_model.sh: recording into $into; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((k = 1; k <= repeat; ++k)); do
  "$matmul" --pieces 8 --cores 2 --counters none --trace "$into/matmul-c2-p8-$k.mtrace" >/dev/null
  "$matmul" --pieces 32 --cores 2 --counters none --trace "$into/matmul-c2-p32-$k.mtrace" >/dev/null
  "$matmul" --pieces 8 --cores 1 --counters none --trace "$into/matmul-c1-p8-$k.mtrace" >/dev/null
  "$producer_consumer" --cores 2 --counters none --trace "$into/producer_consumer-$k.mtrace" >/dev/null
  while read -r name _; do
    [[ -n "$name" ]] || continue
    "$scenarios" --scenario "$name" --cores 2 --counters none --trace "$into/$name-$k.mtrace" >/dev/null
  done < <("$scenarios" --list)
done
"$calibrate" --fit "$into"/*.mtrace "${output[@]}"
