#!/usr/bin/env bash
# Fuzzes the trace reader with libFuzzer (clang, ASan + UBSan) for a bounded time, starting from
# the committed corpus: scripts/fuzz.sh [SECONDS] (default 60). Fails on any finding; the
# crashing input is left in build/fuzz/ and named in the output.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
case "$seconds" in (''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2;; esac
out=build/fuzz
mkdir -p "$out/corpus"
clang++-16 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
  -Itrace/include -Icore/include tests/fuzz/trace_reader_fuzz.cpp \
  trace/src/*.cpp -lz \
  -o "$out/trace_reader_fuzz"
# New inputs go to the scratch corpus; the committed seeds are read only.
(cd "$out" && ./trace_reader_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus ../../tests/fuzz/corpus/trace_reader 2>&1 | tail -15)
echo "fuzz: trace reader ran ${seconds} s without findings"
