#!/usr/bin/env bash
# Clock offsets across two nodes (issue 38, acceptance 4; docs/mpi-two-nodes.md): the ring runs on
# node-a and node-b (scripts/mpi_two_nodes.sh) with node-b's clock put off by +5 ms, then by -5 ms
# (MOIRAI_MPI_TEST_CLOCK_OFFSET_NS), recorded by libmoirai_mpi.so. For each run it checks that
#  - each node-b rank measured the offset within half its round trip (the ping-pong's bound), and
#    node-a's ranks measured none (one host, one clock);
#  - `moirai mpi-merge` counts the clock violations and leaves none after correction;
#  - the report is the same as the report of the same run without the offset: the run's rank logs
#    with the offset taken off node-b's times again (shift_rank_log) and merged on their own
#    (numbers equal to their last printed digit: the interpolation rounds to whole ns).
# Usage: clock_offsets_test.sh ROOT MOIRAI TOOL RING SHIFT WORKDIR MPIRUN [MPIRUN FLAGS...]
# Exit 0 when all holds, 1 naming what did not, 77 when this machine cannot make two nodes.
set -uo pipefail
root=$1 moirai=$2 tool=$3 ring=$4 shift_log=$5 work=$6
shift 6
launcher=("$@")
fail() { echo "clock_offsets_test: $*" >&2; exit 1; }

# same_report A B: the two reports' words are equal, and their numbers equal to the last digit printed.
same_report() {
  awk 'NR == FNR { a[++n] = $0; next } { b[++m] = $0 }
    function num(t) { sub(/[%,;:)]+$/, "", t); sub(/^[(]/, "", t); return t }
    function decimals(t) { return index(t, ".") ? length(t) - index(t, ".") : 0 }
    END {
      if (n != m) { print "the reports have " n " and " m " lines"; exit 1 }
      for (i = 1; i <= n; ++i) {
        if (a[i] == b[i]) continue
        na = split(a[i], wa, " "); nb = split(b[i], wb, " ")
        if (na != nb) { print "line " i " differs:\n  " a[i] "\n  " b[i]; exit 1 }
        for (k = 1; k <= na; ++k) {
          if (wa[k] == wb[k]) continue
          x = num(wa[k]); y = num(wb[k])
          if (x !~ /^-?[0-9]+(\.[0-9]+)?$/ || y !~ /^-?[0-9]+(\.[0-9]+)?$/) { print "line " i " differs:\n  " a[i] "\n  " b[i]; exit 1 }
          d = x - y; if (d < 0) d = -d
          if (d > 1.0001 * 10 ^ -decimals(x)) { print "line " i ": " wa[k] " against " wb[k] ":\n  " a[i] "\n  " b[i]; exit 1 }
        }
      }
    }' "$1" "$2"
}

rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
for offset in 5000000 -5000000; do
  dir=$work/offset$offset
  mkdir -p "$dir/ranks"
  bash "$root/scripts/mpi_two_nodes.sh" --offset-ns "$offset" -- "${launcher[@]}" -np 4 \
    -x "LD_PRELOAD=$tool" -x "MOIRAI_MPI_RANKS_DIR=$dir/ranks" -x MOIRAI_MPI_QUIET=1 "$ring" > "$dir/run.out" 2>&1
  status=$?
  [ "$status" -eq 77 ] && exit 77
  [ "$status" -eq 0 ] || { cat "$dir/run.out"; fail "offset $offset: the ring exited with $status"; }

  for rank in 0 1 2 3; do
    while read -r _ when measured trip; do
      if [ "$rank" -ge 2 ]; then error=$((measured - offset)); else error=$measured; fi
      # The ping-pong's estimate is off by at most half the round trip it took (1 us for the reads).
      [ "${error#-}" -le $((trip / 2 + 1000)) ] ||
        fail "offset $offset: rank $rank measured $measured ns at $when (round trip $trip ns), not within half of it of ${offset} ns"
      echo "offset $offset: rank $rank at $when measured $measured ns (round trip $trip ns)"
    done < <(grep '^offset ' "$dir/ranks/rank-$rank.defs")
  done

  cp -r "$dir/ranks" "$dir/without"
  for rank in 2 3; do "$shift_log" "$dir/without" "$rank" "$offset" || fail "shift_rank_log failed"; done
  "$moirai" mpi-merge "$dir/ranks" -o "$dir/with.mtrace" > "$dir/merge.out" 2>&1 ||
    { cat "$dir/merge.out"; fail "offset $offset: moirai mpi-merge failed"; }
  cat "$dir/merge.out"
  grep -q '4 ranks on 2 node(s)' "$dir/merge.out" || fail "offset $offset: the merge saw no 4 ranks on 2 nodes"
  grep -Eq '[0-9]+ clock violations \(0 left after correction\)' "$dir/merge.out" ||
    fail "offset $offset: clock violations left after correction"
  "$moirai" mpi-merge "$dir/without" -o "$dir/without.mtrace" > "$dir/merge-without.out" 2>&1 ||
    { cat "$dir/merge-without.out"; fail "offset $offset: moirai mpi-merge of the run without the offset failed"; }
  "$moirai" report "$dir/with.mtrace" > "$dir/with.report" 2>&1 || fail "offset $offset: moirai report failed"
  "$moirai" report "$dir/without.mtrace" > "$dir/without.report" 2>&1 || fail "offset $offset: moirai report (without) failed"
  verdict=$(same_report "$dir/with.report" "$dir/without.report") ||
    fail "offset $offset: the report differs from the one without the offset: $verdict"
done
echo "clock_offsets_test: ok (offsets +5 ms and -5 ms on node-b: none left after correction, the report as without them)"
