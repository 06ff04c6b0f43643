#!/bin/sh
# `moirai replay` on recorded runs, its output read by every view: VSs Cholesky and SSR matmul
# recorded on 2 real cores, replayed on sim:16 and on their own sim:2; stats, report, scg, ucc and
# an export of each replay must work, and the replay must say what it did.
#   replay_views.sh MOIRAI CHOLESKY MATMUL DIR
set -u
moirai=$1 cholesky=$2 matmul=$3 dir=$4
fail() { echo "replay_views: FAIL: $*"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
"$cholesky" --cores 2 --tiles 6 --tile-size 32 --counters none --trace "$dir/cholesky.mtrace" >/dev/null || fail "cholesky failed"
"$matmul" --cores 2 --size 192 --pieces 16 --counters none --trace "$dir/matmul.mtrace" >/dev/null || fail "matmul failed"
for run in cholesky matmul; do
  for machine in sim:16 sim:2; do
    out=$dir/$run-${machine#sim:}.mtrace
    "$moirai" replay "$dir/$run.mtrace" --machine "$machine" --trace "$out" >"$out.txt" 2>&1 ||
      fail "replay of $run on $machine: $(cat "$out.txt")"
    grep -q "replayed on $machine, placement [a-z-]*, pinning [a-z]*: [0-9]* units, makespan" "$out.txt" ||
      fail "replay of $run on $machine said: $(cat "$out.txt")"
    "$moirai" stats "$out" >"$out.stats" 2>&1 || fail "stats of $out"
    grep -q "clock: *virtual" "$out.stats" || fail "stats of $out: not a simulated run"
    "$moirai" report "$out" >"$out.report" 2>&1 || fail "report of $out"
    grep -q "^hints" "$out.report" || fail "report of $out has no hints section"
    "$moirai" scg "$out" -o "$out.scg.svg" >/dev/null 2>&1 || fail "scg of $out"
    "$moirai" ucc "$out" -o "$out.ucc.svg" >/dev/null 2>&1 || fail "ucc of $out"
    "$moirai" export "$out" --format sqlite -o "$out.db" >/dev/null 2>&1 || fail "export of $out"
  done
done
# The replayed run keeps the recorded language's words.
grep -q "language: *VSs, 16 cores" "$dir/cholesky-16.mtrace.stats" || fail "the VSs replay is not VSs on 16 cores"
grep -q "language: *SSR, 16 cores" "$dir/matmul-16.mtrace.stats" || fail "the SSR replay is not SSR on 16 cores"
# A replay that fails (its input is no trace) leaves an existing output as it was.
echo earlier >"$dir/kept.mtrace"
"$moirai" replay "$dir/matmul-2.mtrace.txt" --machine sim:2 --trace "$dir/kept.mtrace" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a replay of a text file did not exit 2"
[ "$(cat "$dir/kept.mtrace")" = earlier ] || fail "a failed replay overwrote its output"
echo "replay_views: ok"
