#!/usr/bin/env bash
# The paper's tuning session (section 3.4) on a simulated 40-core machine, made from the command
# lines docs/tuning-walkthrough.md prints: runs every line of its ```sh blocks, as printed, in a
# scratch folder (with the repository's apps/ and docs/ and the build beside it), then
#   (default)  copies each step's SCG and report into docs/walkthrough/ and writes the doc's
#              generated parts (the table of makespans and hints, the replay quotes) from them;
#   --check    fails where the doc drifted from what its commands print today: a picture or
#              report that differs, a generated part that is stale, or a figure the text quotes
#              (a hint, a time, a unit, a share of the run) that no report of its step shows.
# Usage: scripts/walkthrough.sh [--check] [--build DIR]   (default: builds the release preset)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=0 build=
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=1 ;;
    --build) build=${2:?--build needs a folder}; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "walkthrough: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$build" ]; then
  scripts/build.sh release >/dev/null
  build=build/release
fi
build=$(realpath "$build")
for tool in apps/matmul/matmul tools/moirai; do
  [ -x "$build/$tool" ] || { echo "walkthrough: $build/$tool is not built" >&2; exit 2; }
done
doc=docs/tuning-walkthrough.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The doc's lines name build/release/...: doc_commands.sh runs them where build/release is the build
# in use, so every command line a trace records reads the same wherever the build is.
DOC_COMMANDS_KEEP=$scratch/run bash tools/test/doc_commands.sh "$doc" "$root" "$build/tools/moirai" >"$scratch/log" 2>&1 ||
  { cat "$scratch/log" >&2; echo "walkthrough: $doc: a command line failed as printed" >&2; exit 1; }
count=$(grep -c '^\$ ' "$scratch/log")
made=$scratch/run/walkthrough
kept=(h-results-last-report.txt)  # (h)'s comparison run: its report, no picture
for step in a b c d e f g h; do kept+=("$step-scg.svg" "$step-report.txt"); done
for file in "${kept[@]}"; do
  [ -s "$made/$file" ] || { echo "walkthrough: the doc's commands made no walkthrough/$file" >&2; exit 1; }
done

if [ "$check" = 0 ]; then
  for file in "${kept[@]}"; do cp "$made/$file" docs/walkthrough/; done
  python3 scripts/walkthrough_figures.py write "$doc" "$made"
  echo "walkthrough: $count command lines of $doc ran; docs/walkthrough/{a..h}-scg.svg and reports copied, its generated parts rewritten"
  exit 0
fi
status=0
for file in "${kept[@]}"; do
  if ! cmp -s "$made/$file" "docs/walkthrough/$file"; then
    echo "walkthrough: docs/walkthrough/$file differs from what the doc's commands make now (bash scripts/walkthrough.sh remakes it)" >&2
    status=1
  fi
done
python3 scripts/walkthrough_figures.py check "$doc" "$made" || status=1
[ "$status" = 0 ] && echo "walkthrough: $count command lines of $doc ran; its pictures, reports and figures match"
exit "$status"
