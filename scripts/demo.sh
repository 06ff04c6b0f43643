#!/usr/bin/env bash
# The main job: set up, build, run the paper's matrix multiply on all cores, verified and
# recorded, then draw its Scheduling Consequence Graph (matmul-scg.svg) and its Unit & Constraint
# Collection (matmul-ucc.svg), and print the report of what caused the lost time.
# Extra arguments go to matmul (see build/release/apps/matmul/matmul --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
build/release/apps/matmul/matmul --check --trace matmul.mtrace "$@"
build/release/tools/moirai scg matmul.mtrace -o matmul-scg.svg
build/release/tools/moirai ucc matmul.mtrace -o matmul-ucc.svg
build/release/tools/moirai report matmul.mtrace
