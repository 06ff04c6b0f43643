#!/usr/bin/env bash
# The constraints of known patterns (apps/mpi/patterns.cpp) in traces recorded by `moirai record`
# on 4 ranks, read from the SQLite export (each constraint's freeing and freed unit's core = world rank):
#   mpi_patterns.sh MOIRAI DIR -- LAUNCHER ARGS... PATTERNS
# ring: per step exactly one send r -> r+1 for every rank; halo2d (2 x 2 grid): each rank's row and
# column neighbour; waitany (Waitany/Waitsome at rank 0), wildcard (ANY_SOURCE, ANY_TAG at rank 0):
# one send from each other rank per step; split (Comm_split by rank / 2): world 1 -> 0 and 3 -> 2;
# collectives: every kind is a constraint, a broadcast and a scatter freed by the root (rank 0).
# Exit status 0 passed, 1 failed.
set -u
moirai=$1 dir=$2
shift 2
[ "${1:-}" = "--" ] && shift
steps=3
fail() { echo "mpi_patterns: FAIL: $*"; exit 1; }
mkdir -p "$dir" || fail "cannot make $dir"
# pairs PATTERN: "from|to|count" lines of the pattern's sends (its own trace), sorted.
pairs() {
  sqlite3 "$dir/$1.sqlite" "select f.core, t.core, count(*) from constraints c join constructs k on k.kind = c.construct
    join units f on f.unit = c.from_unit join units t on t.unit = c.to_unit where k.name in ('send', 'sendrecv')
    group by f.core, t.core order by f.core, t.core"
}
record() {
  local pattern=$1 trace=$dir/$1.mtrace code
  shift
  rm -rf "$dir/$pattern".*
  "$moirai" record -o "$trace" -- "$@" --pattern "$pattern" --steps $steps >"$dir/$pattern.out" 2>&1
  code=$?
  [ "$code" = 0 ] || { cat "$dir/$pattern.out"; fail "$pattern: moirai record: exit $code"; }
  "$moirai" export "$trace" --format sqlite -o "$dir/$pattern.sqlite" >>"$dir/$pattern.out" 2>&1
  code=$?
  [ "$code" = 0 ] || { cat "$dir/$pattern.out"; fail "$pattern: export: exit $code"; }
}
expect_pairs() {
  local pattern=$1 expected=$2 got
  got=$(pairs "$pattern" | tr '\n' ' ')
  [ "$got" = "$expected" ] || fail "$pattern: sends (from|to|count) are '$got', not '$expected'"
  echo "mpi_patterns: $pattern: $got"
}
for pattern in ring halo2d waitany wildcard split collectives; do
  record "$pattern" "$@"
done
expect_pairs ring "0|1|$steps 1|2|$steps 2|3|$steps 3|0|$steps "
expect_pairs halo2d "0|1|$steps 0|2|$steps 1|0|$steps 1|3|$steps 2|0|$steps 2|3|$steps 3|1|$steps 3|2|$steps "
expect_pairs waitany "1|0|$steps 2|0|$steps 3|0|$steps "
expect_pairs wildcard "1|0|$steps 2|0|$steps 3|0|$steps "
expect_pairs split "1|0|$steps 3|2|$steps "
kinds=$(sqlite3 "$dir/collectives.sqlite" "select distinct k.name from constraints c join constructs k on k.kind = c.construct order by 1" | tr '\n' ' ')
for kind in barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter scan; do
  case " $kinds" in *" $kind "*) ;; *) fail "collectives: no $kind constraint (kinds: $kinds)" ;; esac
done
roots=$(sqlite3 "$dir/collectives.sqlite" "select distinct f.core from constraints c join constructs k on k.kind = c.construct
  join units f on f.unit = c.from_unit where k.name in ('bcast', 'scatter')")
[ "$roots" = 0 ] || fail "collectives: a broadcast or scatter freed by core(s) '$roots', not the root 0"
echo "mpi_patterns: collectives: $kinds; broadcasts and scatters freed by rank 0"
echo "mpi_patterns: ok"
