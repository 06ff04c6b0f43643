#!/usr/bin/env bash
# Installs the Debian packages Moirai builds on, when any is missing. Idempotent: does nothing
# when all are present. Needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config          # toolchain
  libboost-context-dev libboost-fiber-dev   # VP fibers; Boost.Fiber is a benchmark peer
  libhwloc-dev                              # topology and pinning
  libpapi-dev                               # performance counters
  libgraphviz-dev                           # cgraph + gvc for the SCG and UCC
  graphviz                                  # neato and gvpr: the DOT of `moirai scg` re-rendered
  libopen-trace-format2-dev otf2-tools      # `moirai export --format otf2`; otf2-print reads it back
  libsqlite3-dev sqlite3                    # `moirai export --format sqlite`; the CLI for its tests
  nlohmann-json3-dev jq                     # the post-processor's JSON; the tests parse it back
  protobuf-compiler                         # protoc: the tests decode the Perfetto protobuf export
  libxml2-utils                             # xmllint: the tests check that the SVG views are XML
  libcli11-dev                              # the command lines of moirai, moirai-calibrate and the apps
  python3                                   # the doc checks (scripts/walkthrough_figures.py) and bench scripts
  time                                      # GNU time: bench/scale_bench.sh's CPU time and peak memory
  googletest libgtest-dev libbenchmark-dev  # tests and benchmarks
  clang-16 libclang-rt-16-dev               # the sanitized suite, the install test's clang builds, libFuzzer
  libomp-16-dev                             # LLVM's OpenMP runtime (OMPT): the OpenMP apps in apps/omp/
  openmpi-bin libopenmpi-dev                # Open MPI: the MPI apps (apps/mpi/), their launcher and the MPI tool
  mpich libmpich-dev                        # MPICH: the MPI tool's second build, MPICH's launcher
  libdw-dev                                 # elfutils: the OpenMP tool's call sites, `moirai record`'s ELF checks
  universal-ctags                           # the check that no function outside tests/ runs over 120 lines
)

# Node.js and npm run Chrome DevTools' trace engine on the Perfetto JSON export (a test). Some
# machine images bring their own node; Debian's is installed only where there is none.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} Debian packages are installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and not root; run as root or install sudo" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
