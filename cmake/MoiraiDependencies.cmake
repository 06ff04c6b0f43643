# Finds every external part Moirai builds on. A missing one stops configure with the Debian
# package that provides it (scripts/setup.sh installs them all). hwloc, PAPI and Graphviz come
# through Moirai's own Find modules (cmake/modules/), which the installed package ships too, so
# a user's find_package(Moirai) finds them the same way (MoiraiConfig.cmake.in).
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR}/modules)

# moirai_require(<package> <Debian package> [find_package args...])
macro(moirai_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "${package} not found: install the Debian package '${debian_package}' (or run scripts/setup.sh)")
  endif()
  message(STATUS "Found ${package} ${${package}_VERSION}")
endmacro()

# Static Boost.Context: every construct switches fibers twice, and a call through the PLT into
# jump_fcontext costs a measurable share of that (docs/performance-history.md). Shared Moirai
# libraries take the shared Boost: position-independent code is what they need anyway.
if(BUILD_SHARED_LIBS)
  set(MOIRAI_BOOST_STATIC OFF)
else()
  set(MOIRAI_BOOST_STATIC ON)
endif()
set(Boost_USE_STATIC_LIBS ${MOIRAI_BOOST_STATIC})
moirai_require(Boost "libboost-context-dev libboost-fiber-dev" 1.74 CONFIG COMPONENTS context fiber)
moirai_require(hwloc libhwloc-dev MODULE)
moirai_require(PAPI libpapi-dev MODULE)
moirai_require(Graphviz libgraphviz-dev MODULE)
moirai_require(ZLIB zlib1g-dev MODULE)
moirai_require(OTF2 libopen-trace-format2-dev MODULE)
moirai_require(SQLite3 libsqlite3-dev MODULE)
moirai_require(nlohmann_json nlohmann-json3-dev CONFIG)
find_package(Threads REQUIRED)
# elfutils through pkg-config: libdw symbolises the OpenMP tool's call sites (ompt/), libelf reads
# a program's needed libraries when `moirai record` wrote no trace (tools/moirai/).
find_package(PkgConfig REQUIRED)
foreach(module libdw libelf)
  pkg_check_modules(${module} QUIET IMPORTED_TARGET ${module})
  if(NOT ${module}_FOUND)
    message(FATAL_ERROR "${module} not found: install the Debian package 'libdw-dev' (or run scripts/setup.sh)")
  endif()
  message(STATUS "Found ${module} ${${module}_VERSION}")
endforeach()
# The command lines of `moirai`, moirai-calibrate and the apps (header-only, used privately, so
# an installed Moirai needs neither at link time) and the tools' JSON output.
moirai_require(CLI11 libcli11-dev CONFIG)
moirai_require(nlohmann_json nlohmann-json3-dev CONFIG)
if(MOIRAI_BUILD_TESTS)
  moirai_require(GTest googletest CONFIG)
endif()
if(MOIRAI_BUILD_BENCH)
  moirai_require(benchmark libbenchmark-dev CONFIG)
endif()
