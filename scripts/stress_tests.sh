#!/usr/bin/env bash
# stress_tests.sh: runs the test suite several times in a row while every processing unit is kept
# busy by another process, so that a test that waits for a time instead of a state, or asserts a
# timing, fails here rather than on a newcomer's loaded machine.
set -u

usage() {
  cat <<'EOF'
usage: scripts/stress_tests.sh [options] [-- CTEST_ARGS...]

Runs ctest on a build N times in a row while one busy loop per processing unit (pinned to it)
keeps every core busy. The busy loops are started by this script and always killed when it ends,
whether the runs pass, fail or the script is interrupted. Each run's failing tests are listed;
the exit status is 1 if any run failed, 0 if every run passed.

options:
  --runs N          how many runs in a row (default 5)
  --build DIR       the build folder to test (default build/release)
  --label L         run only the tests with CTest label L (ctest -L L), e.g. real_cores
  --exclude-label L leave out the tests with label L (ctest -LE L)
  -j N              tests ctest runs at once (default 2, as the README's test command)
  --no-load         run without the busy loops (to compare)
  -h, --help        this text

CTEST_ARGS after -- go to every ctest call as they are (e.g. -R Report).
Examples:
  scripts/stress_tests.sh                       # the release suite, 5 loaded runs
  scripts/stress_tests.sh --label real_cores --runs 20
EOF
}

runs=5
build=build/release
jobs=2
load=1
filter=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="${2:-}"; shift 2 ;;
    --runs=*) runs="${1#*=}"; shift ;;
    --build) build="${2:-}"; shift 2 ;;
    --build=*) build="${1#*=}"; shift ;;
    --label) filter+=(-L "${2:-}"); shift 2 ;;
    --label=*) filter+=(-L "${1#*=}"); shift ;;
    --exclude-label) filter+=(-LE "${2:-}"); shift 2 ;;
    --exclude-label=*) filter+=(-LE "${1#*=}"); shift ;;
    -j) jobs="${2:-}"; shift 2 ;;
    --no-load) load=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "stress_tests.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "stress_tests.sh: --runs wants a positive whole number, got '$runs'" >&2; exit 2 ;; esac
case "$jobs" in ''|*[!0-9]*|0) echo "stress_tests.sh: -j wants a positive whole number, got '$jobs'" >&2; exit 2 ;; esac
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "stress_tests.sh: '$build' is not a configured build folder (no CTestTestfile.cmake); build it first (README)" >&2
  exit 2
fi

set -m  # each background job in a process group of its own
busy=()
tests=""
stop_load() {
  local pid
  # ctest runs in a process group of its own (set -m): the tests it started go with it.
  [ -n "$tests" ] && kill -TERM -- "-$tests" 2>/dev/null
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null; done
  busy=()
}
trap stop_load EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$load" = 1 ]; then
  units=$(nproc --all)
  for ((cpu = 0; cpu < units; ++cpu)); do
    # taskset execs the loop in place, so $! is the loop itself and kill reaches it.
    taskset -c "$cpu" sh -c 'while :; do :; done' &
    busy+=($!)
  done
  echo "stress_tests.sh: ${#busy[@]} busy loops, one per processing unit (pids ${busy[*]})"
fi

log_dir=$(mktemp -d "${TMPDIR:-/tmp}/stress_tests.XXXXXX")
failed_runs=0
for ((run = 1; run <= runs; ++run)); do
  log="$log_dir/run$run.log"
  start=$(date +%s)
  # In the background: a signal to this script runs its trap at once, not after the run.
  ctest --test-dir "$build" -j "$jobs" --output-on-failure "${filter[@]}" "${extra[@]}" >"$log" 2>&1 &
  tests=$!
  wait "$tests"
  status=$?
  tests=""
  seconds=$(($(date +%s) - start))
  summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1)
  if [ "$status" = 0 ]; then
    echo "run $run/$runs: passed in ${seconds} s (${summary:-no summary})"
  else
    failed_runs=$((failed_runs + 1))
    echo "run $run/$runs: FAILED in ${seconds} s (${summary:-no summary}); log: $log"
    # ctest's closing list names each failed test: "  123 - name (Failed)".
    sed -n '/^The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
      sed 's/^[[:space:]]*/  failed: /'
  fi
done
stop_load
if [ "$failed_runs" = 0 ]; then
  echo "stress_tests.sh: $runs of $runs runs passed$([ "$load" = 1 ] && echo ' under load')"
  rm -rf "$log_dir"
  exit 0
fi
echo "stress_tests.sh: $failed_runs of $runs runs failed (logs in $log_dir)"
exit 1
