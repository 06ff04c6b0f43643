# Sourced by the MPI scripts of tools/test (mpi_record.sh, mpi_views.sh): every view and export
# run on one MPI trace, each to exit 0. The sourcing script defines fail MESSAGE (prints its own
# FAIL line and exits 1).

# run_step OUT STEP COMMAND...: runs COMMAND with its output in OUT.STEP.out; a non-zero exit
# prints that output and fails naming STEP, its exit status and COMMAND.
run_step() {
  local out=$1.$2.out step=$2
  shift 2
  "$@" >"$out" 2>&1
  local code=$?
  [ "$code" = 0 ] || { cat "$out"; fail "$step: exit $code ($*)"; }
}

# view_trace MOIRAI TRACE OUT: `stats` (which must name the MPI language), `report`, `scg`, `ucc`
# and `export` (otf2, perfetto, sqlite) on TRACE, each with its output in OUT.STEP.out and its
# file at OUT.scg.svg, OUT.ucc.svg, OUT.otf2, OUT.pftrace, OUT.sqlite.
view_trace() {
  local moirai=$1 trace=$2 out=$3
  run_step "$out" stats "$moirai" stats "$trace"
  grep -q "language: *MPI" "$out.stats.out" || { cat "$out.stats.out"; fail "stats names no MPI"; }
  run_step "$out" report "$moirai" report "$trace"
  run_step "$out" scg "$moirai" scg "$trace" -o "$out.scg.svg"
  run_step "$out" ucc "$moirai" ucc "$trace" -o "$out.ucc.svg"
  run_step "$out" otf2 "$moirai" export "$trace" --format otf2 -o "$out.otf2"
  run_step "$out" perfetto "$moirai" export "$trace" --format perfetto -o "$out.pftrace"
  run_step "$out" sqlite "$moirai" export "$trace" --format sqlite -o "$out.sqlite"
}
