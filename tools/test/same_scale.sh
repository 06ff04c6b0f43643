#!/usr/bin/env sh
# Two matmul runs of different length; the smaller drawn `--same-scale-as` the bigger must have
# the bigger's time per point. Each legend gives ticks of its own trace's clock, whose rate each
# run measures for itself (the TSC's, to a few parts in a million), so the ticks per point may
# differ in their last digit: the check compares seconds per point.
#
#   same_scale.sh MATMUL MOIRAI SCRATCH
set -eu
[ $# -eq 3 ] || { echo "usage: same_scale.sh MATMUL MOIRAI SCRATCH" >&2; exit 2; }
matmul=$1 moirai=$2 t=$3
"$matmul" --cores 2 --size 96 --pieces 8 --counters none --trace "$t.small" >/dev/null
"$matmul" --cores 2 --size 192 --pieces 8 --counters none --trace "$t.big" >/dev/null
"$moirai" scg "$t.big" -o "$t.big.dot" -T dot >/dev/null
"$moirai" scg "$t.small" -o "$t.small.dot" -T dot --same-scale-as "$t.big" >/dev/null
seconds_per_point() {  # trace dot
  ticks=$(grep -o 'scale: [0-9.e+]* [a-z]* per point' "$2" | awk '{print $2}')
  hz=$("$moirai" stats "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["clock_hz"])')
  [ -n "$ticks" ] || { echo "same_scale: no scale in $2" >&2; exit 1; }
  python3 -c "print($ticks / $hz)"
}
a=$(seconds_per_point "$t.big" "$t.big.dot")
b=$(seconds_per_point "$t.small" "$t.small.dot")
echo "seconds per point: $a / $b"
# The legend rounds the ticks to 4 digits.
python3 -c "import sys; sys.exit(0 if abs($a - $b) <= 1e-3 * $a else 1)" || { echo "same_scale: the scales differ" >&2; exit 1; }
echo "same scale"
