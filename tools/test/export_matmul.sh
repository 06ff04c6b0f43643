#!/bin/sh
# The acceptance run of `moirai export`: matmul on 2 real cores, recorded, then exported to all
# three formats, each read back by its own tool and checked against `moirai stats` and each other:
#   sqlite3: select count(*) from units           = moirai stats's unit count
#   jq:      unit slices                          = that count; cross-core flows = the database's
#                                                   cross-core constraints
#   otf2-print: MPI_SEND and MPI_RECV records     = those constraints; ENTER = LEAVE = the
#                                                   database's life-line segments and chores
#   export_matmul.sh MOIRAI MATMUL DIR
set -u
moirai=$1 matmul=$2 dir=$3
fail() { echo "export_matmul: FAIL: $*"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
trace=$dir/t.mtrace
"$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$trace" >/dev/null || fail "matmul failed"
units=$("$moirai" stats "$trace" | sed -n 's/^units: *\([0-9]*\).*/\1/p')
[ -n "$units" ] && [ "$units" -gt 0 ] || fail "moirai stats gave no unit count"

"$moirai" export "$trace" --format sqlite -o "$dir/run.db" || fail "export sqlite"
db_units=$(sqlite3 "$dir/run.db" 'select count(*) from units')
cross=$(sqlite3 "$dir/run.db" 'select count(*) from constraints where cross_core = 1')
segments=$(sqlite3 "$dir/run.db" 'select 4 * count(*) + sum(lock_wait_ns > 0) + (select count(*) from chores) from units')
echo "moirai stats: $units units; sqlite3: $db_units units, $cross cross-core constraints"
[ "$db_units" = "$units" ] || fail "sqlite3 counts $db_units units, moirai stats $units"
[ "$cross" -gt 0 ] || fail "no cross-core constraint on 2 cores"

"$moirai" export "$trace" --format perfetto-json -o "$dir/run.json" || fail "export perfetto"
slices=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "unit")] | length' "$dir/run.json") || fail "jq cannot parse the JSON"
# A flow is cross-core when its start ("s") and end ("f") are on different cores' tracks (tids).
flows=$(jq '[.traceEvents[] | select(.ph == "s" or .ph == "f")] | group_by(.id) | map(select(length == 2 and .[0].tid != .[1].tid)) | length' "$dir/run.json")
flow_ends=$(jq '[.traceEvents[] | select(.ph == "s" or .ph == "f")] | group_by(.id) | map(select(.[0].tid != .[1].tid)) | map(.[] | select(.ph == "f")) | length' "$dir/run.json")
echo "jq: $slices unit slices, $flows cross-core flows ($flow_ends ends)"
[ "$slices" = "$units" ] || fail "$slices unit slices for $units units"
[ "$flows" = "$cross" ] && [ "$flow_ends" = "$cross" ] || fail "$flows flows / $flow_ends ends for $cross cross-core constraints"

"$moirai" export "$trace" --format otf2 -o "$dir/otf2" || fail "export otf2"
otf2-print "$dir/otf2/traces.otf2" >"$dir/otf2.txt" || fail "otf2-print cannot read the archive"
sends=$(grep -c '^MPI_SEND ' "$dir/otf2.txt")
receives=$(grep -c '^MPI_RECV ' "$dir/otf2.txt")
enters=$(grep -c '^ENTER ' "$dir/otf2.txt")
leaves=$(grep -c '^LEAVE ' "$dir/otf2.txt")
echo "otf2-print: $enters ENTER, $leaves LEAVE ($segments segments), $sends MPI_SEND, $receives MPI_RECV"
[ "$sends" = "$cross" ] && [ "$receives" = "$cross" ] || fail "$sends sends / $receives receives for $cross cross-core constraints"
[ "$enters" = "$segments" ] && [ "$leaves" = "$segments" ] || fail "$enters enters / $leaves leaves for $segments segments"
echo "export_matmul: ok"
