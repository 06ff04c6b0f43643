#!/usr/bin/env bash
# What the MPI tool (libmoirai_mpi.so) adds to each recorded MPI call, beyond the PMPI call it
# wraps (issue 38, acceptance 6), and what the rank log takes per MPI event. bench/mpi_call_cost.cpp
# (an ordinary MPI program, compiled here with Open MPI's mpicxx -O2) times CALLS zero-byte
# MPI_Sendrecv with itself and CALLS MPI_Barrier on MPI_COMM_SELF, on one rank under mpirun, in
# turns without the tool and with it (LD_PRELOAD and MOIRAI_MPI_RANKS_DIR; the order swapped every
# repetition, so a drift of the machine spreads over both). Prints a markdown table: the median ns
# per call without and with the tool, the difference (the tool's cost per call: a Sendrecv writes
# two records, a Barrier one) and the ratio; then the rank log's bytes: the .events file over its
# records (40 by format) and .events plus .defs over the records (the definitions' share).
#
#   bench/mpi_call_cost.sh [--repetitions N] [--calls N] [--build-dir DIR] [--no-build]
#
# --repetitions: runs of each variant (default 7); --calls: calls of each kind per run (default
# 1000000); --build-dir: the build whose tool is preloaded (default build/release, built with the
# release preset unless --no-build or --build-dir). The machine's load average is printed: other
# processes widen the spread.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

repetitions=7
calls=1000000
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repetitions) bench_count --repetitions "${2:-}"; repetitions=$2; shift 2 ;;
    --calls) bench_count --calls "${2:-}"; calls=$2; shift 2 ;;
    --build-dir) bench_build_dir "${2:-}"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) bench_help 18 ;;
    *) bench_fail "unknown argument '$1' (see --help)" ;;
  esac
done
cd "$root"
[[ $build -eq 0 ]] || bench_build release moirai_mpi
tool=$build_dir/mpi/tool/libmoirai_mpi.so
bench_need "$tool"
command -v mpicxx.openmpi >/dev/null || bench_fail "mpicxx.openmpi not found: install libopenmpi-dev"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
OMPI_SKIP_MPICXX=1 mpicxx.openmpi -O2 -DOMPI_SKIP_MPICXX=1 -o "$work/mpi_call_cost" bench/mpi_call_cost.cpp
# The container's flags, literally until cmake/MoiraiMPI.cmake's MOIRAI_MPIRUN_FLAGS is merged.
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 1)

run() {  # run with|without: appends "sendrecv barrier" to $work/<variant>
  local variant=$1 out
  if [[ $variant == with ]]; then
    rm -rf "$work/ranks" && mkdir "$work/ranks"
    out=$("${mpirun[@]}" -x LD_PRELOAD="$tool" -x MOIRAI_MPI_RANKS_DIR="$work/ranks" "$work/mpi_call_cost" "$calls")
  else
    out=$("${mpirun[@]}" "$work/mpi_call_cost" "$calls")
  fi
  awk '/^sendrecv_ns/ {s=$2} /^barrier_ns/ {b=$2} END {print s, b}' <<<"$out" >>"$work/$variant"
}
for ((i = 0; i < repetitions; ++i)); do
  if ((i % 2 == 0)); then run without; run with; else run with; run without; fi
done

column() { awk -v c="$2" '{print $c}' "$work/$1" | median; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $repetitions repetitions of $calls calls of each kind, one rank"
echo
echo "| call (MPI_COMM_SELF) | records per call | without the tool, ns | with it, ns | added per call, ns | ratio |"
echo "|---|---|---|---|---|---|"
for kind in "MPI_Sendrecv, 0 bytes:2:1" "MPI_Barrier:1:2"; do
  IFS=: read -r name records col <<<"$kind"
  without=$(column without "$col")
  with=$(column with "$col")
  awk -v n="$name" -v r="$records" -v a="$without" -v b="$with" \
    'BEGIN {printf "| %s | %d | %.1f | %.1f | %.1f | %.2f |\n", n, r, a, b, b - a, b / a}'
done
events=$(stat -c %s "$work/ranks/rank-0.events")
defs=$(stat -c %s "$work/ranks/rank-0.defs")
records=$(awk '/^end / {print $2}' "$work/ranks/rank-0.defs")
echo
awk -v e="$events" -v d="$defs" -v r="$records" 'BEGIN {
  printf "rank log: %d records, .events %d bytes (%.1f bytes per record), .events + .defs %d bytes (%.2f bytes per record)\n",
    r, e, e / r, e + d, (e + d) / r }'
