#!/usr/bin/env bash
# Checks a build with the instrumentation points compiled out (MOIRAI_RECORDING=OFF, the
# no-recording preset): the simulated machine still runs there, on the clock points every build
# keeps, and ends at the same virtual time as in a recording build, to the tick; an observer is
# refused with a message that says why. Each check prints "ok: ..."; the last line counts them.
#
#   scripts/test_no_recording.sh [NO_RECORDING_BUILD] [RECORDING_BUILD]
#       (defaults build/no-recording-check, configured here from the no-recording preset without
#        link-time optimisation if absent (the check compares virtual times, never speed, and LTO
#        links cost minutes), and build/release, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
off=${1:-build/no-recording-check}
on=${2:-build/release}
fail() { echo "test_no_recording: FAILED: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }

if [ ! -f "$off/CMakeCache.txt" ]; then
  [ "$off" = build/no-recording-check ] || fail "$off is not a configured build"
  cmake --preset no-recording -B "$off" -DMOIRAI_LTO=OFF >/dev/null
fi
grep -q '^MOIRAI_RECORDING:BOOL=OFF$' "$off/CMakeCache.txt" || fail "$off does not compile the points out (MOIRAI_RECORDING)"
grep -q '^MOIRAI_RECORDING:BOOL=ON$' "$on/CMakeCache.txt" || fail "$on is not a recording build"

# The same simulated run (declared work: deterministic) in both builds, with no observer: SSR's
# matmul, and VSs's Cholesky, whose handlers take lock domains (the handler_domains point).
runs=("matmul --machine sim:4 --size 96 --pieces 8" "cholesky --machine sim:4 --tiles 6 --tile-size 32")
for run in "${runs[@]}"; do
  app=${run%% *}
  cmake --build "$off" -j "$(nproc)" --target "$app" >/dev/null
  [ -x "$on/apps/$app/$app" ] || fail "$on/apps/$app/$app is not built"
done
virtual_time() {  # build app args... -> the run's "virtual time:" line
  local build=$1 app=$2 out
  shift 2
  out=$("$build/apps/$app/$app" "$@") || fail "$build/apps/$app/$app $* exited $?"
  sed -n 's/^virtual time: //p' <<<"$out"
}
for run in "${runs[@]}"; do
  read -r -a words <<<"$run"
  without=$(virtual_time "$off" "${words[@]}")
  with=$(virtual_time "$on" "${words[@]}")
  [ -n "$without" ] || fail "$run: the no-recording run printed no virtual time"
  [ "$without" = "$with" ] || fail "$run: virtual time without the points: $without; with them: $with"
  ok "$run runs with the points compiled out: virtual time $without, as with them"
done

# An observer would see nothing: the run refuses it, saying so.
args=(--machine sim:4 --size 96 --pieces 8)
code=0
message=$("$off/apps/matmul/matmul" "${args[@]}" --trace /dev/null 2>&1 >/dev/null) || code=$?
[ "$code" -ne 0 ] || fail "--trace was accepted with recording compiled out"
grep -q 'recording compiled out' <<<"$message" || fail "--trace was refused without saying why: $message"
ok "--trace is refused with recording compiled out (exit $code: ${message%%$'\n'*})"

echo "test_no_recording: $passed checks passed"
