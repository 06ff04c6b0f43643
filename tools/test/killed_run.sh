#!/bin/sh
# Kills a recording run with SIGKILL after a second and prints `moirai stats` of what it left:
# every complete chunk must read, and the summary must say where the trace was cut.
#   killed_run.sh PING_PONG MOIRAI TRACE
set -u
ping_pong=$1 moirai=$2 trace=$3
rm -f "$trace"
"$ping_pong" --rounds 100000000 --counters none --trace "$trace" >/dev/null &
pid=$!
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null
exec "$moirai" stats "$trace"
