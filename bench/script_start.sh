# Sourced by the bench scripts: `bench_start LAST_HELP_LINE "$@"` goes to the repository root and
# reads the one optional argument they share: --no-build (sets build=0; else build=1) or --help
# (prints the script's header comment, lines 2..LAST_HELP_LINE). `median` prints the median of
# the numbers on its standard input.
bench_start() {
  local last_help_line=$1 script
  script=$(basename "${BASH_SOURCE[1]}")
  shift
  cd "$(dirname "${BASH_SOURCE[1]}")/.."
  build=1
  case "${1:-}" in
    --no-build) build=0 ;;
    "") ;;
    -h|--help) sed -n "2,${last_help_line}p" "bench/$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$script: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
