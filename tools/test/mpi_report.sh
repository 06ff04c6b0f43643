#!/usr/bin/env bash
# The report on an MPI scenario (apps/mpi/) recorded through `moirai record` on its launcher:
#   mpi_report.sh MOIRAI DIR NAME HINT -- LAUNCHER ARGS... PROGRAM ARGS...
# HINT (an extended regex) must match the report's first hint: the planted cause, the ranks that
# waited, the rank that made them wait and the call site; HINT `none` asks for no hint at all (the
# control). The first hint's claimed loss must lie within 15 % of the gain replay measures with its
# cause removed on the same trace (`moirai report --check-losses`: deterministic for a trace, so no
# real run time is compared).
#
# That holds on a run the OS left alone: a rank whose core another process took is late by what
# the OS took, and the ranks waiting for it wait for the OS, not for the planted call. The trace
# says which runs those are (each rank's wait for a CPU; the report's "machine was busy" warning).
# A busy run is recorded again, up to ATTEMPTS runs (MOIRAI_MPI_REPORT_ATTEMPTS, default 3): the
# test waits for a state, a run the trace calls quiet, not for a time. A quiet run that does not
# hold fails the test. When every run was busy, what holds on a loaded machine is held: the report
# says the machine was busy, and a hint still names the planted call site; the figures are printed.
# Exit status 0 passed, 1 failed.
set -u
moirai=$1 dir=$2 name=$3 hint=$4
shift 4
[ "${1:-}" = "--" ] && shift
attempts=${MOIRAI_MPI_REPORT_ATTEMPTS:-3}
fail() { echo "mpi_report: FAIL ($name): $*"; exit 1; }
mkdir -p "$dir" || fail "cannot make $dir"
trace=$dir/$name.mtrace
hints() { sed -n '/^hints (/,$p' "$dir/$name.report.out" | grep '^  \[' ; }
site=$(echo "$hint" | grep -oE 'apps/mpi/[a-z_]+\[\.\]cpp:[0-9]+' | head -1)
for attempt in $(seq 1 "$attempts"); do
  rm -rf "$trace" "$trace.ranks"
  "$moirai" record -o "$trace" -- "$@" >"$dir/$name.record.out" 2>&1 || { code=$?; cat "$dir/$name.record.out"; fail "moirai record: exit $code"; }
  "$moirai" report "$trace" >"$dir/$name.report.out" 2>&1 || { code=$?; cat "$dir/$name.report.out"; fail "moirai report: exit $code"; }
  first=$(hints | head -1)
  if grep -q '^machine was busy: ' "$dir/$name.report.out"; then
    echo "mpi_report: run $attempt of $name was busy: $(grep -m1 '^machine was busy: ' "$dir/$name.report.out" | cut -c1-200)"
    continue
  fi
  if [ "$hint" = none ]; then
    [ -z "$first" ] || { cat "$dir/$name.report.out"; fail "the control got a hint on a quiet run: ${first:0:300}"; }
    echo "mpi_report: ok ($name: quiet run $attempt of $attempts, no hint)"
    exit 0
  fi
  echo "$first" | grep -Eq -- "$hint" || { cat "$dir/$name.report.out"; fail "the first hint of a quiet run is not the planted cause ($hint): ${first:0:300}"; }
  "$moirai" report "$trace" --check-losses >"$dir/$name.check.out" 2>&1 || { code=$?; cat "$dir/$name.check.out"; fail "report --check-losses: exit $code"; }
  check=$(grep -m1 -- '^  \[' "$dir/$name.check.out")
  echo "mpi_report: $name (quiet run $attempt of $attempts): ${first:0:260}"
  echo "mpi_report: $name: $check"
  echo "$check" | grep -q ': agree$' || fail "the claimed loss and replay's gain lie more than 15 % apart on a quiet run: $check"
  echo "mpi_report: ok ($name)"
  exit 0
done
# Every run busy: what holds on a loaded machine.
echo "mpi_report: $name: every run of $attempts was busy; its hints: $(hints | cut -c1-200 | tr '\n' '|')"
if [ "$hint" != none ]; then
  [ -n "$site" ] || fail "no call site in the hint's pattern ($hint)"
  hints | grep -Eq -- "$site" || { cat "$dir/$name.report.out"; fail "no hint names the planted call site $site"; }
fi
echo "mpi_report: ok ($name, busy machine: $([ "$hint" = none ] && echo "the control" || echo "the planted call site named"), the figures not held)"
