#!/usr/bin/env bash
# The post-processor at scale: moirai-gen-trace writes synthetic SSR runs of 10,000, 100,000 and
# 1,000,000 units over 40 cores (the real trace format, seed 1); `moirai stats`, `moirai report`,
# `moirai scg -o x.svg` and `moirai export` to Perfetto JSON, SQLite and OTF2 each read every
# size, several times under GNU time. Prints a markdown table (docs/performance.md quotes it):
# median wall and CPU seconds, peak resident memory, bytes and microseconds per unit, the
# output's size, and whether each target is met:
#   report of 1,000,000 units within 5 s; SCG SVG of 100,000 units within 10 s; each export of
#   1,000,000 units within 10 s; peak memory under 1 KiB per unit (judged from 100,000 units up,
#   where fixed costs no longer dominate); cost linear in units (wall time per unit at each size
#   within 1.5x of that at the size below).
#
#   bench/scale_bench.sh              build moirai and moirai-gen-trace (release), then measure
#   bench/scale_bench.sh --no-build   measure the build already there
#
# MOIRAI_SCALE_REPETITIONS (default 3) runs per command and size; the median is reported.
# MOIRAI_SCALE_SIZES (default "10000 100000 1000000") and MOIRAI_SCALE_CORES (default 40) change
# the runs; MOIRAI_SCALE_COMMANDS (default all: "stats report scg perfetto perfetto-json sqlite otf2") picks
# commands. The machine is shared: the load average is printed with the table, since other work
# on the cores inflates wall time (CPU time much less).
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
bench_start 20 "$@"
[[ -x /usr/bin/time ]] || bench_fail "needs GNU time (/usr/bin/time, Debian package 'time')"
reps=${MOIRAI_SCALE_REPETITIONS:-3}
sizes=${MOIRAI_SCALE_SIZES:-"10000 100000 1000000"}
cores=${MOIRAI_SCALE_CORES:-40}
commands=${MOIRAI_SCALE_COMMANDS:-"stats report scg perfetto perfetto-json sqlite otf2"}
[[ $build -eq 0 ]] || bench_build release moirai_cli moirai-gen-trace
moirai=build/release/tools/moirai
generate=build/release/tools/moirai-gen-trace
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# measure NAME UNITS CMD...: runs CMD $reps times; prints "wall cpu peak_kib" (medians).
measure() {
  local name=$1 units=$2; shift 2
  local walls=() cpus=() peaks=()
  for ((i = 0; i < reps; i++)); do
    # GNU time counts in hundredths of a second: the wall clock is read here, to the nanosecond.
    local started=$(date +%s%N)
    if ! /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr"; then
      echo "scale_bench.sh: $name on $units units failed:" >&2
      cat "$out/stderr" >&2
      exit 1
    fi
    local ended=$(date +%s%N)
    read -r _ user sys peak <"$out/time"
    walls+=("$(awk -v a="$started" -v b="$ended" 'BEGIN {printf "%.3f", (b - a) / 1e9}')")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')")
    peaks+=("$peak")
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${cpus[@]}" | median) $(printf '%s\n' "${peaks[@]}" | median)"
}

declare -A wall_of
rows=()
for units in $sizes; do
  trace="$out/u$units.mtrace"
  "$generate" --units "$units" --cores "$cores" --seed 1 -o "$trace"
  trace_bytes=$(stat -c %s "$trace")
  for command in $commands; do
    output=""
    case $command in
      scg) args=("$moirai" scg "$trace" -o "$out/u$units.svg") ;;
      perfetto | perfetto-json | sqlite) output="$out/u$units.$command"; args=("$moirai" export "$trace" --format "$command" -o "$output") ;;
      # An OTF2 archive is a directory that must be new or empty: each run starts from none.
      otf2) output="$out/u$units.otf2"; args=(sh -c 'rm -rf "$1" && exec "$2" export "$3" --format otf2 -o "$1"' sh "$output" "$moirai" "$trace") ;;
      *) args=("$moirai" "$command" "$trace") ;;
    esac
    label="moirai $command"
    [[ -n $output ]] && label="moirai export --format $command"
    read -r wall cpu peak < <(measure "$command" "$units" "${args[@]}")
    output_mib=""
    [[ -n $output ]] && output_mib=$(du -sm "$output" | cut -f1)
    rm -rf "$output" "$out/u$units.svg"
    wall_of[$command.$units]=$wall
    per_unit=$(awk -v k="$peak" -v n="$units" 'BEGIN {printf "%.0f", k * 1024 / n}')
    us=$(awk -v w="$wall" -v n="$units" 'BEGIN {printf "%.3f", w * 1e6 / n}')
    target=""
    if [[ $command == report && $units == 1000000 ]]; then
      target=$(awk -v w="$wall" 'BEGIN {print (w <= 5 ? "met: within 5 s" : "MISSED: over 5 s")}')
    elif [[ -n $output && $units == 1000000 ]]; then
      target=$(awk -v w="$wall" 'BEGIN {print (w <= 10 ? "met: within 10 s" : "MISSED: over 10 s")}')
    elif [[ $command == scg && $units == 100000 ]]; then
      target=$(awk -v w="$wall" 'BEGIN {print (w <= 10 ? "met: within 10 s" : "MISSED: over 10 s")}')
    fi
    if (( units >= 100000 )); then
      memory=$(awk -v b="$per_unit" 'BEGIN {print (b < 1024 ? "memory met" : "memory MISSED")}')
      target="${target:+$target; }$memory"
    fi
    rows+=("| \`$label\` | $units | $(awk -v b="$trace_bytes" 'BEGIN {printf "%.1f", b / 1048576}') | $wall | $cpu | $(awk -v k="$peak" 'BEGIN {printf "%.1f", k / 1024}') | $per_unit | $us | $output_mib | $target |")
  done
done

echo "Post-processor at scale: $cores cores, seed 1, median of $reps runs; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | units | trace MiB | wall s | CPU s | peak MiB | bytes/unit | us/unit (wall) | output MiB | target |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
echo
# Linear growth: the wall time per unit at each size against the size below it.
previous=""
for units in $sizes; do
  if [[ -n $previous ]]; then
    for command in $commands; do
      awk -v c="$command" -v a="${wall_of[$command.$previous]}" -v b="${wall_of[$command.$units]}" -v n="$previous" -v m="$units" \
        'BEGIN {if (a <= 0) {printf "linear growth, %s: %d units ran too fast to time\n", c, n; exit} r = (b / m) / (a / n); printf "linear growth, %s: %d -> %d units costs %.2fx the time per unit (%s)\n", c, n, m, r, (r <= 1.5 ? "met" : "MISSED: over 1.5x")}'
    done
  fi
  previous=$units
done
