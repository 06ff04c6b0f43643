#!/usr/bin/env bash
# The report on an MPI scenario (apps/mpi/) recorded through `moirai record` on its launcher:
#   mpi_report.sh MOIRAI DIR NAME HINT -- LAUNCHER ARGS... PROGRAM ARGS...
# HINT (an extended regex) must match the report's first hint: the planted cause, the ranks that
# waited, the rank that made them wait and the call site; HINT `none` asks for no hint at all (the
# control). The first hint's claimed loss must lie within 15 % of the gain replay measures with its
# cause removed on the same trace (`moirai report --check-losses`: deterministic for a trace, so no
# real run time is compared).
#
# A run is quiet when the library's own time stayed below the report's bar for it (no unit-size
# hint): the MPI tool measures no OS share, so on a busy machine (4 ranks share 2 cores here, with
# whatever else runs) the time a freed rank waited for a CPU is counted as the library's, and
# waits stretch by what the OS took. A busy run is recorded again, up to ATTEMPTS runs (the test
# waits for a state, a quiet run, not for a time). When every run was busy, the figures (the
# planted hint where the report gives it, its claim and replay's gain) are printed, not held.
# Exit status 0 passed, 1 failed.
set -u
moirai=$1 dir=$2 name=$3 hint=$4
shift 4
[ "${1:-}" = "--" ] && shift
attempts=${MOIRAI_MPI_REPORT_ATTEMPTS:-4}
fail() { echo "mpi_report: FAIL ($name): $*"; exit 1; }
mkdir -p "$dir" || fail "cannot make $dir"
trace=$dir/$name.mtrace
hints() { sed -n '/^hints (/,$p' "$dir/$name.report.out" | grep '^  \[' ; }
quiet=no
for attempt in $(seq 1 "$attempts"); do
  rm -rf "$trace" "$trace.ranks"
  "$moirai" record -o "$trace" -- "$@" >"$dir/$name.record.out" 2>&1 || { code=$?; cat "$dir/$name.record.out"; fail "moirai record: exit $code"; }
  "$moirai" report "$trace" >"$dir/$name.report.out" 2>&1 || { code=$?; cat "$dir/$name.report.out"; fail "moirai report: exit $code"; }
  if ! hints | grep -q '^  \[unit-size\]'; then
    quiet=yes
    break
  fi
  echo "mpi_report: run $attempt of $name was busy (the library's own time: $(grep -m1 '^overhead:' "$dir/$name.report.out"))"
done
first=$(hints | head -1)
if [ "$hint" = none ]; then
  if [ "$quiet" = yes ]; then
    [ -z "$first" ] || { cat "$dir/$name.report.out"; fail "the control got a hint: $first"; }
  else
    hints | grep -v '^  \[unit-size\]' | grep -q . && echo "mpi_report: (busy machine) the control's hints: $(hints | cut -c1-200)"
  fi
  echo "mpi_report: ok ($name: $([ "$quiet" = yes ] && echo quiet || echo busy) run, $([ -z "$first" ] && echo no hint || echo "first hint: ${first:0:160}"))"
  exit 0
fi
planted=$(hints | grep -E -m1 -- "$hint")
if [ -z "$planted" ]; then
  [ "$quiet" = yes ] && { cat "$dir/$name.report.out"; fail "no hint matches $hint"; }
  # Every run busy: waits stretched by what the OS took from the ranks they waited for can outweigh
  # the planted cause; the figures are printed, not held.
  echo "mpi_report: $name (busy machine, every run): no hint matches $hint; hints: $(hints | cut -c1-200)"
  echo "mpi_report: ok ($name, busy)"
  exit 0
fi
"$moirai" report "$trace" --check-losses >"$dir/$name.check.out" 2>&1 || { code=$?; cat "$dir/$name.check.out"; fail "report --check-losses: exit $code"; }
rule=$(echo "$planted" | sed -E 's/^  \[([a-z-]+)\].*/\1/')
check=$(grep -m1 -- "^  \[$rule\] claims" "$dir/$name.check.out")
echo "mpi_report: $name ($([ "$quiet" = yes ] && echo quiet || echo "busy machine, every run")): ${planted:0:260}"
echo "mpi_report: $name: $check"
if [ "$quiet" = yes ]; then
  echo "$first" | grep -Eq -- "$hint" || { cat "$dir/$name.report.out"; fail "the first hint is not the planted cause ($hint): $first"; }
  echo "$check" | grep -q ': agree$' || fail "the claimed loss and replay's gain lie more than 15 % apart: $check"
fi
echo "mpi_report: ok ($name)"
