#!/bin/sh
# Issue 26's acceptance: OpenMP runs recorded by `moirai record` and read by every command.
# omp_cholesky (T = 4: 20 tasks, with depend clauses) and omp_fib (task + taskwait) on 2 OpenMP
# threads, each recorded, then on each trace:
#   moirai stats     the unit count, the OpenMP constructs' constraints (cholesky: 20 task and its
#                    depend constraints; fib: task and taskwait), nothing dropped
#   moirai report    a makespan and a hints section
#   moirai scg/ucc   an SVG that xmllint reads
#   moirai export    sqlite, perfetto-json, perfetto (protobuf) and otf2, each read back by its
#                    own tool against the unit and constraint counts (export_checks.sh)
#   record_openmp_views.sh MOIRAI CHOLESKY FIB DIR CHECK
# Ends with "record_openmp_views: ok" (exit 0), or a FAIL line (exit 1).
set -u
moirai=$1 cholesky=$2 fib=$3 dir=$4 checker=$5
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "record_openmp_views: FAIL: $*"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir" || fail "cannot create $dir"

# views NAME STATS_MATCH PROGRAM ARGS...: record, then every command on the trace.
views() {
  name=$1 expected=$2
  shift 2
  trace=$dir/$name.mtrace
  said=$(OMP_NUM_THREADS=2 "$moirai" record -o "$trace" -- "$@" 2>&1) || fail "moirai record $name: $said"
  echo "$said" | grep "^moirai record:"
  echo "$said" | grep -q "wrote $trace: [1-9][0-9]* units on 2 cores" || fail "moirai record $name wrote no trace on 2 cores: $said"
  "$moirai" stats "$trace" >"$dir/$name.stats" || fail "moirai stats $name"
  grep "^constraints:" "$dir/$name.stats"
  grep -q "^language: *OpenMP, 2 cores" "$dir/$name.stats" || fail "$name: not an OpenMP trace on 2 cores"
  grep -Eq "^constraints: .*$expected" "$dir/$name.stats" || fail "$name: the constraints are not '$expected'"
  grep -q " 0 events dropped" "$dir/$name.stats" || fail "$name: events dropped"
  "$moirai" report "$trace" >"$dir/$name.report" || fail "moirai report $name"
  grep -q "^makespan: .* on 2 cores" "$dir/$name.report" && grep -q "^hints" "$dir/$name.report" ||
    fail "$name: the report has no makespan or no hints section"
  for view in scg ucc; do
    "$moirai" $view "$trace" -o "$dir/$name-$view.svg" || fail "moirai $view $name"
    xmllint --noout "$dir/$name-$view.svg" || fail "$name-$view.svg is no well-formed SVG"
    grep -q "<svg" "$dir/$name-$view.svg" || fail "$name-$view.svg has no <svg> element"
  done
  echo "$name: stats, report, scg and ucc read it"
  sh "$here/export_checks.sh" "$moirai" "$trace" "$dir/$name-export" "$checker" || fail "the exports of $name"
}

views cholesky "depend: [1-9][0-9]* .*task: 20( |$)" "$cholesky" --tiles 4 --tile-size 32 --gate --check
views fib "task: [1-9][0-9]* .*taskwait: [1-9][0-9]*" "$fib" --n 20 --cutoff 8 --check
echo "record_openmp_views: ok"
