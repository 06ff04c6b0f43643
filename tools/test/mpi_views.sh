#!/usr/bin/env bash
# Every view reads a merged MPI trace: a synthetic job's rank logs (moirai-mpi-gen-ranks: 4 ranks
# on 2 nodes, a halo exchange with allreduces) merged by `moirai mpi-merge`, then `stats` (which says
# the bytes the messages and collective calls sent), `report`,
# `scg`, `ucc`, `export` (otf2, perfetto, sqlite) and `replay` each exit 0 on it; and `mpi-merge`
# refuses a folder with a rank missing (exit 2, naming the file).
#   mpi_views.sh MOIRAI GEN_RANKS DIR
# Exit status 0 passed, 1 failed.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/mpi_trace_views.sh"
moirai=$1 gen=$2 dir=$3
fail() { echo "mpi_views: FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
"$gen" "$dir/ranks" 4 2000 2 >/dev/null || fail "moirai-mpi-gen-ranks failed"
run_step "$dir/run" merge "$moirai" mpi-merge "$dir/ranks" -o "$dir/run.mtrace"
grep -q "4 ranks on 2 node(s)" "$dir/run.merge.out" || { cat "$dir/run.merge.out"; fail "mpi-merge's summary names no 4 ranks on 2 nodes"; }
view_trace "$moirai" "$dir/run.mtrace" "$dir/run"
# What the messages carried (trace format 3.7): every halo message's bytes and the allreduces'.
grep -Eq "^bytes sent: +[1-9][0-9]* in [1-9][0-9]* messages, [1-9][0-9]* in [1-9][0-9]* collective calls$" "$dir/run.stats.out" ||
  { cat "$dir/run.stats.out"; fail "stats says no bytes sent"; }
run_step "$dir/run" replay "$moirai" replay "$dir/run.mtrace" --machine sim:4 --trace "$dir/replayed.mtrace"
mv "$dir/ranks/rank-3.defs" "$dir/rank-3.defs.away"
"$moirai" mpi-merge "$dir/ranks" -o "$dir/bad.mtrace" >"$dir/bad.out" 2>&1
code=$?
[ "$code" = 2 ] || fail "mpi-merge on a folder missing rank 3: exit $code, not 2"
grep -q "rank-3.defs: missing: rank 3 of 4" "$dir/bad.out" || { cat "$dir/bad.out"; fail "mpi-merge did not name the missing file"; }
echo "mpi_views: ok (merge, stats, report, scg, ucc, export otf2/perfetto/sqlite, replay; a missing rank refused)"
