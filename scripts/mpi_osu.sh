#!/usr/bin/env bash
# A program no one here wrote, recorded (issue 38, acceptance 3; docs/mpi.md): builds the OSU
# micro-benchmarks (https://mvapich.cse.ohio-state.edu/benchmarks/, their source kept out of this
# repository) from SRC into WORK/build with Open MPI's mpicc, unchanged, runs a few of them on 4
# ranks with libmoirai_mpi.so preloaded (the manual form: LD_PRELOAD and MOIRAI_MPI_RANKS_DIR by
# hand, then `moirai mpi-merge`), and runs every view and export on each merged trace.
usage() {
  cat <<'USAGE'
usage: scripts/mpi_osu.sh SRC WORK [--build DIR] [--two-nodes] [--benchmarks LIST]
  SRC           an OSU micro-benchmarks source tree (its configure script at the top; 5.x)
  WORK          a folder for the build, the rank logs, the traces and the views' output
  --build DIR   Moirai's build folder (default build/dev): tools/moirai and mpi/tool/libmoirai_mpi.so
  --two-nodes   run on two nodes of this machine (scripts/mpi_two_nodes.sh; needs root)
  --benchmarks LIST  comma-separated, folder/name under SRC's mpi/ (default
                collective/osu_allreduce,collective/osu_bcast,collective/osu_ialltoall,pt2pt/osu_multi_lat)
Exit 0 when every benchmark was recorded, merged and read by every view; 1 naming the first that
was not; 2 on bad arguments.
USAGE
}
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { usage >&2; exit 2; }
src=$(readlink -f "$1") work=$2
shift 2
build=$here/../build/dev two_nodes=0
benchmarks=collective/osu_allreduce,collective/osu_bcast,collective/osu_ialltoall,pt2pt/osu_multi_lat
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --two-nodes) two_nodes=1; shift ;;
    --benchmarks) benchmarks=${2:?--benchmarks needs a list}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "mpi_osu.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -x "$src/configure" ] || { echo "mpi_osu.sh: $src has no configure script: not an OSU source tree" >&2; exit 2; }
moirai=$(readlink -f "$build/tools/moirai") tool=$(readlink -f "$build/mpi/tool/libmoirai_mpi.so")
[ -x "$moirai" ] && [ -f "$tool" ] || { echo "mpi_osu.sh: no tools/moirai or mpi/tool/libmoirai_mpi.so in $build" >&2; exit 2; }
fail() { echo "mpi_osu.sh: $*" >&2; exit 1; }
mkdir -p "$work/build" && work=$(readlink -f "$work")

if [ ! -f "$work/build/Makefile" ]; then
  echo "configuring $src in $work/build"
  (cd "$work/build" && "$src/configure" CC=mpicc CXX=mpicxx CFLAGS="-O2 -g" > configure.log 2>&1) ||
    fail "configure failed: $work/build/configure.log"
fi
echo "building (make -j2 in $work/build/mpi)"
make -C "$work/build/mpi" -j2 > "$work/build/make.log" 2>&1 || fail "make failed: $work/build/make.log"

launch=()
[ "$two_nodes" = 1 ] && launch=(bash "$here/mpi_two_nodes.sh" --)
IFS=, read -r -a list <<<"$benchmarks"
for bench in "${list[@]}"; do
  program=$work/build/mpi/$bench
  [ -x "$program" ] || fail "no benchmark $bench in $work/build/mpi"
  name=$(basename "$bench") out=$work/$(basename "$bench")
  rm -rf "$out" && mkdir -p "$out/ranks"
  # Small sizes and few iterations: the views, not the network, are under test (the point to
  # point ones take no -m).
  args=(-i 20 -x 5)
  [[ $bench == collective/* ]] && args+=(-m 1024)
  "${launch[@]}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x "LD_PRELOAD=$tool" \
    -x "MOIRAI_MPI_RANKS_DIR=$out/ranks" -x MOIRAI_MPI_QUIET=1 "$program" "${args[@]}" > "$out/run.out" 2>&1 ||
    fail "$name: the run failed: $out/run.out"
  trace=$out/$name.mtrace
  views=("mpi-merge $out/ranks -o $trace" "stats $trace" "report $trace" "scg $trace -o $out/scg.svg"
         "ucc $trace -o $out/ucc.svg" "export $trace --format otf2 -o $out/otf2"
         "export $trace --format perfetto -o $out/$name.pftrace" "export $trace --format sqlite -o $out/$name.sqlite"
         "replay $trace --machine sim:4 --trace $out/replayed.mtrace")
  for view in "${views[@]}"; do
    # shellcheck disable=SC2086  # each view is its words
    "$moirai" $view > "$out/view.out" 2>&1 || { cat "$out/view.out" >&2; fail "$name: moirai $view failed"; }
    [[ $view == mpi-merge* ]] && cat "$out/view.out"
  done
  echo "$name: recorded on 4 ranks, merged, every view and export ok ($out)"
done
