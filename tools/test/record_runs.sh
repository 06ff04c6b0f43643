#!/bin/sh
# record_runs.sh MOIRAI CASE TRACE DIR: `moirai record` with a shell standing in for the OpenMP
# tool (it writes $MOIRAI_OMPT_TRACE itself, from TRACE), one case per call; prints what moirai
# printed and what the case checked, and exits with moirai's exit status.
#   environment  the variables the program gets
#   written      a trace written by a program exiting 7: kept byte for byte as -o FILE
#   default_file no -o: PROGRAM's name + .mtrace in the working directory
#   killed       a program killed by SIGKILL after writing (a cut trace): kept, said partial
#   unreadable   what was written is no trace: the old -o FILE stays byte for byte, no temporary is left
moirai=$1 case=$2 trace=$3 dir=$4
mkdir -p "$dir" || exit 1
# leftovers NAME: a temporary `moirai record` left beside NAME (.NAME.moirai-XXXX). Only this case's:
# the cases share DIR and run in parallel, and another case's run may hold its temporary right now.
leftovers() { ls -a "$dir" | grep -q "^\.$1\.moirai-" && echo "temporary files left in $dir"; }
case $case in
  environment)
    "$moirai" record -o "$dir/env.mtrace" --counters perf::TASK-CLOCK -- \
      sh -c 'echo "[$OMP_TOOL_LIBRARIES][$MOIRAI_OMPT_COUNTERS][$MOIRAI_OMPT_COMMAND][$MOIRAI_OMPT_TRACE]"' x 'two words'
    ;;
  written)
    "$moirai" record -o "$dir/written.mtrace" -- sh -c 'cp "$1" "$MOIRAI_OMPT_TRACE" && exit 7' sh "$trace"
    code=$?
    cmp "$trace" "$dir/written.mtrace" && echo "written: the trace, byte for byte"
    exit $code
    ;;
  default_file)
    cd "$dir" && rm -f sh.mtrace || exit 1
    "$moirai" record -- sh -c 'cp "$1" "$MOIRAI_OMPT_TRACE"' sh "$trace"
    code=$?
    cmp "$trace" sh.mtrace && echo "default_file: sh.mtrace in the working directory"
    exit $code
    ;;
  killed)
    "$moirai" record -o "$dir/killed.mtrace" -- sh -c 'cp "$1" "$MOIRAI_OMPT_TRACE" && kill -KILL $$' sh "$trace"
    code=$?
    cmp "$trace" "$dir/killed.mtrace" && echo "killed: the cut trace kept"
    exit $code
    ;;
  unreadable)
    printf 'an older trace\000\001\n' >"$dir/kept.mtrace" && cp "$dir/kept.mtrace" "$dir/kept.orig" || exit 1
    "$moirai" record -o "$dir/kept.mtrace" -- sh -c 'echo junk >"$MOIRAI_OMPT_TRACE"'
    code=$?
    cmp "$dir/kept.orig" "$dir/kept.mtrace" && ! leftovers kept.mtrace && echo "unreadable: the old file kept byte for byte, nothing left over"
    exit $code
    ;;
  *)
    echo "record_runs: no case '$case'" >&2
    exit 64
    ;;
esac
