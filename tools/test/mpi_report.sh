#!/usr/bin/env bash
# The report on an MPI scenario (apps/mpi/) recorded through `moirai record` on its launcher:
#   mpi_report.sh MOIRAI DIR NAME HINT -- LAUNCHER ARGS... PROGRAM ARGS...
# HINT (an extended regex) must match the report's first hint: the planted cause, the ranks that
# waited, the rank that made them wait and the call site; HINT `none` asks for no hint at all (the
# control). The first hint's claimed loss must lie within 15 % of the gain replay measures with its
# cause removed on the same trace (`moirai report --check-losses`: deterministic for a trace, so no
# real run time is compared).
#
# The tests run the scenarios with a core per rank and nothing beside them (ctest's RUN_SERIAL):
# the MPI tool reads no OS share, so a rank whose core another process took is late by what the
# OS took, and the ranks waiting for it wait for the OS, not for the planted call. Such a run is
# recorded again, up to ATTEMPTS runs (MOIRAI_MPI_REPORT_ATTEMPTS, default 3): the test waits for
# a state, a run the OS left alone, not for a time; every attempt's figures are printed, and the
# test fails when no run holds. Exit status 0 passed, 1 failed.
set -u
moirai=$1 dir=$2 name=$3 hint=$4
shift 4
[ "${1:-}" = "--" ] && shift
attempts=${MOIRAI_MPI_REPORT_ATTEMPTS:-3}
fail() { echo "mpi_report: FAIL ($name): $*"; exit 1; }
mkdir -p "$dir" || fail "cannot make $dir"
trace=$dir/$name.mtrace
hints() { sed -n '/^hints (/,$p' "$dir/$name.report.out" | grep '^  \[' ; }
why=
for attempt in $(seq 1 "$attempts"); do
  rm -rf "$trace" "$trace.ranks"
  "$moirai" record -o "$trace" -- "$@" >"$dir/$name.record.out" 2>&1 || { code=$?; cat "$dir/$name.record.out"; fail "moirai record: exit $code"; }
  "$moirai" report "$trace" >"$dir/$name.report.out" 2>&1 || { code=$?; cat "$dir/$name.report.out"; fail "moirai report: exit $code"; }
  first=$(hints | head -1)
  if [ "$hint" = none ]; then
    [ -z "$first" ] && { echo "mpi_report: ok ($name: run $attempt of $attempts, no hint)"; exit 0; }
    why="the control got a hint: ${first:0:300}"
  elif ! echo "$first" | grep -Eq -- "$hint"; then
    why="the first hint is not the planted cause ($hint): ${first:0:300}"
  else
    "$moirai" report "$trace" --check-losses >"$dir/$name.check.out" 2>&1 || { code=$?; cat "$dir/$name.check.out"; fail "report --check-losses: exit $code"; }
    check=$(grep -m1 -- '^  \[' "$dir/$name.check.out")
    echo "mpi_report: $name (run $attempt of $attempts): ${first:0:260}"
    echo "mpi_report: $name: $check"
    if echo "$check" | grep -q ': agree$'; then
      echo "mpi_report: ok ($name)"
      exit 0
    fi
    why="the claimed loss and replay's gain lie more than 15 % apart: $check"
  fi
  echo "mpi_report: run $attempt of $name does not hold: $why"
done
cat "$dir/$name.report.out"
fail "no run of $attempts held; the last: $why"
