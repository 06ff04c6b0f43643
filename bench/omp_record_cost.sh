#!/usr/bin/env bash
# What recording an OpenMP program through OMPT costs (issue 26, point 6): the same binaries,
# omp_cholesky (T = 16, B = 128) and omp_matmul, on 2 threads, each run without the tool and with
# it (OMP_TOOL_LIBRARIES=libmoirai_ompt.so, MOIRAI_OMPT_TRACE), in turns (each program's pair
# back to back, its order swapped every repetition, so a drift of the machine spreads over both),
# plus two runs of the same Cholesky on one thread that take the cost apart: 88,560 tasks of a
# few microseconds (the cost per recorded event stands out of the machine's noise there) and one
# task (with - without is the tool's start, which libomp runs at the program's first parallel
# region: inside the program's own timer). Two clocks per run: the program's own "time:" line
# (omp_get_wtime around the computation) and the process wall time (that, plus the program's
# set-up and the trace's final write). Prints a markdown report: medians, spread, the overhead
# with a 95 % distribution-free interval (order statistics of the per-repetition paired ratios),
# the records per run (the tool's closing line), units and constraints (`moirai stats` of the
# last recorded trace), (with - without) / records, the tool's start and the cost per record and
# what they predict for each program; then that a run without OMP_TOOL_LIBRARIES does not load
# the tool (LD_DEBUG=files, against a run with it). docs/performance.md quotes it.
#
#   bench/omp_record_cost.sh [--repetitions N] [--matmul-size N] [--build-dir DIR] [--no-build]
#
# --repetitions: runs of each variant (default 15); --matmul-size: omp_matmul's --size (default
# 1536, blocks of 64: 576 tasks, 0.6 s on 2 threads of the least loaded run); --build-dir: the build whose
# programs run (default build/release, built with the release preset unless --no-build or
# --build-dir). The machine's load average is printed: other processes widen the intervals.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"

repetitions=15
matmul_size=1536
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repetitions) bench_count --repetitions "${2:-}"; repetitions=$2; shift 2 ;;
    --matmul-size) bench_count --matmul-size "${2:-}"; matmul_size=$2; shift 2 ;;
    --build-dir) bench_build_dir "${2:-}"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) bench_help 23 ;;
    *) bench_fail "unknown argument '$1' (see --help)" ;;
  esac
done
cd "$root"
[[ $build -eq 0 ]] || bench_build release moirai_ompt omp_cholesky omp_matmul moirai_cli
tool="$build_dir/ompt/libmoirai_ompt.so"
cholesky="$build_dir/apps/omp/omp_cholesky"
matmul="$build_dir/apps/omp/omp_matmul"
moirai="$build_dir/tools/moirai"
bench_need "$cholesky" "$matmul" "$moirai"
[[ -f "$tool" ]] || bench_fail "$tool is not built"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=2
unset OMP_TOOL_LIBRARIES MOIRAI_OMPT_TRACE
# fine: the same Cholesky cut into 88,560 tasks of a few microseconds on one thread, where
# recording's cost per event stands out of the machine's noise (on two threads that run's time is
# libomp's own contention, which the load moves by 3x); start: one task, so with - without is the
# tool's start, which libomp runs at the program's first parallel region, inside its timer; the
# two others are the issue's programs.
declare -A args=([cholesky]="$cholesky --tiles 16 --tile-size 128" [matmul]="$matmul --size $matmul_size --block 64"
                 [fine]="env OMP_NUM_THREADS=1 $cholesky --tiles 80 --tile-size 4"
                 [start]="env OMP_NUM_THREADS=1 $cholesky --tiles 1 --tile-size 4")
programs=(cholesky matmul fine start)

# run_once PROGRAM VARIANT: runs PROGRAM (a key of args) without the tool (off) or with it (on);
# appends its own time, the process's start and end (seconds) and the records the tool wrote (0
# when off) to $out/PROGRAM.VARIANT.
run_once() {
  local program=$1 variant=$2 start end own records=0
  local -a env=()
  [[ $variant == off ]] || env=(OMP_TOOL_LIBRARIES="$tool" MOIRAI_OMPT_TRACE="$out/$program.mtrace")
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086
  env "${env[@]}" ${args[$program]} > "$out/stdout" 2> "$out/stderr"
  end=$EPOCHREALTIME
  own=$(sed -n 's/^time: \([0-9.]*\) s$/\1/p' "$out/stdout")
  [[ -n "$own" ]] || bench_fail "$program printed no 'time:' line"
  if [[ $variant == on ]]; then
    records=$(sed -n 's/^moirai-ompt: recorded \([0-9]*\) records into .*/\1/p' "$out/stderr")
    [[ -n "$records" ]] || bench_fail "$program with the tool: $(head -1 "$out/stderr")"
  fi
  echo "$own $start $end $records" >> "$out/$program.$variant"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for rep in $(seq "$repetitions"); do
  echo "repetition $rep of $repetitions" >&2
  for program in "${programs[@]}"; do
    if (( rep % 2 )); then run_once "$program" off; run_once "$program" on
    else run_once "$program" on; run_once "$program" off; fi
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The trace of each program's last recorded run, as moirai stats reads it.
for program in "${programs[@]}"; do
  "$moirai" stats "$out/$program.mtrace" > "$out/$program.stats"
done

# The tool is loaded only when named: the dynamic loader lists every object it maps.
LD_DEBUG=files ${args[matmul]/--size $matmul_size/--size 64} > /dev/null 2> "$out/ld_off"
LD_DEBUG=files OMP_TOOL_LIBRARIES="$tool" MOIRAI_OMPT_TRACE="$out/ld.mtrace" MOIRAI_OMPT_QUIET=1 \
  ${args[matmul]/--size $matmul_size/--size 64} > /dev/null 2> "$out/ld_on"
loaded_off=$(grep -c 'file=.*libmoirai_ompt\.so.*dynamically loaded' "$out/ld_off" || true)
loaded_on=$(grep -c 'file=.*libmoirai_ompt\.so.*dynamically loaded' "$out/ld_on" || true)

revision=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "?")
python3 - "$out" "$revision" "$load_before" "$load_after" "$repetitions" "$matmul_size" "$loaded_off" "$loaded_on" \
  "${build_dir#"$root"/}" <<'PY'
import math, re, statistics, sys
out, revision, before, after, reps, size, loaded_off, loaded_on, build = sys.argv[1:]
reps = int(reps)
programs = ("cholesky", "matmul", "fine", "start")
names = {"cholesky": "omp_cholesky T = 16, B = 128", "matmul": f"omp_matmul {size} x {size}, blocks of 64",
         "fine": "omp_cholesky T = 80, B = 4 (88,560 tasks), 1 thread",
         "start": "omp_cholesky T = 1, B = 4 (1 task), 1 thread"}

def read(name):
    """Per run: (its own time, process wall time) in seconds, and the records written."""
    rows = []
    for line in open(f"{out}/{name}"):
        own, start, end, records = line.split()
        rows.append((float(own), float(end) - float(start), int(records)))
    return rows

def ci_ranks(n):
    """1-based ranks (lo, hi) in a sorted sample of n that hold its median with probability at
    least 95 % (binomial order statistics: no assumption on the distribution)."""
    cdf, k = 0.0, 0
    while cdf + math.comb(n, k) / 2 ** n <= 0.025:
        cdf += math.comb(n, k) / 2 ** n
        k += 1
    return (k, n - k + 1) if k >= 1 else (1, n)

def stats(path):
    text = open(path).read()
    field = lambda pattern: re.search(pattern, text, re.M).group(1)
    return int(field(r"^units:\s+(\d+)")), int(field(r"^constraints:\s+(\d+)")), field(r"^recording:\s+(.*?) \(")

lo, hi = ci_ranks(reps)
print(f"`bench/omp_record_cost.sh` at {revision} ({build}): {reps} runs of each variant, interleaved; "
      f"OMP_NUM_THREADS=2; load average {before} before, {after} after.\n")
print("| program | clock | without the tool: median (min..max) | with the tool | overhead: median of the paired runs (95 % interval) |")
print("| --- | --- | ---: | ---: | ---: |")
median, overhead, interval, fixed_cost, records, predicted = {}, {}, {}, {}, {}, {}
for program in programs:
    off, on = read(f"{program}.off"), read(f"{program}.on")
    records[program] = [r[2] for r in on]
    fixed_cost[program] = statistics.median((b[1] - b[0]) - (a[1] - a[0]) for a, b in zip(off, on))
    for column, clock in ((0, "its own time"), (1, "process wall time")):
        a, b = [r[column] for r in off], [r[column] for r in on]
        ratios = sorted((y / x - 1) * 100 for x, y in zip(a, b))
        median[(program, column)] = (statistics.median(a), statistics.median(b))
        overhead[(program, column)] = statistics.median(ratios)
        interval[(program, column)] = (ratios[lo - 1], ratios[hi - 1])
        print(f"| {names[program]} | {clock} | {median[(program, column)][0]:.4f} s ({min(a):.4f}..{max(a):.4f}) | "
              f"{median[(program, column)][1]:.4f} s ({min(b):.4f}..{max(b):.4f}) | {overhead[(program, column)]:+.1f} % "
              f"({ratios[lo - 1]:+.1f}..{ratios[hi - 1]:+.1f}) |")

def paired(program, column):
    """The median difference with - without of the paired runs, in seconds."""
    off, on = read(f"{program}.off"), read(f"{program}.on")
    return statistics.median(b[column] - a[column] for a, b in zip(off, on))

start_s = paired("start", 0)
record_ns = (paired("fine", 0) - start_s) * 1e9 / statistics.median(records["fine"])
print("\n| program | records per run: median (min..max) | units, constraints (last run) | (with - without) / records: its own time | "
      "the same, wall time | tool start + records x cost per record, of its own time | its own time where that is 5 % | outside its own time: wall - own, with - without |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
probe = {}
for program in programs:
    units, constraints, probe[program] = stats(f"{out}/{program}.stats")
    r = statistics.median(records[program])
    cost = start_s + r * record_ns * 1e-9
    predicted[program] = cost / median[(program, 0)][0] * 100
    print(f"| {names[program]} | {r:,.0f} ({min(records[program]):,}..{max(records[program]):,}) | {units:,}, {constraints:,} | "
          f"{paired(program, 0) * 1e9 / r:,.0f} ns | {paired(program, 1) * 1e9 / r:,.0f} ns | "
          f"{cost * 1e3:.1f} ms, {predicted[program]:.1f} % | {cost / 0.05:.2f} s | {fixed_cost[program] * 1e3:+.1f} ms |")
print(f"\nThe tool's start inside the run (the one-task run's with - without, its own time): {start_s * 1e3:.1f} ms. "
      f"The cost per record (the fine run's with - without, less the start, over its records): {record_ns:.0f} ns. "
      f"The recorder's own probe, timed by the tool at start (`moirai stats`, recording line): {probe['cholesky']}.")

print("\n| target (issue 26) | its own time | process wall time | verdict (its own time: met if the interval is under 5 %) |")
print("| --- | ---: | ---: | --- |")
for program in ("cholesky", "matmul"):
    own, wall = overhead[(program, 0)], overhead[(program, 1)]
    low, high = interval[(program, 0)]
    verdict = "**met**" if high <= 5 else "**missed**" if low > 5 else \
        f"not resolved by the direct runs at this load (interval {low:+.1f}..{high:+.1f} %); predicted {predicted[program]:.1f} % (tool start + records x cost per record)"
    print(f"| recording {names[program]} costs at most 5 % | {own:+.1f} % | {wall:+.1f} % | {verdict} |")
off_says = "not loaded" if loaded_off == "0" else f"LOADED ({loaded_off} times)"
on_says = "loaded" if loaded_on != "0" else "NOT loaded: the check is broken"
print(f"| a run without OMP_TOOL_LIBRARIES pays nothing | libmoirai_ompt.so {off_says} (LD_DEBUG=files; with the variable: {on_says}) | | "
      f"{'**met**' if loaded_off == '0' and loaded_on != '0' else '**missed**'} |")
PY
