#!/usr/bin/env bash
# The report on the MPI scenario programs (apps/mpi/), its claimed loss against the fix's real gain
# (issue 38, acceptance 1), and what recording costs them (acceptance 6): per scenario, REPEAT
# rounds of the planted program recorded through `moirai record -- mpirun ... -np RANKS`, the
# planted program and its --fixed variant each run plain (no tool); the real gain is (planted -
# fixed run time, as the program prints it) x RANKS, the claim the planted call's hint's lost core
# time, and `moirai report --check-losses` gives replay's gain on the same trace; the recorded
# run's slowdown is its printed time against the plain planted run's. Prints a table: the first
# hint's rule, how often it named the planted call, the median claim, real gain and replayed gain
# (core ms), the medians of claim / gain, and the median slowdown.
#
#   bench/mpi_scenarios.sh [--repeat N] [--build-dir DIR] [--no-build]
#
# --repeat: rounds (default 5); --build-dir: the build whose moirai, tool and programs run (default
# build/release, built with the release preset unless --no-build or --build-dir). RANKS is
# MOIRAI_BENCH_RANKS (default 2: a core per rank on this 2-core machine). The launcher's flags are
# cmake/MoiraiMPI.cmake's MOIRAI_MPIRUN_FLAGS. Run it on a quiet machine with a core per rank: the
# tool reads the OS's share only per run, so a rank whose core another process takes is late by
# what the OS took (the report then starts with "machine was busy").
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

bench_repeat_args 19 5 "$@"
ranks=${MOIRAI_BENCH_RANKS:-2}
bench_count MOIRAI_BENCH_RANKS "$ranks"
scenarios=(late_sender late_receiver barrier_imbalance bcast_serial split_wildcard)
sites=(late_sender.cpp:29 late_receiver.cpp:35 barrier_imbalance.cpp:25 bcast_serial.cpp:30 split_wildcard.cpp:48)
[[ $build -eq 0 ]] || bench_build release moirai_cli moirai_mpi "${scenarios[@]/#/mpi_}"
moirai="$build_dir/tools/moirai"
bench_need "$moirai" "$build_dir/mpi/tool/libmoirai_mpi.so"
for s in "${scenarios[@]}"; do bench_need "$build_dir/apps/mpi/$s"; done

# The flags, from their one place (MOIRAI_MPIRUN_FLAGS's list in cmake/MoiraiMPI.cmake; as root,
# --allow-run-as-root, as there).
read -r -a flags <<<"$(awk '/^set\(moirai_mpirun_flags/,/\)/' cmake/MoiraiMPI.cmake | tr '\n' ' ' |
  sed -E 's/^set\(moirai_mpirun_flags//; s/\).*$//')"
[[ ${#flags[@]} -gt 0 ]] || bench_fail "no MOIRAI_MPIRUN_FLAGS in cmake/MoiraiMPI.cmake"
[[ $(id -u) -ne 0 ]] || flags=(--allow-run-as-root "${flags[@]}")
launch=(mpirun "${flags[@]}" -np "$ranks")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The run's seconds as the program prints them (rank 0's line), from standard input.
printed_seconds() { sed -nE 's/^[a-z_]+ \([a-z ]+\): [0-9]+ ranks, .* ([0-9.]+) s;.*/\1/p'; }
seconds() { "${launch[@]}" "$@" | printed_seconds; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "launcher: ${launch[*]}"
echo
echo "| scenario | first hint (runs it named the planted call) | planted call's hint: claimed loss, core ms | fixed variant's real gain, core ms | replayed gain, core ms | claim / real gain | claim / replayed gain | recorded run's slowdown |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for k in "${!scenarios[@]}"; do
  s=${scenarios[$k]} site=${sites[$k]} program=$build_dir/apps/mpi/${scenarios[$k]}
  : >"$work/claims" && : >"$work/gains" && : >"$work/replayed" && : >"$work/slowdowns" && named=0 rule=-
  for ((r = 0; r < repeat; ++r)); do
    planted=$(seconds "$program") fixed=$(seconds "$program" --fixed)
    awk -v p="$planted" -v f="$fixed" -v n="$ranks" 'BEGIN { printf "%.3f\n", (p - f) * n * 1e3 }' >>"$work/gains"
    trace=$work/$s.mtrace
    rm -rf "$trace" "$trace.ranks"
    "$moirai" record -o "$trace" -- "${launch[@]}" "$program" >"$work/recorded" 2>/dev/null || bench_fail "$s: moirai record failed"
    recorded=$(printed_seconds <"$work/recorded")
    [[ -n "$recorded" ]] || bench_fail "$s: the recorded run printed no time"
    awk -v r="$recorded" -v p="$planted" 'BEGIN { printf "%.4f\n", (r / p - 1) * 100 }' >>"$work/slowdowns"
    # The cause of idle time the planted call made (idle-cause at its line), and its line of --check-losses (one line per hint, in order).
    "$moirai" report "$trace" | sed -n '/^hints (/,$p' | grep '^  \[' >"$work/hints"
    first=$(head -1 "$work/hints")
    rule=$(sed -E 's/^  \[([a-z-]+)\].*/\1/' <<<"$first")
    grep -q "^  \[idle-cause\].*$site" <<<"$first" && named=$((named + 1))
    at=$(grep -n -m1 "^  \[idle-cause\].*$site" "$work/hints" | cut -d: -f1)
    [[ -n "$at" ]] || continue
    check=$("$moirai" report "$trace" --check-losses | grep '^  \[' | sed -n "${at}p")
    sed -nE 's/.* claims ([0-9.]+);.*/\1/p' <<<"$check" >>"$work/claims"
    sed -nE 's/.* gains (-?[0-9.]+).*/\1/p' <<<"$check" >>"$work/replayed"
  done
  claim=$(median <"$work/claims") gain=$(median <"$work/gains") replayed=$(median <"$work/replayed")
  slowdown=$(median <"$work/slowdowns")
  claim=${claim:-0} replayed=${replayed:-0}
  awk -v s="$s" -v rule="$rule" -v n="$named" -v runs="$repeat" -v c="$claim" -v g="$gain" -v r="$replayed" -v d="$slowdown" 'BEGIN {
    printf "| %s | %s (%d of %d) | %.1f | %.1f | %.1f | %s | %s | %+.1f %% |\n", s, rule, n, runs, c, g, r,
      (g > 0 ? sprintf("%.2f", c / g) : "-"), (r > 0 ? sprintf("%.2f", c / r) : "-"), d }'
done
echo
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
