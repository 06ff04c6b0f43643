#!/usr/bin/env bash
# Compares moirai_bench binaries (builds of different revisions) in the same minutes: runs each in
# turn, ROUNDS times, 3 repetitions each, and prints per benchmark and binary the median, min and
# max of every repetition's ns_per_op, and for the cross-core round trip the median ratio to the
# atomic ping-pong run right before it (anchor_ns_per_op). On this VM the speed moves from
# minute to minute: only binaries measured interleaved like this can be compared.
#
#   bench/interleave.sh [--rounds N] [--filter REGEX] BINARY...
#
# e.g. build a revision into its own tree, then compare it with the current one:
#   git worktree add /tmp/old REV && cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
#   cmake --build /tmp/old/build -j2 --target moirai_bench &&
#   bench/interleave.sh --filter 'SsrCreateEnd|SsrPingPong' /tmp/old/build/bench/moirai_bench build/release/bench/moirai_bench
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

rounds=3
filter='SsrCreateEnd|SsrPingPong|RawFiberRoundTrip'
binaries=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) bench_count --rounds "${2:-}"; rounds=$2; shift 2 ;;
    --filter) [[ $# -ge 2 ]] || bench_fail "--filter takes a regular expression"
              filter=$2; shift 2 ;;
    -h|--help) bench_help 14 ;;
    -*) bench_fail "unknown option '$1' (see --help)" ;;
    *) [[ -x "$1" ]] || bench_fail "'$1' is not an executable moirai_bench"
       binaries+=("$1"); shift ;;
  esac
done
[[ ${#binaries[@]} -ge 1 ]] || bench_fail "name at least one moirai_bench binary (see --help)"

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for round in $(seq "$rounds"); do
  for index in "${!binaries[@]}"; do
    echo "round $round of $rounds: ${binaries[$index]}" >&2
    "${binaries[$index]}" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_format=json 2>/dev/null |
      python3 -c '
import json, sys
index = sys.argv[1]
for b in json.load(sys.stdin)["benchmarks"]:
    if b.get("run_type") != "iteration" or "ns_per_op" not in b:
        continue
    print(index, b["run_name"].replace("/manual_time", ""), b["ns_per_op"], b.get("anchor_ns_per_op", 0))
' "$index" >>"$rows"
  done
done

python3 - "$rows" "${binaries[@]}" <<'PY'
import collections, statistics, sys
rows, names = sys.argv[1], sys.argv[2:]
values, ratios = collections.defaultdict(list), collections.defaultdict(list)
for line in open(rows):
    index, bench, ns, anchor = line.split()
    key = (bench, int(index))
    values[key].append(float(ns))
    if float(anchor) > 0:
        ratios[key].append(float(ns) / float(anchor))
print("| benchmark | binary | median ns | min | max | n | ratio to the paired anchor (median) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for (bench, index), vals in sorted(values.items()):
    ratio = f"{statistics.median(ratios[(bench, index)]):.2f}x" if ratios[(bench, index)] else ""
    print(f"| `{bench}` | {names[index]} | {statistics.median(vals):,.1f} | {min(vals):,.1f} | {max(vals):,.1f} | {len(vals)} | {ratio} |")
PY
