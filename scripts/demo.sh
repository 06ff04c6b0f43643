#!/usr/bin/env bash
# The main job: set up, build, and run the paper's matrix multiply on all cores, verified.
# Extra arguments go to matmul (see build/release/apps/matmul/matmul --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
build/release/apps/matmul/matmul --check "$@"
