#!/usr/bin/env bash
# The report on the OpenMP scenario apps, loss against gain (issue 26, points 3 and 5): runs the
# scenario tests of moirai_ompt_tests (tests/ompt_scenario_test.cpp: each scenario planted and
# fixed, 3 runs each, on 2 real threads, recorded through libmoirai_ompt.so) REPEAT times and
# prints, per scenario, the first hint's rule and how often it was first with the planted line,
# and the median and range of loss / gain (the hint's lost core time against what the fixed
# variant really gained) over the runs the report did not call busy, with how many it did. The
# test holds the loss within a factor of 3 of the gain; this prints how close it is.
#
#   bench/omp_scenarios.sh [--repeat N] [--build-dir DIR] [--no-build]
#
# --repeat: how many times the scenario tests run (default 5); --build-dir: the build whose tests
# run (default build/release, built with the release preset unless --no-build or --build-dir).
# The machine's load average is printed: a busy machine moves both the loss and the gain.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

repeat=5
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) bench_count --repeat "${2:-}"; repeat=$2; shift 2 ;;
    --build-dir) bench_build_dir "${2:-}"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) bench_help 13 ;;
    *) bench_fail "unknown argument '$1' (see --help)" ;;
  esac
done
cd "$root"
[[ $build -eq 0 ]] || bench_build release moirai_ompt_tests
tests="$build_dir/tests/moirai_ompt_tests"
bench_need "$tests"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tests" --gtest_filter='Scenarios/*' --gtest_repeat="$repeat" >"$out" 2>&1 || {
  grep -E '^\[  FAILED  \]|Failure' "$out" | head -n 5
  bench_fail "the scenario tests failed (output above)"
}
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scenario | hint of the planted line | first in | loss / gain on quiet runs: median (range), runs | on busy runs |"
echo "| --- | --- | --- | --- | --- |"
# A result line: "NAME [(busy machine) ][RULE] rank R  loss X ms  gain Y ms  ratio Z  (...)";
# the clean run's: "clean [(busy machine) ]N hints above the line".
awk -v runs="$repeat" '
  $2 ~ /^\[/ || ($2 == "(busy" && $4 ~ /^\[/) {
    name = $1; busy = ($2 == "(busy"); rule_at = busy ? 4 : 2
    rule[name] = $rule_at; seen[name] = 1
    if ($(rule_at + 2) == "1") first[name]++
    for (i = 1; i <= NF; ++i) if ($i == "ratio") ratio = $(i + 1)
    if (busy) busy_ratios[name] = busy_ratios[name] " " ratio; else ratios[name] = ratios[name] " " ratio
  }
  $1 == "clean" && $0 ~ /hints above the line/ {
    seen["clean"] = 1; busy = ($2 == "(busy"); n = busy ? $4 : $2
    if (busy) busy_clean++; else if (n == 0) first["clean"]++
    rule["clean"] = "none expected"
  }
  # summary LIST: "median (lowest..highest), count" of the ratios in LIST, "-" for none.
  function summary(list,    v, m, i, j, t) {
    m = split(list, v, " ")
    if (m == 0) return "-"
    for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return sprintf("%.2f (%.2f..%.2f), %d", v[int((m + 1) / 2)], v[1], v[m], m)
  }
  END {
    split("producer critical static_tail fine_tasks clean", order, " ")
    for (k = 1; k <= 5; ++k) {
      s = order[k]; if (!seen[s]) continue
      if (s == "clean") printf "| clean | none expected | no hint on %d of %d quiet runs | - | %d busy |\n", first[s] + 0, runs - busy_clean, busy_clean
      else printf "| %s | %s | %d of %d | %s | %s |\n", s, rule[s], first[s] + 0, runs, summary(ratios[s]), summary(busy_ratios[s])
    }
  }' "$out"
