#!/bin/sh
# The Perfetto JSON export read by a real importer: Chrome DevTools' trace engine (the npm package
# @paulirish/trace_engine, pinned with its dependencies in perfetto_devtools/package-lock.json and
# installed into DIR with `npm ci`) loads the export of a recorded matmul and of a generated trace
# and must bind every flow at both ends to unit slices and hold every slice
# (perfetto_devtools/check_flows.mjs); the counts are the ones `moirai export` printed.
#   perfetto_devtools.sh MOIRAI MATMUL GEN_TRACE DIR
# Exit status 0 passed, 1 failed, 77 skipped (no node or npm here, said).
set -u
moirai=$1 matmul=$2 gen=$3 dir=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "perfetto_devtools: FAIL: $*"; exit 1; }
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "perfetto_devtools: skipped: node and npm are needed"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
cp "$here/perfetto_devtools/package.json" "$here/perfetto_devtools/package-lock.json" "$here/perfetto_devtools/check_flows.mjs" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci could not install @paulirish/trace_engine"

# check TRACE NAME: export the trace as Perfetto JSON, then load it in the engine.
check() {
  printed=$("$moirai" export "$1" --format perfetto-json -o "$dir/$2.json") || fail "export of $1"
  echo "$printed"
  units=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\1/p')
  flows=$(echo "$printed" | sed -n 's/.*, \([0-9]*\) units, \([0-9]*\) flows,.*/\2/p')
  [ -n "$units" ] && [ -n "$flows" ] || fail "no counts in: $printed"
  node "$dir/check_flows.mjs" "$dir/$2.json" "$units" "$flows" || fail "the DevTools trace engine's reading of $2"
}
"$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$dir/matmul.mtrace" >/dev/null || fail "matmul failed"
check "$dir/matmul.mtrace" matmul
"$gen" --units 20000 --cores 4 --counters -o "$dir/gen.mtrace" || fail "moirai-gen-trace failed"
check "$dir/gen.mtrace" gen
echo "perfetto_devtools: ok"
