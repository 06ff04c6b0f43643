#!/bin/sh
# The exports of one recorded trace read back by their own tools and checked against `moirai
# stats` and each other (export_matmul.sh and record_openmp_views.sh run it on their traces):
#   sqlite3: select count(*) from units           = moirai stats's unit count; constraints too
#   jq:      unit slices                          = that count; cross-core flows = the database's
#                                                   cross-core constraints
#   otf2-print: MPI_SEND and MPI_RECV records     = those constraints; ENTER = LEAVE = the
#                                                   database's life-line segments and chores
#   CHECK (tests/perfetto_trace_check.cpp), when given: the `--format perfetto` protobuf export
#            read strictly, every unit slice and flow as `moirai export` counted them
#   export_checks.sh MOIRAI TRACE DIR [CHECK]
# Prints what each tool counted and ends with "export_checks: ok" (exit 0), or a FAIL line (exit 1).
set -u
moirai=$1 trace=$2 dir=$3 checker=${4:-}
fail() { echo "export_checks: FAIL: $*"; exit 1; }
mkdir -p "$dir" || fail "cannot create $dir"
summary=$("$moirai" stats "$trace") || fail "moirai stats $trace"
units=$(echo "$summary" | sed -n 's/^units: *\([0-9]*\).*/\1/p')
constraints=$(echo "$summary" | sed -n 's/^constraints: *\([0-9]*\).*/\1/p')
[ -n "$units" ] && [ "$units" -gt 0 ] || fail "moirai stats gave no unit count"

rm -f "$dir/run.db"
"$moirai" export "$trace" --format sqlite -o "$dir/run.db" || fail "export sqlite"
db_units=$(sqlite3 "$dir/run.db" 'select count(*) from units')
db_constraints=$(sqlite3 "$dir/run.db" 'select count(*) from constraints')
cross=$(sqlite3 "$dir/run.db" 'select count(*) from constraints where cross_core = 1')
segments=$(sqlite3 "$dir/run.db" 'select 4 * count(*) + sum(lock_wait_ns > 0) + (select count(*) from chores) from units')
echo "moirai stats: $units units, $constraints constraints; sqlite3: $db_units units, $db_constraints constraints, $cross cross-core"
[ "$db_units" = "$units" ] || fail "sqlite3 counts $db_units units, moirai stats $units"
[ "$db_constraints" = "$constraints" ] || fail "sqlite3 counts $db_constraints constraints, moirai stats $constraints"
[ "$cross" -gt 0 ] || fail "no cross-core constraint on 2 cores"

"$moirai" export "$trace" --format perfetto-json -o "$dir/run.json" || fail "export perfetto-json"
slices=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "unit")] | length' "$dir/run.json") || fail "jq cannot parse the JSON"
# A flow is cross-core when its start ("s") and end ("f") are on different cores' tracks (tids).
flows=$(jq '[.traceEvents[] | select(.ph == "s" or .ph == "f")] | group_by(.id) | map(select(length == 2 and .[0].tid != .[1].tid)) | length' "$dir/run.json")
flow_ends=$(jq '[.traceEvents[] | select(.ph == "s" or .ph == "f")] | group_by(.id) | map(select(.[0].tid != .[1].tid)) | map(.[] | select(.ph == "f")) | length' "$dir/run.json")
echo "jq: $slices unit slices, $flows cross-core flows ($flow_ends ends)"
[ "$slices" = "$units" ] || fail "$slices unit slices for $units units"
[ "$flows" = "$cross" ] && [ "$flow_ends" = "$cross" ] || fail "$flows flows / $flow_ends ends for $cross cross-core constraints"

if [ -n "$checker" ]; then
  printed=$("$moirai" export "$trace" --format perfetto -o "$dir/run.pftrace") || fail "export perfetto"
  echo "$printed"
  exported=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\1 \2/p')
  [ "${exported% *}" = "$units" ] || fail "the protobuf export counted '${exported% *}' units for $units"
  "$checker" "$dir/run.pftrace" $exported || fail "the strict reading of the protobuf export"
fi

rm -rf "$dir/otf2"
"$moirai" export "$trace" --format otf2 -o "$dir/otf2" || fail "export otf2"
otf2-print "$dir/otf2/traces.otf2" >"$dir/otf2.txt" || fail "otf2-print cannot read the archive"
sends=$(grep -c '^MPI_SEND ' "$dir/otf2.txt")
receives=$(grep -c '^MPI_RECV ' "$dir/otf2.txt")
enters=$(grep -c '^ENTER ' "$dir/otf2.txt")
leaves=$(grep -c '^LEAVE ' "$dir/otf2.txt")
echo "otf2-print: $enters ENTER, $leaves LEAVE ($segments segments), $sends MPI_SEND, $receives MPI_RECV"
[ "$sends" = "$cross" ] && [ "$receives" = "$cross" ] || fail "$sends sends / $receives receives for $cross cross-core constraints"
[ "$enters" = "$segments" ] && [ "$leaves" = "$segments" ] || fail "$enters enters / $leaves leaves for $segments segments"
echo "export_checks: ok"
