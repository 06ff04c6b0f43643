#!/bin/sh
# The Perfetto exports read by something other than their writer, on a recorded matmul and on a
# generated trace, against the counts `moirai export` printed:
#   proto     `--format perfetto` (100,000 generated units) read by the export tests' strict
#             reader (tests/perfetto_trace_check.cpp): no error the trace processor would meet,
#             every unit slice, every flow bound at both ends to unit slices; the generated
#             trace at most 200 bytes per unit.
#   devtools  `--format perfetto-json` (20,000 generated units) loaded by Chrome DevTools' own
#             trace engine (npm @paulirish/trace_engine, pinned with its dependencies in
#             perfetto_devtools/package-lock.json, installed into DIR by `npm ci`): every slice in
#             its thread's tree, every flow bound at both ends to unit slices
#             (perfetto_devtools/check_flows.mjs).
#   perfetto_exports.sh proto MOIRAI MATMUL GEN_TRACE DIR CHECK
#   perfetto_exports.sh devtools MOIRAI MATMUL GEN_TRACE DIR
# Exit status 0 passed, 1 failed, 77 skipped (devtools without node or npm, said).
set -u
mode=$1 moirai=$2 matmul=$3 gen=$4 dir=$5 checker=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "perfetto_exports $mode: FAIL: $*"; exit 1; }
case $mode in
  proto) format=perfetto extension=pftrace generated=100000 ;;
  devtools) format=perfetto-json extension=json generated=20000 ;;
  *) echo "usage: perfetto_exports.sh proto|devtools MOIRAI MATMUL GEN_TRACE DIR [CHECK]"; exit 2 ;;
esac
if [ "$mode" = devtools ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  echo "perfetto_exports devtools: skipped: node and npm are needed"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
if [ "$mode" = devtools ]; then
  cp "$here/perfetto_devtools/package.json" "$here/perfetto_devtools/package-lock.json" "$here/perfetto_devtools/check_flows.mjs" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci could not install @paulirish/trace_engine"
fi

# check TRACE NAME [MAX_BYTES_PER_UNIT]: export, then read back with the counts printed.
check() {
  printed=$("$moirai" export "$1" --format "$format" -o "$dir/$2.$extension") || fail "export of $1"
  echo "$printed"
  units=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\1/p')
  flows=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\2/p')
  [ -n "$units" ] && [ -n "$flows" ] || fail "no counts in: $printed"
  if [ "$mode" = proto ]; then
    "$checker" "$dir/$2.$extension" "$units" "$flows" ${3:-} || fail "the strict reading of $2"
  else
    node "$dir/check_flows.mjs" "$dir/$2.$extension" "$units" "$flows" || fail "the DevTools trace engine's reading of $2"
  fi
}
"$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$dir/matmul.mtrace" >/dev/null || fail "matmul failed"
check "$dir/matmul.mtrace" matmul
"$gen" --units "$generated" --cores 8 --counters -o "$dir/gen.mtrace" || fail "moirai-gen-trace failed"
check "$dir/gen.mtrace" gen 200
echo "perfetto_exports $mode: ok"
