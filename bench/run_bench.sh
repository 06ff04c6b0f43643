#!/usr/bin/env bash
# Builds moirai_bench (release preset), runs it with repetitions and prints a markdown report:
# the machine, how busy it was with other work during the run, the median cost of each
# operation, and the project's performance targets with the measured ratios.
# docs/performance.md quotes this script's output.
#
#   bench/run_bench.sh                 build, run, print the report
#   bench/run_bench.sh --no-build      run the binary already built
#   bench/run_bench.sh -- ARGS...      pass extra arguments to moirai_bench (e.g. a filter)
#
# Environment: MOIRAI_BENCH_REPETITIONS (default 5); MOIRAI_BENCH_BUILD_DIR (default
# build/release; with --no-build, the build tree whose bench/moirai_bench runs); MOIRAI_BENCH_OUT
# (where the raw JSON goes, default <build dir>/bench/moirai_bench.json); MOIRAI_BENCH_REVISION
# (names the source revision when the tree is not a git checkout, e.g. a git archive export).
#
# Run it on an otherwise idle machine: on 2 cores any other busy process distorts every row.
# The report measures the CPU time other processes took during the run and says so when it
# was more than 5% of the machine.
source "$(dirname "${BASH_SOURCE[0]}")/script_start.sh"
invoked="bench/run_bench.sh"
if [[ $# -gt 0 ]]; then invoked+="$(printf ' %q' "$@")"; fi
build=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) bench_help 19 ;;
    *) bench_fail "unknown argument '$1' (see --help)" ;;
  esac
done

cd "$root"
[[ $build -eq 0 ]] || bench_build release moirai_bench
binary="$build_dir/bench/moirai_bench"
if [[ ! -x "$binary" ]]; then
  echo "run_bench.sh: $binary not found: build it first (drop --no-build)" >&2
  exit 1
fi
repetitions="${MOIRAI_BENCH_REPETITIONS:-5}"
json="${MOIRAI_BENCH_OUT:-$build_dir/bench/moirai_bench.json}"

cpu_model="$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//')"
# systemd-detect-virt --vm names the hypervisor (a container inside the VM is not the point);
# without it, the CPU's hypervisor flag still tells a guest from bare metal.
if virt="$(systemd-detect-virt --vm 2>/dev/null)" && [[ "$virt" != none ]]; then
  guest="yes: ${virt^^} guest (systemd-detect-virt --vm)"
elif grep -qw hypervisor /proc/cpuinfo; then
  guest="yes: a guest of some hypervisor (/proc/cpuinfo hypervisor flag)"
else
  guest="no (bare metal)"
fi

# Which source the numbers belong to: the commit, and whether the tree had changes on top of it.
if revision="$(git -C "$root" rev-parse --short HEAD 2>/dev/null)"; then
  if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    revision+=" with uncommitted changes"
  fi
else
  revision="${MOIRAI_BENCH_REVISION:-unknown (not a git checkout)}"
fi

export MB_REVISION="$revision" MB_JSON="$json" MB_NPROC="$(nproc)" MB_CPU="$cpu_model" MB_GUEST="$guest"
export MB_REPS="$repetitions" MB_KERNEL="$(uname -r)" MB_INVOKED="$invoked"
python3 - "$binary" "--benchmark_repetitions=$repetitions" "--benchmark_display_aggregates_only=true" \
  "--benchmark_out=$json" "--benchmark_out_format=json" ${extra[@]+"${extra[@]}"} <<'PY'
import json, os, re, resource, subprocess, sys, time

command = sys.argv[1:]
env = os.environ
ticks = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    # (busy, steal): CPU time the whole machine spent running anything, and time the hypervisor
    # gave this VM's CPUs to someone else, from /proc/stat.
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq) / ticks, steal / ticks

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

print("running: " + " ".join(command), file=sys.stderr, flush=True)
(busy0, steal0), ours0, wall0 = cpu_seconds(), children_cpu(), time.monotonic()
subprocess.run(command, stdin=subprocess.DEVNULL, stdout=sys.stderr, check=True)
(busy1, steal1), ours1, wall1 = cpu_seconds(), children_cpu(), time.monotonic()
nproc = int(env["MB_NPROC"])
wall = wall1 - wall0
others = max(0.0, (busy1 - busy0) - (ours1 - ours0))
others_share = others / (wall * nproc) if wall > 0 else 0.0
steal = steal1 - steal0

with open(env["MB_JSON"]) as f:
    report = json.load(f)

def plain_name(name):
    for suffix in ("/manual_time", "/real_time"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return re.sub(r"/iterations:[0-9]+$", "", name)

# Median, mean and standard deviation of the ns_per_op counter per benchmark; and, per
# repetition of the cross-core row, its ratio to the atomic anchor run right before it.
stats = {}
paired = []
chore_ns = {}  # the median wake_chore_ns of the recorded wake-up rows
for b in report["benchmarks"]:
    if "ns_per_op" not in b:
        continue
    name = plain_name(b["run_name"])
    if b.get("run_type") == "aggregate":
        stats.setdefault(name, {})[b["aggregate_name"]] = b["ns_per_op"]
        if b["aggregate_name"] == "median" and "wake_chore_ns" in b:
            chore_ns[name] = b["wake_chore_ns"]
    elif name == "BM_SsrPingPong/two_cores" and b.get("anchor_ns_per_op"):
        paired.append((b["ns_per_op"] / b["anchor_ns_per_op"], b["ns_per_op"], b["anchor_ns_per_op"]))
paired.sort()

rows = [
    ("BM_RawFiberRoundTrip", "raw Boost.Context fiber round trip (resume + switch back)"),
    ("BM_SsrPingPong/same_core", "SSR send_from_to/receive_from_to round trip, both VPs pinned to core 0 (2-core run)"),
    ("BM_SsrPingPong/one_core_run", "SSR round trip, 1-core run"),
    ("BM_SsrPingPong/two_cores", "SSR round trip, ping on core 0, pong on core 1"),
    ("BM_BoostFiberPingPong", "Boost.Fiber unbuffered_channel round trip, two fibers on one thread"),
    ("BM_PthreadCondvarPingPong", "std::mutex + std::condition_variable (pthread) round trip, two threads"),
    ("BM_AtomicPingPongTwoCores", "raw atomic ping-pong round trip, two threads pinned (hwloc) to the PUs of cores 0 and 1"),
    ("BM_SsrCreateEnd/same_core", "SSR create_vp + end of a child that returns at once, all on core 0 (stacks mapped by an untimed run before)"),
    ("BM_SsrCreateEnd/any_core", "SSR create_vp + end, children placed by the assigner (2 cores; stacks mapped before)"),
    ("BM_SsrCreateEnd/other_core", "SSR create_vp + end, creator on core 0, every child pinned to core 1 (stacks mapped before)"),
    ("BM_SsrCreateWake/spinning", "SSR create_vp of a child pinned to core 1, timed in the creator, core 1 idle (spinning) for 10 us before"),
    ("BM_SsrCreateWake/parked", "the same, core 1 idle for 200 us before (parked): the creator's kernel call that wakes it"),
    ("BM_SsrCreateWakeRecorded/spinning", "BM_SsrCreateWake/spinning with recording on"),
    ("BM_SsrCreateWakeRecorded/parked", "BM_SsrCreateWake/parked with recording on"),
    ("BM_RawFiberCreateEnd/fresh_guarded", "raw Boost.Context fiber create + run + end, new 256 KiB guard-paged stack each time (a VP without the stack pool)"),
    ("BM_RawFiberCreateEnd/reused_guarded", "raw Boost.Context fiber create + run + end, one 256 KiB guard-paged stack reused (a VP with it)"),
    ("BM_SsrRunStartup", "one whole ssr::run of an empty seed, 2 cores (excluded from every other SSR row)"),
    ("BM_Matmul/cores:1", "matmul, default MatmulConfig, 1 core (one multiply)"),
    ("BM_Matmul/cores:2", "matmul, default MatmulConfig, 2 cores (one multiply)"),
]

def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:,.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:,.1f} µs"
    return f"{ns:,.1f} ns"

def median(name):
    s = stats.get(name)
    return None if s is None or "median" not in s else s["median"]

print("## Machine\n")
print(f"- processing units (nproc): {nproc}")
print(f"- CPU model (/proc/cpuinfo): {env['MB_CPU']}")
print(f"- virtual machine: {env['MB_GUEST']}")
print(f"- kernel: {env['MB_KERNEL']}")
ctx = report.get("context", {})
if ctx.get("library_build_type"):
    print(f"- Google Benchmark library build type: {ctx['library_build_type']} (the distribution's libbenchmark)")
print(f"- other processes during the run: {others:.1f} s of CPU time, {100 * others_share:.1f}% of the "
      f"machine over {wall:.0f} s")
print(f"- CPU time stolen by the hypervisor during the run: {steal:.1f} s")
if others_share > 0.05 or steal > 0.05 * wall * nproc:
    print("\n**Warning: the machine was busy with other work during this run; the numbers below "
          "are distorted. Re-run on an idle machine.**")
print(f"\n## Command\n\nAt source revision {env['MB_REVISION']}:\n\n    {env['MB_INVOKED']}\n\nwhich ran\n\n    {' '.join(command)}\n")
print(f"Each row: the median over {env['MB_REPS']} repetitions of the benchmark's ns_per_op counter "
      "(time measured around the operations only, divided by their count); "
      "CV is the coefficient of variation over the repetitions.\n")
print("| benchmark | what one operation is | median | CV |")
print("| --- | --- | ---: | ---: |")
for name, what in rows:
    s = stats.get(name)
    if s is None or "median" not in s:
        print(f"| `{name}` | {what} | not run | |")
        continue
    cv = ""
    if s.get("mean") and "stddev" in s:
        cv = f"{100.0 * s['stddev'] / s['mean']:.1f}%"
    print(f"| `{name}` | {what} | {fmt_ns(s['median'])} | {cv} |")

raw = median("BM_RawFiberRoundTrip")
ssr = median("BM_SsrPingPong/same_core")
fiber = median("BM_BoostFiberPingPong")
pthread = median("BM_PthreadCondvarPingPong")
atomic = median("BM_AtomicPingPongTwoCores")
cross = median("BM_SsrPingPong/two_cores")
create_far = median("BM_SsrCreateEnd/any_core")
create_other = median("BM_SsrCreateEnd/other_core")
mm1 = median("BM_Matmul/cores:1")
mm2 = median("BM_Matmul/cores:2")

def verdict(ok):
    return "**met**" if ok else "**missed**"

def cross_core_target():
    # The paired ratio when the cross-core row ran: measured minutes apart, the anchor's own row
    # swings several-fold on this VM (dividing the two medians once gave a spurious "met").
    if not paired:
        return ("cross-core SSR round trip within 4x the raw atomic ping-pong on the same two cores (issue 27; issue 13 asked 2.5x)",
                (atomic, cross), lambda: (cross / atomic, f"{cross / atomic:.1f}x ({fmt_ns(cross)} / {fmt_ns(atomic)})", cross / atomic <= 4.0))
    ratio, ssr_ns, anchor_ns = paired[len(paired) // 2]  # the median repetition (upper, if even)
    return ("cross-core SSR round trip within 4x the atomic ping-pong run right before it (paired, per repetition; issue 27; issue 13 asked 2.5x)",
            (ratio,), lambda: (ratio, f"{ratio:.1f}x, the median of {len(paired)} repetitions ({fmt_ns(ssr_ns)} / {fmt_ns(anchor_ns)}; "
                                      f"all: {', '.join(f'{r:.1f}x' for r, _, _ in paired)})", ratio <= 4.0))

print("\n## Targets\n")
print("| target | measured | verdict |")
print("| --- | --- | --- |")
targets = [
    ("same-core SSR round trip within 10x the raw fiber round trip (issue 27; issue 13 asked 8x)",
     (raw, ssr), lambda: (ssr / raw, f"{ssr / raw:.1f}x ({fmt_ns(ssr)} / {fmt_ns(raw)})", ssr / raw <= 10.0)),
    cross_core_target(),
    ("SSR create + end of a VP placed by the assigner on 2 cores under 1 us",
     (create_far,), lambda: (create_far, fmt_ns(create_far), create_far < 1000.0)),
    ("SSR create + end of a VP on the other core (pinned there) under 0.5 us (issue 27; issue 13 asked 1 us)",
     (create_other,), lambda: (create_other, fmt_ns(create_other), create_other < 500.0)),
    ("same-core SSR round trip faster than Boost.Fiber's",
     (fiber, ssr), lambda: (fiber / ssr, f"Boost.Fiber / SSR = {fiber / ssr:.2f}x ({fmt_ns(fiber)} / {fmt_ns(ssr)})", fiber / ssr > 1.0)),
    ("same-core SSR round trip at least 20x faster than the pthread one",
     (pthread, ssr), lambda: (pthread / ssr, f"pthread / SSR = {pthread / ssr:.1f}x ({fmt_ns(pthread)} / {fmt_ns(ssr)})", pthread / ssr >= 20.0)),
    ("matmul on 2 cores at least 1.8x faster than on 1 core (default size)",
     (mm1, mm2), lambda: (mm1 / mm2, f"{mm1 / mm2:.2f}x ({fmt_ns(mm1)} / {fmt_ns(mm2)})", mm1 / mm2 >= 1.8)),
]
for title, inputs, compute in targets:
    if all(inputs):
        _, measured, ok = compute()
        print(f"| {title} | {measured} | {verdict(ok)} |")
    else:
        print(f"| {title} | not measured | not measured |")

# The report's claim about waking a parked core, against the gain of removing the cause: the
# recorded wake-up chore's mean (what `moirai report` books as waking cores, per wake-up) and what
# create_vp saves when core 1 still spins instead of having parked.
spin, park = median("BM_SsrCreateWake/spinning"), median("BM_SsrCreateWake/parked")
claim = chore_ns.get("BM_SsrCreateWakeRecorded/parked")
print("\n## The report's waking cores against the gain of removing the cause\n")
if spin and park and claim:
    gain = park - spin
    print(f"A recorded wake-up of a parked core: {fmt_ns(claim)} (what the report books as waking cores); "
          f"create_vp waking a parked core rather than a spinning one: {fmt_ns(park)} - {fmt_ns(spin)} = {fmt_ns(gain)}; "
          f"the claim is {100.0 * claim / gain:.0f} % of the gain.")
else:
    print("not measured (run BM_SsrCreateWake and BM_SsrCreateWakeRecorded)")
PY
