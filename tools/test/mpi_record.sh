#!/usr/bin/env bash
# An MPI program recorded through `moirai record` on its launcher, and every view on the trace:
#   mpi_record.sh MOIRAI DIR NAME SITE -- LAUNCHER ARGS... PROGRAM ARGS...
# records DIR/NAME.mtrace; checks record's summary (4 ranks on 1 node, units, no rank folder
# left), then `stats`, `report`, `scg`, `ucc` and `export` (otf2, perfetto, sqlite) each exit 0;
# SITE (a regex; '-' for none) must be the call site of the first line of the report's idle time by
# cause, the planted one, leaving out the causes in the programs' shared start and final check
# (apps/mpi/mpi_app.h: MPI_Init, the last MPI_Allreduce), where a rank descheduled on a loaded
# machine arrives late; `none` asks that no line of idle time by cause names an MPI call.
# Exit status 0 passed, 1 failed.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/mpi_trace_views.sh"
moirai=$1 dir=$2 name=$3 site=$4
shift 4
[ "${1:-}" = "--" ] && shift
fail() { echo "mpi_record: FAIL: $*"; exit 1; }
mkdir -p "$dir" || fail "cannot make $dir"
trace=$dir/$name.mtrace
rm -rf "$dir/$name".*
"$moirai" record -o "$trace" -- "$@" >"$dir/$name.record.out" 2>&1
code=$?
cat "$dir/$name.record.out"
[ "$code" = 0 ] || fail "moirai record: exit $code"
grep -Eq "wrote $trace: 4 ranks on 1 node, [1-9][0-9]* units, [0-9]+ messages?, [0-9]+ collectives?" "$dir/$name.record.out" ||
  fail "moirai record's summary names no 4 ranks on 1 node"
[ ! -e "$trace.ranks" ] || fail "the rank folder $trace.ranks is left after a merge without --keep-ranks"
view_trace "$moirai" "$trace" "$dir/$name"
causes=$(sed -n '/^idle time by cause/,/^$/p' "$dir/$name.report.out" | sed -n '2,$p' | grep -v 'apps/mpi/mpi_app[.]h:')
first=$(echo "$causes" | head -1)
if [ "$site" = none ]; then
  # The control: what idle time there is comes from the run's start and end, never one MPI call.
  echo "$causes" | grep -q "apps/mpi/.*[.]cpp:[0-9]" && { cat "$dir/$name.report.out"; fail "the control's idle time is charged to a call"; }
elif [ "$site" != - ]; then
  echo "$first" | grep -Eq "$site" || { cat "$dir/$name.report.out"; fail "the first cause of idle time is not at $site: $first"; }
fi
echo "mpi_record: ok ($name: record, stats, report, scg, ucc, export otf2/perfetto/sqlite${first:+; first cause: $first})"
