#!/bin/sh
# The acceptance run of `moirai export`: matmul on 2 real cores, recorded, then exported to all
# three formats, each read back by its own tool (export_checks.sh says how).
#   export_matmul.sh MOIRAI MATMUL DIR
set -u
moirai=$1 matmul=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "export_matmul: FAIL: $*"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
trace=$dir/t.mtrace
"$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$trace" >/dev/null || fail "matmul failed"
sh "$here/export_checks.sh" "$moirai" "$trace" "$dir" || fail "the exports"
echo "export_matmul: ok"
