#!/bin/sh
# The Perfetto exports read by something other than their writer, on a recorded matmul and on a
# generated trace, against the counts `moirai export` printed:
#   proto     `--format perfetto` (100,000 generated units) read by the export tests' strict
#             reader (tests/perfetto_trace_check.cpp): no error the trace processor would meet,
#             every unit slice, every flow bound at both ends to unit slices; the generated
#             trace at most 200 bytes per unit.
#   protoc    `--format perfetto` (20,000 generated units) decoded by protobuf's own `protoc
#             --decode` (CHECK: the protoc program) against tests/data/perfetto_trace_subset.proto:
#             no decode error, nothing outside the subset (perfetto_protoc_check.awk), every flow
#             id in one flow_ids and one terminating_flow_ids.
#   protoc-damaged  the protoc check refusing damaged files: the export of 300 generated units
#             passes, then fails cut short by a byte, with a packet whose flow id has the varint
#             wire type instead of fixed64, and with a flow that never terminates (MATMUL unused).
#   devtools  `--format perfetto-json` (20,000 generated units) loaded by Chrome DevTools' own
#             trace engine (npm @paulirish/trace_engine, pinned with its dependencies in
#             perfetto_devtools/package-lock.json, installed into DIR by `npm ci`): every slice in
#             its thread's tree, every flow bound at both ends to unit slices
#             (perfetto_devtools/check_flows.mjs).
#   perfetto_exports.sh proto|protoc|protoc-damaged MOIRAI MATMUL GEN_TRACE DIR CHECK
#   perfetto_exports.sh devtools MOIRAI MATMUL GEN_TRACE DIR
# Exit status 0 passed, 1 failed (devtools without node or npm too: scripts/setup.sh installs them).
set -u
mode=$1 moirai=$2 matmul=$3 gen=$4 dir=$5 checker=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "perfetto_exports $mode: FAIL: $*"; exit 1; }
case $mode in
  proto) format=perfetto extension=pftrace generated=100000 ;;
  protoc) format=perfetto extension=pftrace generated=20000 ;;
  protoc-damaged) format=perfetto extension=pftrace generated=300 ;;
  devtools) format=perfetto-json extension=json generated=20000 ;;
  *) echo "usage: perfetto_exports.sh proto|protoc|protoc-damaged|devtools MOIRAI MATMUL GEN_TRACE DIR [CHECK]"; exit 2 ;;
esac
if [ "$mode" = devtools ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  echo "perfetto_exports devtools: FAIL: node and npm are needed (scripts/setup.sh installs them)"
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
if [ "$mode" = devtools ]; then
  cp "$here/perfetto_devtools/package.json" "$here/perfetto_devtools/package-lock.json" "$here/perfetto_devtools/check_flows.mjs" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci could not install @paulirish/trace_engine"
fi

# protoc_check FILE FLOWS: FILE decoded by protoc against the subset schema, with no word on
# stderr, and its text checked by perfetto_protoc_check.awk.
protoc_check() {
  "$checker" --proto_path="$here/../../tests/data" --decode=moirai.perfetto_subset.Trace perfetto_trace_subset.proto \
      <"$1" >"$1.txt" 2>"$1.err"
  status=$?
  if [ "$status" -ne 0 ] || [ -s "$1.err" ]; then
    echo "protoc: cannot decode $1 (exit status $status): $(cat "$1.err")"
    return 1
  fi
  awk -v flows="$2" -f "$here/perfetto_protoc_check.awk" "$1.txt" || return 1
  rm -f "$1.txt" "$1.err"
}

# check TRACE NAME [MAX_BYTES_PER_UNIT]: export, then read back with the counts printed.
check() {
  printed=$("$moirai" export "$1" --format "$format" -o "$dir/$2.$extension") || fail "export of $1"
  echo "$printed"
  units=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\1/p')
  flows=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\2/p')
  [ -n "$units" ] && [ -n "$flows" ] || fail "no counts in: $printed"
  if [ "$mode" = proto ]; then
    "$checker" "$dir/$2.$extension" "$units" "$flows" ${3:-} || fail "the strict reading of $2"
  elif [ "$mode" != devtools ]; then
    protoc_check "$dir/$2.$extension" "$flows" || fail "protoc's reading of $2"
  else
    node "$dir/check_flows.mjs" "$dir/$2.$extension" "$units" "$flows" || fail "the DevTools trace engine's reading of $2"
  fi
}
if [ "$mode" != protoc-damaged ]; then
  "$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$dir/matmul.mtrace" >/dev/null || fail "matmul failed"
  check "$dir/matmul.mtrace" matmul
fi
"$gen" --units "$generated" --cores 8 --counters -o "$dir/gen.mtrace" || fail "moirai-gen-trace failed"
check "$dir/gen.mtrace" gen 200
if [ "$mode" = protoc-damaged ]; then
  # damaged NAME EXPECTED: protoc_check must refuse DIR/NAME.pftrace, saying EXPECTED.
  damaged() {
    said=$(protoc_check "$dir/$1.pftrace" "$flows") && fail "the check passed $1"
    echo "$said"
    echo "$said" | grep -q "$2" || fail "the check refused $1 without saying '$2'"
    echo "refused $1, as it must"
  }
  good=$dir/gen.pftrace
  head -c "$(($(wc -c <"$good") - 1))" "$good" >"$dir/cut.pftrace"
  damaged cut "cannot decode"
  # A packet {track_event {flow_ids: 5}} with flow_ids as a varint (key 47 << 3 | 0).
  { cat "$good"; printf '\012\005\132\003\370\002\005'; } >"$dir/wire_type.pftrace"
  damaged wire_type "field 47 in track_event is not in the subset schema"
  # A packet {track_event {flow_ids: 2^63 + 1}}, an id no slice terminates.
  { cat "$good"; printf '\012\014\132\012\371\002\001\000\000\000\000\000\000\200'; } >"$dir/unbound.pftrace"
  damaged unbound "flow 9223372036854775809 is in 1 flow_ids and 0 terminating_flow_ids"
fi
echo "perfetto_exports $mode: ok"
