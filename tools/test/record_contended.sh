#!/usr/bin/env bash
# Records a run whose two cores waited for the runtime lock, for the fit's contended test:
# grain-too-fine on 2 real cores, run again until one shows a lock wait. A run in which one
# core's worker starts only after the other's ended has no lock wait to measure: the host ran
# that core's vCPU late (about one run in fifty on a quiet machine), or another process held one
# of the CPUs for the whole run (most runs under two busy loops, where each core thread gets its
# CPU in time slices of a few ms and a run lasts about as long). That is the machine, not the
# fit, so the next run is taken; the bound only turns "never" into a failure (a run takes tens of
# ms alone, up to 2 s under two busy loops, so 100 of them fit the test's 300 s limit).
#
#   record_contended.sh SCENARIOS MOIRAI TRACE
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: record_contended.sh SCENARIOS MOIRAI TRACE" >&2; exit 2; }
scenarios=$1 moirai=$2 trace=$3
runs=100
for ((attempt = 1; attempt <= runs; ++attempt)); do
  "$scenarios" --scenario grain-too-fine --cores 2 --counters none --trace "$trace" >/dev/null
  waited=$("$moirai" stats "$trace" --json | python3 -c \
    'import json, sys; print(sum(c["lock_wait_s"] for c in json.load(sys.stdin)["per_core"]) > 0)')
  if [[ "$waited" == True ]]; then
    echo "record_contended: run $attempt waited for the lock"
    exit 0
  fi
done
echo "record_contended: $runs runs of grain-too-fine on 2 cores and none waited for the lock" >&2
exit 1
