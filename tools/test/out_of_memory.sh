#!/bin/bash
# Runs an app that cannot fit in LIMIT KiB of address space (ulimit -v) with --trace TRACE, prints
# its exit status and what it said, then `moirai stats` of its trace: the app must say it ran out
# of memory and exit 1 (never SIGABRT; a hang is CTest's TIMEOUT), and its trace must read, holding
# the run until it failed.
#   out_of_memory.sh LIMIT TRACE MOIRAI APP ARGS...
set -u
limit=$1 trace=$2 moirai=$3
shift 3
rm -f "$trace"
(ulimit -v "$limit" && exec "$@" --trace "$trace") >"$trace.out" 2>"$trace.err"
echo "exit status: $?"
grep -v "^moirai: counter" "$trace.err"
"$moirai" stats "$trace"
