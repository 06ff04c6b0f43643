#!/bin/bash
# Stops a recording matmul mid-run with SIGNAL once it has reported its first piece, and leaves
# its trace at TRACE.
#   KILL: once the trace file holds units of both cores (read with `moirai stats`, as a tool
#         reading a running program's trace would: the recorder writes records out within
#         100 ms, but a loaded machine may run its writer late); prints how many pieces were
#         done. The CTests then run every moirai command on the partial trace.
#   INT, TERM: prints the exit status a shell sees (130, 143), then `moirai stats` and
#         `moirai report` of the trace, which must be complete and say the run was interrupted.
#   stopped_run.sh MATMUL TRACE SIGNAL MOIRAI
set -u
matmul=$1 trace=$2 signal=$3 moirai=$4
# Job control: without it a background job of a non-interactive shell ignores SIGINT.
set -m
rm -f "$trace" "$trace.out"
# The results VP gets a core without workers, so it reports each piece as it is done.
"$matmul" --size 1920 --pieces 64 --cores 2 --placement dedicated-creator --results-core 0 \
  --counters none --progress --trace "$trace" >"$trace.out" &
pid=$!
tries=0
until grep -q "done at" "$trace.out" 2>/dev/null; do
  tries=$((tries + 1))
  if [ "$tries" -gt 1200 ]; then echo "stopped_run.sh: matmul reported no piece in 120 s" >&2; kill -9 "$pid"; exit 1; fi
  sleep 0.1
done
if [ "$signal" = KILL ]; then
  until "$moirai" stats "$trace" --json 2>/dev/null | python3 -c \
      'import json, sys; cores = json.load(sys.stdin)["per_core"]; sys.exit(not (len(cores) >= 2 and all(c["units"] > 0 for c in cores)))'; do
    tries=$((tries + 1))
    if [ "$tries" -gt 1200 ]; then echo "stopped_run.sh: no units of both cores in the trace in 120 s" >&2; kill -9 "$pid"; exit 1; fi
    sleep 0.1
  done
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  echo "killed after $(grep -c "done at" "$trace.out") pieces"
  exit 0
fi
kill "-$signal" "$pid"
wait "$pid"
echo "exit status: $?"
"$moirai" stats "$trace" && "$moirai" report "$trace"
