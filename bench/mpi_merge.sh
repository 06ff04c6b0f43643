#!/usr/bin/env bash
# The MPI merge stage at scale: moirai-mpi-gen-ranks writes the rank logs of a synthetic job of
# 256 ranks on 4 nodes and about 5 million units (a halo exchange on a ring with an allreduce every
# 10 steps); `moirai mpi-merge` makes them one trace and `moirai report` reads it, each under GNU
# time. Prints wall and CPU seconds and peak resident memory of each, and whether the goal is met:
# merge plus report within 30 s and each within 4 GiB.
#
#   bench/mpi_merge.sh              build moirai and the generator (release preset), then measure
#   bench/mpi_merge.sh --no-build   measure the build already there (MOIRAI_BENCH_BUILD_DIR, default
#                                   build/release; e.g. MOIRAI_BENCH_BUILD_DIR=build/dev)
#
# MOIRAI_MPI_RANKS (default 256) and MOIRAI_MPI_UNITS (default 5000000) change the job. The
# machine is shared: the load average is printed, since other work inflates wall time.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
bench_start 13 "$@"
[[ -x /usr/bin/time ]] || bench_fail "needs GNU time (/usr/bin/time, Debian package 'time')"
ranks=${MOIRAI_MPI_RANKS:-256}
units=${MOIRAI_MPI_UNITS:-5000000}
bench_count MOIRAI_MPI_RANKS "$ranks"
bench_count MOIRAI_MPI_UNITS "$units"
[[ $build -eq 0 ]] || bench_build release moirai_cli moirai-mpi-gen-ranks
moirai=$build_dir/tools/moirai
generate=$build_dir/tests/moirai-mpi-gen-ranks
bench_need "$moirai" "$generate"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$generate" "$out/ranks" "$ranks" "$units" $((ranks / 4 > 0 ? ranks / 4 : 1)) >/dev/null
echo "rank logs: $(du -sb "$out/ranks" | cut -f1) bytes ($ranks ranks)"
# timed NAME CMD...: runs CMD under GNU time; prints "NAME wall cpu peak_mib" and keeps wall.
timed() {
  local name=$1; shift
  local started ended
  started=$(date +%s%N)
  /usr/bin/time -f "%U %S %M" -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { cat "$out/$name.err" >&2; bench_fail "$name failed"; }
  ended=$(date +%s%N)
  read -r user sys peak <"$out/$name.time"
  wall=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  printf '| %s | %s | %.2f | %d |\n' "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" $((peak / 1024))
  eval "${name//-/_}_wall=$wall ${name//-/_}_peak=$peak"
}
echo "| step | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|"
timed mpi-merge "$moirai" mpi-merge "$out/ranks" -o "$out/run.mtrace"
timed report "$moirai" report "$out/run.mtrace"
sed 's/^/  /' "$out/mpi-merge.out"
total=$(awk -v a="$mpi_merge_wall" -v b="$report_wall" 'BEGIN { printf "%.2f", a + b }')
peak=$(( (mpi_merge_peak > report_peak ? mpi_merge_peak : report_peak) / 1024 ))
verdict=$(awk -v t="$total" -v p="$peak" 'BEGIN { print (t < 30 && p < 4096) ? "met" : "NOT met" }')
echo "merge + report: $total s, peak $peak MiB: goal (under 30 s and 4 GiB) $verdict; load average $(cut -d' ' -f1-3 /proc/loadavg)"
