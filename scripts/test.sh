#!/usr/bin/env bash
# Set up, build and run every test: the release build (GCC), then its install with the example
# built against it (GCC, clang, pkg-config: scripts/test_install.sh), then the whole suite again
# built by clang under AddressSanitizer + UndefinedBehaviorSanitizer (VP stack switches are
# annotated for ASan), then a bounded libFuzzer run on the trace reader. After the release build,
# the no-recording preset's matmul on the simulated machine (scripts/test_no_recording.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
passed=0
# counted NAME COMMAND...: runs a check script and adds the checks its last line
# ("NAME: N checks passed") counts.
counted() {
  local name=$1 log count
  shift
  log=$(mktemp)
  "$@" | tee "$log"
  count=$(sed -n "s/^$name: \([0-9]*\) checks passed\$/\1/p" "$log")
  rm -f "$log"
  passed=$((passed + ${count:-0}))
}
for preset in release sanitize; do
  echo "== tests: $preset build"
  scripts/build.sh "$preset"
  # Which counter backend the counter tests exercise on this machine (PAPI, or the kernel's).
  # (sed reads the whole list: head would end matmul with SIGPIPE, which pipefail turns into a failure)
  [ "$preset" = release ] && build/release/apps/matmul/matmul --counters list | sed -n 1p
  log=$(mktemp)
  ctest --preset "$preset" -j 2 | tee "$log"
  count=$(sed -n 's/^100% tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$log")
  rm -f "$log"
  passed=$((passed + ${count:-0}))
  if [ "$preset" = release ]; then
    echo "== tests: install, and the example built against it"
    counted test_install scripts/test_install.sh build/release
    echo "== tests: the simulated machine with the instrumentation points compiled out"
    counted test_no_recording scripts/test_no_recording.sh build/no-recording-check build/release
  fi
done
echo "== fuzz: the trace reader"
scripts/fuzz.sh 60
echo "tests: $((passed + 1)) passed, 0 failed"  # the two suites, the install and no-recording checks, the fuzz run
