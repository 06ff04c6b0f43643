#!/usr/bin/env bash
# VSs against OpenMP tasks with depend clauses, on GCC's libgomp and on LLVM's libomp: builds the
# target moirai_vss_benches (release preset): moirai_vss_bench and moirai_vss_bench_libomp, the
# same benchmarks linked against each runtime. Runs VSs, libgomp and libomp in turns, one
# repetition of every benchmark each per round, and prints a markdown report of the medians: the
# gemm tile time by tile size (what a task costs), the tiled Cholesky T = 8 on 1 and 2 cores and
# T = 16, B = 128 on 2 cores, the empty task with two dependences on 1 and 2 cores, each with
# VSs / the faster OpenMP runtime, and issue 27's targets with their verdicts. When build/release
# was configured without libomp, the report says so and compares with libgomp alone.
# docs/performance.md quotes this script's output.
#
#   bench/vss_vs_omp.sh               build, run, print the report
#   bench/vss_vs_omp.sh --no-build    run the binaries already built
#
# Environment: MOIRAI_BENCH_REPETITIONS (default 5), the rounds. Run it on an otherwise idle
# machine.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
bench_start 15 "$@"
repetitions="${MOIRAI_BENCH_REPETITIONS:-5}"
bench_count MOIRAI_BENCH_REPETITIONS "$repetitions"
dir="$root/build/release"
[[ $build -eq 0 ]] || bench_build release moirai_vss_benches
# bench/CMakeLists.txt builds the libomp variant only where cmake/MoiraiOpenMP.cmake found libomp;
# the cache, not a binary left from an earlier configure, says whether it did.
runtimes=(libgomp)
if grep -q '^MOIRAI_HAVE_LIBOMP:INTERNAL=TRUE$' "$dir/CMakeCache.txt" 2>/dev/null; then
  runtimes+=(libomp)
fi
declare -A binary=([vss]="$dir/bench/moirai_vss_bench" [libgomp]="$dir/bench/moirai_vss_bench"
                   [libomp]="$dir/bench/moirai_vss_bench_libomp")
variants=(vss "${runtimes[@]}")
for variant in "${variants[@]}"; do
  [[ -x "${binary[$variant]}" ]] ||
    { echo "$script: ${binary[$variant]} not found: build it first (drop --no-build)" >&2; exit 1; }
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# run_variant VARIANT ROUND: one repetition of the variant's benchmarks, in a process of its own
# (one OpenMP runtime per process; VSs in the libgomp binary, which starts no OpenMP thread when
# only VSs runs), written to $out/VARIANT.ROUND.json. Google Benchmark's banner on stderr is shown
# only when the run fails.
run_variant() {
  local filter='Omp'
  [[ $1 != vss ]] || filter='GemmTile|Vss'
  "${binary[$1]}" --benchmark_filter="$filter" --benchmark_out="$out/$1.$2.json" \
    --benchmark_out_format=json >/dev/null 2>"$out/stderr" ||
    { cat "$out/stderr" >&2; echo "$script: ${binary[$1]} failed" >&2; exit 1; }
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
# Each round runs every variant once, starting with the next one each round, so a drift of the
# machine (on this VM its speed moves from minute to minute) and whatever the run before leaves
# behind (clock frequency, caches) fall on all of them alike.
for round in $(seq "$repetitions"); do
  for i in "${!variants[@]}"; do
    variant=${variants[(round + i) % ${#variants[@]}]}
    echo "round $round of $repetitions: $variant" >&2
    run_variant "$variant" "$round"
  done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
revision=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "?")
python3 - "$out" "$revision" "$load_before" "$load_after" "$repetitions" "${runtimes[@]}" <<'PY'
import collections, glob, json, os, statistics, sys
out, revision, before, after, reps, *runtimes = sys.argv[1:]
# Every repetition's ns_per_op by variant and by benchmark, the runtime's name taken out of the
# benchmark's (BM_CholeskyVss/T:8/... and BM_CholeskyOmp/T:8/... are both Cholesky/T:8/...).
values = collections.defaultdict(list)
for path in glob.glob(f"{out}/*.json"):
    variant = os.path.basename(path).split(".")[0]
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") != "iteration" or "ns_per_op" not in b:
            continue  # skipped: a machine with fewer cores
        name, *args = b["run_name"].removeprefix("BM_").removesuffix("/manual_time").split("/")
        name = name.removesuffix("Vss").removesuffix("Omp")
        values[(variant, "/".join([name, *args]))].append(b["ns_per_op"])
med = {key: statistics.median(v) for key, v in values.items()}

def us(ns): return f"{ns / 1e3:,.1f} µs"
def ms(ns): return f"{ns / 1e6:,.2f} ms"
def cores(n): return f"{n} core{'s' if n > 1 else ''}"

names = ["VSs", *runtimes]
print(f"`bench/vss_vs_omp.sh` at {revision}: median of {reps} round{'s' if int(reps) > 1 else ''}, each running "
      f"{', '.join(names[:-1])} and {names[-1]} in turns; load average {before} before, {after} after.")
if "libomp" in runtimes:
    print("libomp runs the code GCC compiled for libgomp, through the GOMP_* entry points it exports.\n")
else:
    print("LLVM's libomp was not found when build/release was configured (CMake's 'OpenMP apps' line "
          "says why; Debian: libomp-16-dev, which scripts/setup.sh installs), so moirai_vss_bench_libomp "
          "is not built: there is no libomp column, and the faster OpenMP runtime is libgomp.\n")

print("| tile size B | one gemm task |")
print("| ---: | ---: |")
gemm = {int(bench.split(":")[1]): ns for (variant, bench), ns in med.items()
        if bench.startswith("GemmTile/")}
for b in sorted(gemm):
    print(f"| {b} | {us(gemm[b])} |")

# row prints a benchmark's medians, VSs's and each runtime's, and VSs / the faster runtime, which
# it keeps in ratios for the targets; nothing where one of them has no figure (a skipped run).
ratios = {}
def row(label, bench, unit, digits):
    v = med.get(("vss", bench))
    omp = [med.get((runtime, bench)) for runtime in runtimes]
    if v is None or None in omp:
        return
    fastest = min(range(len(runtimes)), key=lambda i: omp[i])
    ratios[bench] = (v / omp[fastest], runtimes[fastest])
    cells = " | ".join(unit(ns) for ns in [v, *omp])
    print(f"| {label} | {cells} | {v / omp[fastest]:.{digits}f} ({runtimes[fastest]}) |")
header = " | ".join(["VSs", *runtimes, "VSs / the faster OpenMP"])
rule = " | ".join(["---:"] * (len(runtimes) + 2))

print(f"\n| Cholesky | {header} |\n| --- | {rule} |")
cholesky = sorted((tuple(int(arg.split(":")[1]) for arg in bench.split("/")[1:]), bench)
                  for (variant, bench) in med if variant == "vss" and bench.startswith("Cholesky/"))
for (t, c, b), bench in cholesky:
    row(f"T = {t}, {cores(c)}, B = {b}", bench, ms, 3)
print(f"\n| empty task, two dependences | {header} |\n| --- | {rule} |")
for c in (1, 2):
    row(cores(c), f"EmptyTask/cores:{c}", lambda ns: f"{ns:,.0f} ns", 2)

# Issue 27's targets: VSs / the faster OpenMP runtime at most this much.
targets = [("empty task, 1 core", "EmptyTask/cores:1", 1.2, 2),
           ("empty task, 2 cores", "EmptyTask/cores:2", 1.0, 2),
           ("Cholesky T = 8, B = 64, 2 cores", "Cholesky/T:8/cores:2/B:64", 1.1, 3),
           ("Cholesky T = 16, B = 128, 2 cores", "Cholesky/T:16/cores:2/B:128", 1.0, 3)]
print("\n| target (issue 27): VSs / the faster OpenMP | measured | verdict |")
print("| --- | --- | --- |")
for label, bench, bound, digits in targets:
    if bench not in ratios:
        print(f"| {label} at most {bound:.1f}x | not measured | - |")
        continue
    r, runtime = ratios[bench]
    verdict = "**met**" if r <= bound else "**missed**"
    print(f"| {label} at most {bound:.1f}x | {r:.{digits}f}x ({runtime}) | {verdict} |")
PY
