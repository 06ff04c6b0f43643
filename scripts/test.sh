#!/usr/bin/env bash
# Set up, build and run every test: the release build, then the whole suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer (VP stack switches are annotated for ASan).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for preset in release sanitize; do
  echo "== tests: $preset build"
  scripts/build.sh "$preset"
  ctest --preset "$preset" -j 2
done
