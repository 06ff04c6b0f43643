#!/usr/bin/env bash
# The report on the MPI scenario programs (apps/mpi/), its claimed loss against the fix's real gain
# (issue 38, acceptance 1): per scenario, REPEAT rounds of the planted program recorded through
# `moirai record -- mpirun ... -np 4`, the planted program and its --fixed variant each run plain
# (no tool); the real gain is (planted - fixed run time, as the program prints it) x 4 ranks, the
# claim the first hint's lost core time, and `moirai report --check-losses` gives replay's gain on
# the same trace. Prints a table: the first hint's rule, how often it named the planted call, the
# median claim, real gain and replayed gain (core ms), and the medians of claim / gain.
#
#   bench/mpi_scenarios.sh [--repeat N] [--build-dir DIR] [--no-build]
#
# --repeat: rounds (default 5); --build-dir: the build whose moirai, tool and programs run (default
# build/release, built with the release preset unless --no-build or --build-dir). The launcher's
# flags are cmake/MoiraiMPI.cmake's MOIRAI_MPIRUN_FLAGS. Run it on a quiet machine: the 4 ranks
# share this machine's cores, and anything else running moves both the claims and the real gains.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

bench_repeat_args 15 5 "$@"
scenarios=(late_sender late_receiver barrier_imbalance bcast_serial split_wildcard)
sites=(late_sender.cpp:29 late_receiver.cpp:35 barrier_imbalance.cpp:25 bcast_serial.cpp:30 split_wildcard.cpp:46)
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
launch=(mpirun "${flags[@]}" -np 4)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { "${launch[@]}" "$@" | sed -nE 's/^[a-z_]+ \([a-z ]+\): 4 ranks, .* ([0-9.]+) s;.*/\1/p'; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "launcher: ${launch[*]}"
echo
echo "| scenario | first hint (runs it named the planted call) | planted call's hint: claimed loss, core ms | fixed variant's real gain, core ms | replayed gain, core ms | claim / real gain | claim / replayed gain |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for k in "${!scenarios[@]}"; do
  s=${scenarios[$k]} site=${sites[$k]} program=$build_dir/apps/mpi/${scenarios[$k]}
  : >"$work/claims" && : >"$work/gains" && : >"$work/replayed" && named=0 rule=-
  for ((r = 0; r < repeat; ++r)); do
    planted=$(seconds "$program") fixed=$(seconds "$program" --fixed)
    awk -v p="$planted" -v f="$fixed" 'BEGIN { printf "%.3f\n", (p - f) * 4 * 1e3 }' >>"$work/gains"
    trace=$work/$s.mtrace
    rm -rf "$trace" "$trace.ranks"
    "$moirai" record -o "$trace" -- "${launch[@]}" "$program" >/dev/null 2>&1 || bench_fail "$s: moirai record failed"
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
  claim=${claim:-0} replayed=${replayed:-0}
  awk -v s="$s" -v rule="$rule" -v n="$named" -v runs="$repeat" -v c="$claim" -v g="$gain" -v r="$replayed" 'BEGIN {
    printf "| %s | %s (%d of %d) | %.1f | %.1f | %.1f | %s | %s |\n", s, rule, n, runs, c, g, r,
      (g > 0 ? sprintf("%.2f", c / g) : "-"), (r > 0 ? sprintf("%.2f", c / r) : "-") }'
done
echo
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
