#!/usr/bin/env bash
# Checks Moirai as a user gets it: installs a build into a temporary prefix, builds the
# out-of-tree example (examples/) against it with CMake (find_package(Moirai 0.2)) under GCC and
# clang, with pkg-config, and against a shared-library build, runs it on a simulated machine and
# on real cores with --trace, reads the trace with the installed `moirai report`, checks the
# installed OpenMP tool (MOIRAI_OMPT_LIBRARY, `moirai record`), and checks that Moirai added as a subproject
# defines only prefixed targets. Each check prints "ok: ..."; the last line counts them.
#
#   scripts/test_install.sh [BUILD_DIR]      (default build/release, already built)
#
# Environment: MOIRAI_CLANG (default clang++-16), the clang that builds the example and the
# shared libraries; MOIRAI_JOBS (default: the number of CPUs), the build's parallel jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build/release}
clang=${MOIRAI_CLANG:-clang++-16}
jobs=${MOIRAI_JOBS:-$(nproc)}
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "test_install: $build is not a configured build (run scripts/build.sh release)" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/moirai-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
passed=0

ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "test_install: FAILED: $*" >&2; exit 1; }
# run_logged LOG COMMAND...: runs the command with its output in LOG, shown when it fails.
run_logged() {
  local log=$1 code=0; shift
  "$@" >"$log" 2>&1 || code=$?
  if [ "$code" -ne 0 ]; then
    cat "$log" >&2
    fail "$* (exit $code)"
  fi
}

# 1. The install: headers, libraries, tools, the CMake package and moirai.pc.
run_logged "$work/install.log" cmake --install "$build" --prefix "$prefix"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
for file in include/moirai/ssr/ssr.h include/moirai/program/app.h bin/moirai \
            "$libdir/cmake/Moirai/MoiraiConfig.cmake" "$libdir/cmake/Moirai/MoiraiConfigVersion.cmake" \
            "$libdir/cmake/Moirai/MoiraiTargets.cmake" "$libdir/pkgconfig/moirai.pc"; do
  [ -e "$prefix/$file" ] || fail "the install lacks $file"
done
ok "cmake --install $build --prefix PREFIX: headers, libraries, bin/moirai, the CMake package, moirai.pc"

# 1b. The OpenMP tool: find_package(Moirai) names it (MOIRAI_OMPT_LIBRARY, Moirai::ompt_tool),
# pkg-config too, and the installed `moirai record` loads the installed one.
mkdir -p "$work/ompt-user"
cat >"$work/ompt-user/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(ompt_user LANGUAGES CXX)
find_package(Moirai 0.2 REQUIRED)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/ompt-library.txt
     CONTENT "${MOIRAI_OMPT_LIBRARY}\n$<TARGET_FILE:Moirai::ompt_tool>\n")
CMAKE
run_logged "$work/ompt-user.log" cmake -S "$work/ompt-user" -B "$work/ompt-user/build" -DCMAKE_PREFIX_PATH="$prefix"
ompt_library=$(sed -n 1p "$work/ompt-user/build/ompt-library.txt")
[ "$ompt_library" -ef "$prefix/$libdir/libmoirai_ompt.so" ] && [ -f "$ompt_library" ] ||
  fail "find_package(Moirai): MOIRAI_OMPT_LIBRARY is '$ompt_library', not the installed $libdir/libmoirai_ompt.so"
[ "$(sed -n 2p "$work/ompt-user/build/ompt-library.txt")" = "$ompt_library" ] ||
  fail "find_package(Moirai): \$<TARGET_FILE:Moirai::ompt_tool> is not MOIRAI_OMPT_LIBRARY"
[ "$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --variable=ompt_library moirai)" -ef "$ompt_library" ] ||
  fail "pkg-config --variable=ompt_library moirai is not the installed tool"
ok "find_package(Moirai): MOIRAI_OMPT_LIBRARY and Moirai::ompt_tool are $libdir/libmoirai_ompt.so, which exists; pkg-config's ompt_library too"
run_logged "$work/record-help.log" "$prefix/bin/moirai" record --help
grep -q "^usage: moirai record" "$work/record-help.log" || fail "PREFIX/bin/moirai record --help printed no usage"
code=0
"$prefix/bin/moirai" record -o "$work/env.mtrace" -- sh -c 'echo "tool: $OMP_TOOL_LIBRARIES"' >"$work/record.log" 2>&1 || code=$?
[ "$code" -eq 3 ] && [ "$(sed -n 's/^tool: //p' "$work/record.log")" -ef "$ompt_library" ] ||
  { cat "$work/record.log" >&2; fail "PREFIX/bin/moirai record does not load the installed tool (exit $code)"; }
ok "PREFIX/bin/moirai record --help runs; moirai record loads PREFIX/$libdir/libmoirai_ompt.so"
# libomp's work per task: its probe is installed beside moirai where clang++-16 and libomp are.
if command -v clang++-16 >/dev/null && [ -f /usr/lib/llvm-16/lib/libomp.so ]; then
  "$prefix/bin/moirai-omp-task-cost" >"$work/task-cost.log" 2>&1 &&
    grep -q '^task_create=[0-9.]*,task_create_dep=[0-9.]*,task_end=[0-9.]*,task_end_dep=[0-9.]*$' "$work/task-cost.log" ||
    { cat "$work/task-cost.log" >&2; fail "PREFIX/bin/moirai-omp-task-cost does not measure libomp's work per task"; }
  ok "PREFIX/bin/moirai-omp-task-cost measures libomp's work per task, beside moirai"
fi

# 1c. The vocabulary's old names (before it moved to core/, issue 37) still build: the target
# Moirai::instrument_api, the headers moirai/instrument/*.h and moirai::instrument::RuntimeObserver.
mkdir -p "$work/old-names"
cat >"$work/old-names/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(old_names LANGUAGES CXX)
find_package(Moirai 0.2 REQUIRED)
add_executable(old_names main.cpp)
target_link_libraries(old_names PRIVATE Moirai::instrument_api)
CMAKE
cat >"$work/old-names/main.cpp" <<'CPP'
#include "moirai/instrument/ids.h"
#include "moirai/instrument/runtime_observer.h"
struct Counting final : moirai::instrument::RuntimeObserver {
  void unit_begin(moirai::CoreId, moirai::VpId, moirai::UnitId) override { ++units; }
  int units = 0;
};
int main() {
  Counting counting;
  moirai::RuntimeObserver& observer = counting;
  observer.unit_begin(0, 1, 1);
  const moirai::instrument::TimeSource* time = nullptr;
  return counting.units == 1 && time == nullptr ? 0 : 1;
}
CPP
run_logged "$work/old-names-configure.log" cmake -S "$work/old-names" -B "$work/old-names/build" -DCMAKE_PREFIX_PATH="$prefix"
run_logged "$work/old-names-build.log" cmake --build "$work/old-names/build"
run_logged "$work/old-names-run.log" "$work/old-names/build/old_names"
ok "the old names build and run: Moirai::instrument_api, moirai/instrument/runtime_observer.h, moirai::instrument::RuntimeObserver"

# 2. Every installed header compiles on its own, with clang (C++20 from the command line here).
for header in $(cd "$prefix/include" && find moirai -name '*.h' | sort); do
  echo "#include \"$header\"" | "$clang" -std=c++20 -fsyntax-only -x c++ -I"$prefix/include" - \
    2>"$work/header.log" || { cat "$work/header.log" >&2; fail "$header does not compile alone with $clang"; }
done
ok "every installed header compiles on its own with $clang"

# 3. The example against the installed package, with each compiler.
example_runs() {  # example_runs NAME BINARY
  local name=$1 binary=$2
  "$binary" --machine sim:8 --n 100000 --chunks 24 >"$work/$name-sim.log" 2>&1 ||
    { cat "$work/$name-sim.log" >&2; fail "$name: chunk_sum --machine sim:8"; }
  grep -q "chunk_sum: ok" "$work/$name-sim.log" && grep -q "virtual time:" "$work/$name-sim.log" ||
    fail "$name: chunk_sum --machine sim:8 printed no result or virtual time"
  ok "$name: chunk_sum --machine sim:8 ($(grep -o 'virtual time: [0-9.]* s' "$work/$name-sim.log"))"
  "$binary" --trace "$work/$name.mtrace" --counters none --n 100000 >"$work/$name-real.log" 2>&1 ||
    { cat "$work/$name-real.log" >&2; fail "$name: chunk_sum --trace on real cores"; }
  grep -q "chunk_sum: ok" "$work/$name-real.log" || fail "$name: chunk_sum on real cores"
  run_logged "$work/$name-report.log" "$prefix/bin/moirai" report "$work/$name.mtrace"
  grep -q "makespan:" "$work/$name-report.log" || fail "$name: moirai report printed no makespan"
  ok "$name: chunk_sum --trace on real cores, then PREFIX/bin/moirai report ($(grep -m1 -o 'makespan: .*' "$work/$name-report.log"))"
  local code=0
  "$binary" --chunks 0 >/dev/null 2>"$work/$name-bad.log" || code=$?
  [ "$code" -eq 2 ] && grep -q "^chunk_sum: error: --chunks: 0 is out of range" "$work/$name-bad.log" ||
    fail "$name: chunk_sum --chunks 0 exited $code, expected 2 with a message"
  ok "$name: chunk_sum --chunks 0 exits 2 naming the flag"
}
for compiler in g++ "$clang"; do
  name=cmake-$(basename "$compiler")
  run_logged "$work/$name-configure.log" cmake -S examples -B "$work/$name" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release
  run_logged "$work/$name-build.log" cmake --build "$work/$name" -j "$jobs"
  ok "$name: find_package(Moirai 0.2) and build examples/ with $compiler"
  example_runs "$name" "$work/$name/chunk_sum"
done

# 4. pkg-config: the same program from one compiler command.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --modversion moirai)" = "$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")" ] ||
  fail "pkg-config --modversion moirai does not give the project version"
# shellcheck disable=SC2046  # pkg-config's flags are words
run_logged "$work/pc-build.log" g++ -std=c++20 -O2 examples/chunk_sum.cpp -o "$work/chunk_sum-pc" \
  $(pkg-config --cflags --libs moirai)
ok "pkg-config: g++ -std=c++20 chunk_sum.cpp \$(pkg-config --cflags --libs moirai), moirai $(pkg-config --modversion moirai)"
example_runs pkg-config "$work/chunk_sum-pc"

# 5. The shared-library option: the libraries and the tool built shared by clang (no apps,
# tests or benchmarks), installed, and the example built against them by GCC.
run_logged "$work/shared-configure.log" cmake -S . -B "$work/shared-build" -DCMAKE_CXX_COMPILER="$clang" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=ON -DMOIRAI_INSTALL=ON \
  -DMOIRAI_BUILD_APPS=OFF -DMOIRAI_BUILD_TESTS=OFF -DMOIRAI_BUILD_BENCH=OFF
run_logged "$work/shared-build.log" cmake --build "$work/shared-build" -j "$jobs"
run_logged "$work/shared-install.log" cmake --install "$work/shared-build" --prefix "$work/shared"
[ -e "$work/shared/$libdir/libmoirai_ssr.so" ] || fail "the shared install lacks $libdir/libmoirai_ssr.so"
run_logged "$work/cmake-shared-configure.log" cmake -S examples -B "$work/cmake-shared" \
  -DCMAKE_PREFIX_PATH="$work/shared" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Release
run_logged "$work/cmake-shared-build.log" cmake --build "$work/cmake-shared" -j "$jobs"
# ldd's output is read whole before grep looks at it: `ldd | grep -q` ends ldd with SIGPIPE when
# grep stops at the first match, and pipefail turns that into a failure of a check that held.
loaded=$(ldd "$work/cmake-shared/chunk_sum") ||
  fail "ldd cannot read the example built against the shared install"
grep -q "$work/shared/.*libmoirai_ssr.so" <<<"$loaded" ||
  fail "the example built against the shared install does not load its libmoirai_ssr.so; ldd says:
$loaded"
ok "-DBUILD_SHARED_LIBS=ON: shared libraries by $clang, installed; examples/ built against them with g++"
prefix=$work/shared
example_runs cmake-shared "$work/cmake-shared/chunk_sum"

# 6. As a subproject, Moirai defines only targets whose names start with moirai.
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES CXX)
add_subdirectory("$root" moirai)
add_executable(matmul main.cpp)  # a user's own target of a name Moirai's apps use
target_link_libraries(matmul PRIVATE Moirai::ssr Moirai::program)
CMAKE
echo 'int main() {}' >"$work/parent/main.cpp"
run_logged "$work/parent.log" cmake -S "$work/parent" -B "$work/parent/build"
others=$(cmake --build "$work/parent/build" --target help | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p' |
         grep -v -e '^moirai[_-]' -e '^matmul$' -e '^all$' -e '^clean$' -e '^depend$' -e '^edit_cache$' \
                 -e '^rebuild_cache$' -e '^install' -e '^list_install_components$' -e '\.[io]$' -e '\.s$' || true)
[ -z "$others" ] || fail "as a subproject Moirai defines unprefixed targets: $others"
ok "add_subdirectory(moirai): only moirai_* and moirai-* targets, no apps, tests or benchmarks"

echo "test_install: $passed checks passed"
