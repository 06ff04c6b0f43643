# The opening every bench script shares, sourced as its first command:
#   source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
# It turns on bash's strict mode and sets `script` (the script's name, for its messages), `root`
# (the repository) and `build_dir` (the build whose programs the scripts run: MOIRAI_BENCH_BUILD_DIR,
# default build/release). It leaves the working directory alone, since some scripts take paths
# relative to it; bench_start goes to the root. The functions:
#   bench_help LAST_LINE       prints the script's header comment, lines 2..LAST_LINE; exits 0
#   bench_fail MESSAGE         "script: MESSAGE" on stderr; exits 2 (bad arguments, nothing built)
#   bench_count FLAG VALUE     bench_fail unless VALUE is a positive whole number
#   bench_need FILE...         bench_fail unless each FILE is built (an executable)
#   bench_build_dir DIR        for --build-dir: bench_fail unless DIR exists; sets build_dir to it
#                              and build=0 (its programs are used as they are)
#   bench_build PRESET TARGET...  configures the CMake preset and builds its TARGETs (quietly)
#   bench_start LAST_LINE "$@" for a script whose one optional argument is --no-build (sets
#                              build=0; else build=1) or --help; goes to the root
#   bench_repeat_args LAST_LINE DEFAULT "$@"  for a script taking [--repeat N] [--build-dir DIR]
#                              [--no-build]: sets repeat and build; goes to the root
#   median                     prints the median of the numbers on its standard input
set -euo pipefail
script=$(basename "${BASH_SOURCE[1]}")
root=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
build_dir=${MOIRAI_BENCH_BUILD_DIR:-$root/build/release}

bench_help() { sed -n "2,${1}p" "$root/bench/$script" | sed 's/^# \{0,1\}//'; exit 0; }
bench_fail() { echo "$script: $1" >&2; exit 2; }
bench_count() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || bench_fail "$1 takes a positive whole number, not '$2'"; }
bench_need() {
  local file
  for file in "$@"; do [[ -x "$file" ]] || bench_fail "$file is not built"; done
}
bench_build_dir() {
  [[ -d "${1:-}" ]] || bench_fail "--build-dir takes an existing build directory, not '${1:-}'"
  build_dir=$(cd "$1" && pwd)
  build=0
}
bench_build() {
  local preset=$1
  shift
  echo "building $* ($preset preset)..." >&2
  (cd "$root" && cmake --preset "$preset" >/dev/null && cmake --build --preset "$preset" -j "$(nproc)" --target "$@" >/dev/null)
}

bench_start() {
  local last_help_line=$1
  shift
  cd "$root"
  build=1
  case "${1:-}" in
    --no-build) build=0 ;;
    "") ;;
    -h|--help) bench_help "$last_help_line" ;;
    *) bench_fail "unknown argument '$1' (see --help)" ;;
  esac
}

# bench_repeat_args LAST_LINE DEFAULT "$@": for a script whose arguments are [--repeat N]
# [--build-dir DIR] [--no-build] [--help]: sets repeat (DEFAULT unless given) and build; goes to the root.
bench_repeat_args() {
  local last_help_line=$1
  repeat=$2
  build=1
  shift 2
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --repeat) bench_count --repeat "${2:-}"; repeat=$2; shift 2 ;;
      --build-dir) bench_build_dir "${2:-}"; shift 2 ;;
      --no-build) build=0; shift ;;
      -h|--help) bench_help "$last_help_line" ;;
      *) bench_fail "unknown argument '$1' (see --help)" ;;
    esac
  done
  cd "$root"
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
