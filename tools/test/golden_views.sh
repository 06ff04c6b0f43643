#!/bin/bash
# Golden views of SSR runs: every view of each trace in tests/golden must come out byte for byte
# as it did when the fixture was made, so a change to the views that is meant to keep SSR's
# pictures and reports (the language-neutral views) is checked to keep them.
#   golden_views.sh check  MOIRAI BUILD_DIR   render each fixture and compare; then record the
#                                             simulated runs afresh and compare those too
#   golden_views.sh record MOIRAI BUILD_DIR [NAME...]
#                                             (re)make the fixtures (all, or those named) and
#                                             their golden views
# The simulated runs are recorded from a scratch folder through a symlinked build, so their
# command line (drawn in every title) is the same wherever the build is.
set -euo pipefail
mode=$1 moirai=$(realpath "$2") build=$(realpath "$3")
here=$(cd "$(dirname "$0")/../../tests/golden" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# name | app | arguments | fresh: recorded afresh by check (a simulated run whose every unit
# declares its work is the same run each time; the others' small units take their host time)
# matmul_sim4 (format 2) is kept as recorded before issue 13 changed matmul's declared work and
# the compiled-in costs; matmul_sim4_fitted is the same run with them, recorded afresh by check.
runs=(
  "matmul_sim4|matmul|--machine sim:4 --size 96 --pieces 8 --counters none|"
  "matmul_sim4_fitted|matmul|--machine sim:4 --size 96 --pieces 8 --counters none|fresh"
  "producer_consumer_sim2|producer_consumer|--machine sim:2 --producers 2 --consumers 2 --items 12 --counters none|"
  "singleton_demo_sim3|singleton_demo|--machine sim:3 --vps 5 --counters none|"
  "ping_pong_sim2|ping_pong|--machine sim:2 --rounds 6 --counters none|"
)

record_run() {  # name app args -> $scratch/run/<name>.mtrace, with a command line independent of the build
  local name=$1 app=$2 args=$3
  mkdir -p "$scratch/build/release/apps/$app" "$scratch/run/a/b"
  ln -sf "$build/apps/$app/$app" "$scratch/build/release/apps/$app/$app"
  (cd "$scratch/run/a/b" && ../../../build/release/apps/"$app"/"$app" $args --trace "$name.mtrace" >/dev/null)
  mv "$scratch/run/a/b/$name.mtrace" "$scratch/run/$name.mtrace"
}

render() {  # trace outdir: every view the golden set keeps
  local trace=$1 out=$2 name
  name=$(basename "$trace" .mtrace)
  mkdir -p "$out"
  (
    cd "$(dirname "$trace")"
    t=$(basename "$trace")
    "$moirai" scg "$t" -o "$out/$name.scg.svg" >/dev/null
    "$moirai" scg "$t" -o "$out/$name.scg-detail.svg" --overhead detail --arcs create_vp,send_from_to,receive_from_to,send_of_type_to,receive_of_type_to,send_of_type,receive_of_type,singleton,singleton-end >/dev/null
    "$moirai" scg "$t" -o "$out/$name.scg-path.svg" --critical-path >/dev/null
    "$moirai" ucc "$t" -o "$out/$name.ucc.svg" >/dev/null
    "$moirai" ucc "$t" -o "$out/$name.ucc-weighted.svg" --weighted >/dev/null
    "$moirai" report "$t" >"$out/$name.report.txt" 2>/dev/null
    "$moirai" report --json --critical-path "$t" >"$out/$name.report.json" 2>/dev/null
    "$moirai" stats "$t" >"$out/$name.stats.txt" 2>/dev/null
  )
}

compare() {  # golden-dir actual-dir name what [skip: a view measured at each run]
  local status=0 f
  for f in "$1/$3".*; do
    case $f in *.mtrace | *"${5:-/}") continue ;; esac
    if ! cmp -s "$f" "$2/$(basename "$f")"; then
      echo "golden_views: $4: $(basename "$f") differs from its golden copy:"
      diff "$f" "$2/$(basename "$f")" | head -n 12 || true
      status=1
    fi
  done
  return $status
}

case $mode in
  record)
    shift 3
    recorded=0
    for run in "${runs[@]}"; do
      IFS='|' read -r name app args fresh <<<"$run"
      if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
      record_run "$name" "$app" "$args"
      cp "$scratch/run/$name.mtrace" "$here/$name.mtrace"
      render "$here/$name.mtrace" "$here"
      recorded=$((recorded + 1))
    done
    [ $# -gt 0 ] || for trace in "$here"/*.mtrace; do render "$trace" "$here"; done
    echo "golden_views: recorded $recorded fixtures"
    ;;
  check)
    failed=0 views=0
    for trace in "$here"/*.mtrace; do
      name=$(basename "$trace" .mtrace)
      render "$trace" "$scratch/fixture"
      compare "$here" "$scratch/fixture" "$name" "fixture $name.mtrace" || failed=1
      views=$((views + $(ls "$scratch/fixture/$name".* | wc -l)))
    done
    fresh_runs=0
    for run in "${runs[@]}"; do
      IFS='|' read -r name app args fresh <<<"$run"
      [ "$fresh" = fresh ] || continue
      record_run "$name" "$app" "$args"
      render "$scratch/run/$name.mtrace" "$scratch/fresh"
      # stats shows the probe's cost per unit, measured as each run starts
      compare "$here" "$scratch/fresh" "$name" "a fresh recording of $name" .stats.txt || failed=1
      views=$((views + $(ls "$scratch/fresh/$name".* | wc -l) - 1))
      fresh_runs=$((fresh_runs + 1))
    done
    [ $failed -eq 0 ] || exit 1
    echo "golden_views: ok ($views views of $(ls "$here"/*.mtrace | wc -l) fixtures and $fresh_runs fresh recording match)"
    ;;
  *) echo "golden_views: mode must be check or record, not '$mode'" >&2; exit 2 ;;
esac
