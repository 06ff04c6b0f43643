#!/usr/bin/env bash
# The report on the OpenMP scenario apps, its claimed loss against the fix's real gain (issue 36,
# point 2): runs moirai_omp_scenario_gain (bench/omp_scenario_gain.cpp: each scenario planted and
# fixed, 3 runs each, alternating, on 2 real threads, recorded through libmoirai_ompt.so) REPEAT
# times and prints, per scenario, how often the planted line's hint was first, and the median and
# range of loss / gain (the hint's claimed core time against (planted - fixed makespan) x 2, each
# less what the OS and the probe took) over the repetitions the report did not call busy, beside the
# loss / replayed gain on the same traces. Exits 1 when a quiet median lies outside 0.85..1.15.
#
#   bench/omp_scenarios.sh [--repeat N] [--build-dir DIR] [--no-build]
#
# --repeat: how many times (default 5); --build-dir: the build whose driver runs (default
# build/release, built with the release preset unless --no-build or --build-dir). Run it on a quiet
# machine: a busy one moves the real gain (the table counts those repetitions apart).
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

bench_repeat_args 14 5 "$@"
[[ $build -eq 0 ]] || bench_build release moirai_omp_scenario_gain
driver="$build_dir/bench/moirai_omp_scenario_gain"
bench_need "$driver"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$driver" --gtest_repeat="$repeat" >"$out" 2>&1 || {
  grep -E '^\[  FAILED  \]|Failure' "$out" | head -n 5
  bench_fail "the driver failed (output above)"
}
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scenario | hint of the planted line | first in | loss / real gain on quiet runs: median (range), runs | loss / replayed gain (same runs) | busy runs |"
echo "| --- | --- | --- | --- | --- | --- |"
# A result line: "NAME [(busy machine) ][RULE] rank R  loss X ms  gain Y ms  ratio Z  replayed W ms (...)";
# the clean run's: "clean [(busy machine) ]N hints above the line".
awk -v runs="$repeat" '
  $2 ~ /^\[/ || ($2 == "(busy" && $4 ~ /^\[/) {
    name = $1; b = ($2 == "(busy"); at = b ? 4 : 2
    rule[name] = $at; seen[name] = 1
    for (i = 1; i <= NF; ++i) { if ($i == "loss") loss = $(i + 1); if ($i == "ratio") ratio = $(i + 1); if ($i == "replayed") replayed = $(i + 1) }
    if (b) { busy[name]++; next }
    if ($(at + 2) == "1") first[name]++
    ratios[name] = ratios[name] " " ratio
    replays[name] = replays[name] " " (replayed > 0 ? loss / replayed : 0)
  }
  $1 == "clean" && $0 ~ /hints above the line/ {
    seen["clean"] = 1; b = ($2 == "(busy"); n = b ? $4 : $2
    if (b) busy["clean"]++; else if (n == 0) first["clean"]++
  }
  # summary LIST: "median (lowest..highest), count" of LIST, "-" for none; median_of: the median.
  function sorted(list, v,    m, i, j, t) {
    m = split(list, v, " ")
    for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return m
  }
  function summary(list,    v, m) {
    m = sorted(list, v)
    if (m == 0) return "-"
    return sprintf("%.2f (%.2f..%.2f), %d", v[int((m + 1) / 2)], v[1], v[m], m)
  }
  function median_of(list,    v, m) { m = sorted(list, v); return m == 0 ? -1 : v[int((m + 1) / 2)] }
  END {
    split("producer critical static_tail fine_tasks clean", order, " ")
    bad = 0
    for (k = 1; k <= 5; ++k) {
      s = order[k]; if (!seen[s]) continue
      if (s == "clean") { printf "| clean | none expected | no hint on %d of %d quiet runs | - | - | %d |\n", first[s] + 0, runs - busy[s], busy[s] + 0; continue }
      printf "| %s | %s | %d of %d quiet | %s | %s | %d |\n", s, rule[s], first[s] + 0, runs - busy[s], summary(ratios[s]), summary(replays[s]), busy[s] + 0
      m = median_of(ratios[s])
      if (m >= 0 && (m < 0.85 || m > 1.15)) { bad = 1; printf "%s: the quiet median loss / gain %.2f lies outside 0.85..1.15\n", s, m > "/dev/stderr" }
    }
    exit bad
  }' "$out"
