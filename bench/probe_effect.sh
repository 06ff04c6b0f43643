#!/usr/bin/env bash
# The probe effect of recording, measured: matmul (default size) and a same-core ping-pong, each
# with recording (a) compiled out, (b) compiled in but off, (c) on with timestamps only (OS-time
# measure off), (o) on as by default (timestamps and what the OS took from each unit), (d) as (o)
# with two software counters (PAPI, or the kernel's perf_event where PAPI cannot count them). Prints a markdown report (docs/performance.md quotes it).
#
#   bench/probe_effect.sh              build both builds, then measure
#   bench/probe_effect.sh --no-build   measure the builds already there
#
# MOIRAI_PROBE_REPETITIONS (default 5) runs per variant; the median is reported. Run it on an
# otherwise idle machine.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
bench_start 10 "$@"
reps=${MOIRAI_PROBE_REPETITIONS:-5}
if [[ $build -eq 1 ]]; then
  bench_build release matmul ping_pong moirai_cli
  bench_build no-recording matmul ping_pong
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rounds=200000
software="perf::TASK-CLOCK,perf::PAGE-FAULTS"

# run_once APP SED ARGS...: runs APP once and prints what the sed expression SED extracts.
run_once() {
  local app=$1 expression=$2; shift 2
  "$app" "$@" 2>/dev/null | sed -n "$expression" | head -1
}
matmul_time='s/^time: \([0-9.]*\) s$/\1/p'
ping_time='s/^time: [0-9.]* s, \([0-9.]*\) us per round trip.*$/\1/p'
spread() { sort -g | awk '{v[NR]=$1} END {printf "%s..%s", v[1], v[NR]}'; }

variant_dir() { [[ $1 == a ]] && echo build/no-recording || echo build/release; }
# variant_args VARIANT TRACE: the recording flags of a variant.
variant_args() {
  case $1 in
    c) echo "--trace $2 --counters none --no-os-time" ;;
    o) echo "--trace $2 --counters none" ;;
    d) echo "--trace $2 --counters $software" ;;
  esac
}

# The variants take turns, so a drift of the machine (page reclaim, frequency) spreads over all
# of them instead of favouring whichever ran last.
for _ in $(seq "$reps"); do
  for variant in a b c o d; do
    dir=$(variant_dir "$variant")
    # shellcheck disable=SC2046
    run_once "$dir/apps/matmul/matmul" "$matmul_time" $(variant_args "$variant" "$out/$variant") >> "$out/matmul_$variant"
    # shellcheck disable=SC2046
    run_once "$dir/apps/ping_pong/ping_pong" "$ping_time" --rounds "$rounds" --same-core \
      $(variant_args "$variant" "$out/ping_$variant") >> "$out/ping_$variant.times"
  done
done
declare -A value range
for variant in a b c o d; do
  value[matmul_$variant]=$(median < "$out/matmul_$variant")
  value[ping_$variant]=$(median < "$out/ping_$variant.times")
  range[matmul_$variant]=$(spread < "$out/matmul_$variant")
  range[ping_$variant]=$(spread < "$out/ping_$variant.times")
done

# Trace size and record count of the (c) and (d) runs.
stats() { build/release/tools/moirai stats --json "$1"; }
# field JSON KEY: the first number stored under KEY (the run's total, before the per-core ones).
field() { grep -o "\"$2\":[0-9.]*" <<<"$1" | head -1 | cut -d: -f2; }
pc=$(stats "$out/ping_c"); po=$(stats "$out/ping_o"); pd=$(stats "$out/ping_d"); mc=$(stats "$out/c")
units_o=$(field "$po" units)
# The OS-time measure's cost per unit: (o) - (c) on the ping-pong, over its units.
os_per_unit=$(awk -v o="${value[ping_o]}" -v c="${value[ping_c]}" -v u="$units_o" -v n="$rounds" \
  'BEGIN { printf "%.0f", (o - c) * 1000 * n / u }')
backends=$(grep -o '"counter_backends":\[[^]]*\]' <<<"$pd" | grep -o '"[a-z_]*"' | tail -n +2 | sort -u | tr -d '"' | paste -sd, -)
records_c=$(field "$pc" records); units_c=$(field "$pc" units); bytes_c=$(field "$pc" bytes)
units_d=$(field "$pd" units); bytes_d=$(field "$pd" bytes)
m_units=$(field "$mc" units); m_bytes=$(field "$mc" bytes)

pct() { awk -v x="$1" -v base="$2" 'BEGIN { printf "%+.1f%%", 100 * (x - base) / base }'; }
per_record=$(awk -v c="${value[ping_c]}" -v b="${value[ping_b]}" -v r="$records_c" -v n="$rounds" \
  'BEGIN { printf "%.1f", (c - b) * 1000 * n / r }')  # ping times are us per round trip
# A unit record stands for six instrumentation points (assigner, switch in, switch out, lock,
# handler in, handler out); a tracer writing one record per point would count all six.
per_point=$(awk -v c="${value[ping_c]}" -v b="${value[ping_b]}" -v r="$records_c" -v u="$units_c" -v n="$rounds" \
  'BEGIN { printf "%.1f", (c - b) * 1000 * n / (r + 5 * u) }')
matmul_records=$(field "$mc" records)
matmul_bound=$(awk -v r="$matmul_records" -v p="$per_record" -v t="${value[matmul_a]}" \
  'BEGIN { printf "%.5f%%", 100 * r * p * 1e-9 / t }')

cat <<REPORT
### Probe effect

At source revision $(git rev-parse --short HEAD 2>/dev/null || echo unknown), \`bench/probe_effect.sh\`, median of $reps runs each:

| variant | matmul, default size, 2 cores (median; min..max) | vs (a) | ping-pong, same core, $rounds round trips, us/round trip (median; min..max) | vs (a) |
| --- | ---: | ---: | ---: | ---: |
| (a) recording compiled out | ${value[matmul_a]} s (${range[matmul_a]}) | | ${value[ping_a]} (${range[ping_a]}) | |
| (b) compiled in, off | ${value[matmul_b]} s (${range[matmul_b]}) | $(pct "${value[matmul_b]}" "${value[matmul_a]}") | ${value[ping_b]} (${range[ping_b]}) | $(pct "${value[ping_b]}" "${value[ping_a]}") |
| (c) on, timestamps only (--no-os-time) | ${value[matmul_c]} s (${range[matmul_c]}) | $(pct "${value[matmul_c]}" "${value[matmul_a]}") | ${value[ping_c]} (${range[ping_c]}) | $(pct "${value[ping_c]}" "${value[ping_a]}") |
| (o) on, the default: timestamps + OS time | ${value[matmul_o]} s (${range[matmul_o]}) | $(pct "${value[matmul_o]}" "${value[matmul_a]}") | ${value[ping_o]} (${range[ping_o]}) | $(pct "${value[ping_o]}" "${value[ping_a]}") |
| (d) on, OS time + $software (${backends:-no backend}) | ${value[matmul_d]} s (${range[matmul_d]}) | $(pct "${value[matmul_d]}" "${value[matmul_a]}") | ${value[ping_d]} (${range[ping_d]}) | $(pct "${value[ping_d]}" "${value[ping_a]}") |

- amortised cost of one record as written, timestamps only: ${per_record} ns ((c) - (b) on the ping-pong, over its ${records_c} records); per instrumentation point: ${per_point} ns (a unit record holds six)
- the OS-time measure: ${os_per_unit} ns per unit ((o) - (c) on the ping-pong, over its ${units_o} units; its units are short: it reads the CPU id at both ends, and the thread's CPU clock only around a unit or gap of 100 us or more, BM_OsTimeProbe_MeasuredUnit in bench/recording_bench.cpp)
- matmul's recording cost from that figure: ${matmul_records} records x ${per_record} ns = ${matmul_bound} of the run (its timings above vary more than that from run to run)
- trace bytes per unit: ping-pong (c) $(awk -v b="$bytes_c" -v u="$units_c" 'BEGIN{printf "%.1f", b/u}'), (d) $(awk -v b="$bytes_d" -v u="$units_d" 'BEGIN{printf "%.1f", b/u}'); matmul (c) $(awk -v b="$m_bytes" -v u="$m_units" 'BEGIN{printf "%.1f", b/u}') (few, large units: the header dominates)
REPORT
