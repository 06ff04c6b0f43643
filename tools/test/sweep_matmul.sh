#!/bin/sh
# A real sweep of matmul on real cores: two piece counts that run and one (0) that matmul
# rejects. Checks the sweep goes on past the failure, the CSV has one plausible row per value,
# the plot and the SCGs exist, and every SCG is drawn at the one scale; then --repeat 3.
#   sweep_matmul.sh MOIRAI MATMUL DIR
set -u
moirai=$1 matmul=$2 dir=$3
fail() { echo "sweep_matmul: FAIL: $*"; exit 1; }
rm -rf "$dir"

"$moirai" sweep --param pieces=4,0,8 --out "$dir" -- "$matmul" --size 192 --cores 2 --counters none \
  --pieces '{pieces}' >"$dir.stdout" 2>"$dir.stderr"
code=$?
cat "$dir.stdout" "$dir.stderr"
[ "$code" = 0 ] || fail "exit $code, expected 0 (two of three values run)"
grep -q "failed: pieces=0 (exit 2" "$dir.stdout" || fail "the failing value is not reported on stdout"
grep -q -- "--pieces: 0 is out of range" "$dir.stderr" || fail "the failing run's stderr is not shown"
grep -q "^best: pieces=[48] " "$dir.stdout" || fail "no best value named"
if grep -q "$(printf '\033')" "$dir.stderr"; then fail "terminal escapes on a stderr that is no terminal"; fi
grep -q "^sweep: \[3/3\] pieces=8: makespan " "$dir.stderr" || fail "no plain progress line"

csv=$dir/sweep.csv
[ -f "$csv" ] || fail "no $csv"
[ "$(wc -l <"$csv")" = 4 ] || fail "$csv: expected a header and 3 rows"
head -1 "$csv" | grep -q "^pieces,status,makespan_ms,work_pct,overhead_pct,idle_pct,units,mean_unit_us," || fail "bad CSV header"
# Columns 1-10 hold no commas; the quoted hint message comes after them.
awk -F, 'NR == 1 { next }
  $1 == 0 { if ($2 != "failed: exit 2") { print "row 0: status " $2; bad = 1 }; next }
  {
    if ($2 != "ok") { print "row " $1 ": status " $2; bad = 1 }
    if (!($3 > 0 && $3 < 10000)) { print "row " $1 ": makespan " $3; bad = 1 }
    # Work and overhead are measured, idle is the rest of makespan x cores.
    if (!($4 > 0 && $5 > 0 && $4 + $5 <= 100.01 && $6 >= 0 && $4 + $5 + $6 > 99.9)) { print "row " $1 ": shares " $4 "/" $5 "/" $6; bad = 1 }
    if (!($8 > 0 && $8 * $7 / 1000 <= $3 * 2)) { print "row " $1 ": mean unit " $8 " us x " $7 " units"; bad = 1 }
    units[$1] = $7
  }
  END {
    if (units[4] == "" || units[8] == "") { print "rows 4 and 8 missing"; bad = 1 }
    else if (!(units[8] > units[4])) { print "8 pieces gave no more units than 4"; bad = 1 }
    exit bad
  }' "$csv" || fail "$csv has implausible numbers"

grep -q "<svg" "$dir/sweep.svg" || fail "no plot"
grep -q "makespan (left axis)" "$dir/sweep.svg" || fail "the plot has no legend"
for v in 4 8; do
  [ -f "$dir/pieces-$v.mtrace" ] || fail "no trace for $v"
  grep -q "<svg" "$dir/pieces-$v-scg.svg" || fail "no SCG for $v"
done
[ ! -e "$dir/pieces-0-scg.svg" ] || fail "an SCG for the failed value"
scales=$(grep -ho "scale: [^<]* per point" "$dir"/pieces-*-scg.svg | sort -u)
[ "$(echo "$scales" | wc -l)" = 1 ] || fail "the SCGs are at different scales: $scales"
echo "one scale: $scales"

"$moirai" sweep --param pieces=4,8 --repeat 3 --scale 5000 --out "$dir/r" -- "$matmul" --size 96 --cores 2 --counters none \
  --pieces '{pieces}' --trace '{trace}' >"$dir.r.stdout" 2>&1 || fail "--repeat 3 exit $?"
cat "$dir.r.stdout"
grep -q "each the median of 3 runs" "$dir.r.stdout" || fail "--repeat is not said"
[ "$(ls "$dir/r"/pieces-*-r*.mtrace | wc -l)" = 6 ] || fail "--repeat 3 over 2 values: expected 6 traces"
[ "$(grep -c ",ok,.*,3,3," "$dir/r/sweep.csv")" = 2 ] || fail "expected 3 of 3 runs ok per value"
[ "$(grep -l "scale: 5000 cycles per point" "$dir/r"/pieces-*-scg.svg | wc -l)" = 2 ] || fail "--scale 5000 is not every SCG's scale"
echo "sweep_matmul: ok"
