#!/usr/bin/env bash
# Records a run whose two cores waited for the runtime lock, for the fit's contended test:
# grain-too-fine on 2 real cores, up to 5 runs. A run in which one core's worker starts only
# after the other's ended (the host ran that core's vCPU late: it happens in about one run of
# fifty here) has no lock wait to measure; that is the host, not the fit, so the next run is taken.
#
#   record_contended.sh SCENARIOS MOIRAI TRACE
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: record_contended.sh SCENARIOS MOIRAI TRACE" >&2; exit 2; }
scenarios=$1 moirai=$2 trace=$3
for attempt in 1 2 3 4 5; do
  "$scenarios" --scenario grain-too-fine --cores 2 --counters none --trace "$trace" >/dev/null
  waited=$("$moirai" stats "$trace" --json | python3 -c \
    'import json, sys; print(sum(c["lock_wait_s"] for c in json.load(sys.stdin)["per_core"]) > 0)')
  if [[ "$waited" == True ]]; then
    echo "record_contended: run $attempt waited for the lock"
    exit 0
  fi
  echo "record_contended: run $attempt had no lock wait (its cores did not overlap); again" >&2
done
echo "record_contended: 5 runs of grain-too-fine on 2 cores and none waited for the lock" >&2
exit 1
