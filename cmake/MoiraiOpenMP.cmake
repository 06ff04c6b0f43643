# The OpenMP apps (apps/omp/): ordinary OpenMP programs that Moirai records through OMPT, the
# OpenMP tools interface, which LLVM's OpenMP runtime (libomp) implements and GCC's libgomp does
# not. Whatever compiler builds the rest of Moirai (GCC for the release preset, clang with
# sanitizers for the sanitize preset), these are compiled and linked by clang++-16 against libomp
# through custom commands, so none of the project's own flags (LTO, warnings) reach them, except
# the sanitizers of a sanitized build (the tool they load is sanitized too).
#
# MOIRAI_HAVE_LIBOMP (cache, internal) says whether clang++-16 builds and runs an OpenMP program
# here; when it does not, configure says why and the OpenMP apps and their tests are left out.
include_guard(GLOBAL)

# moirai_omp_probe(<result-var> <why-var>): can clang++-16 compile, link and run OpenMP here?
function(moirai_omp_probe result why)
  set(${result} FALSE PARENT_SCOPE)
  if(MOIRAI_OMP_CXX AND NOT EXISTS "${MOIRAI_OMP_CXX}")
    unset(MOIRAI_OMP_CXX CACHE)  # removed since the last configure: look again
  endif()
  find_program(MOIRAI_OMP_CXX NAMES clang++-16 DOC "clang++-16, which builds the OpenMP apps against LLVM's libomp")
  if(NOT MOIRAI_OMP_CXX)
    set(${why} "clang++-16 not found (Debian: clang-16)" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${MOIRAI_OMP_CXX} -print-resource-dir OUTPUT_VARIABLE resource_dir
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    set(${why} "${MOIRAI_OMP_CXX} -print-resource-dir failed (exit ${code})" PARENT_SCOPE)
    return()
  endif()
  if(NOT EXISTS ${resource_dir}/include/omp.h)
    set(${why} "LLVM's omp.h is not in ${resource_dir}/include (Debian: libomp-16-dev)" PARENT_SCOPE)
    return()
  endif()
  # clang links -lomp from LLVM's library folder, two levels above its resource folder.
  cmake_path(GET resource_dir PARENT_PATH llvm_lib)
  cmake_path(GET llvm_lib PARENT_PATH llvm_lib)
  set(library ${llvm_lib}/libomp.so)
  if(NOT EXISTS ${library})
    set(${why} "LLVM's libomp.so is not in ${llvm_lib} (Debian: libomp-16-dev)" PARENT_SCOPE)
    return()
  endif()
  # A program that runs a parallel region tells a working libomp from a library that only links.
  set(dir ${PROJECT_BINARY_DIR}/CMakeFiles/moirai_omp_probe)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/probe.cpp [=[
#include <omp.h>
int main() {
  int threads = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  threads = omp_get_num_threads();
  return threads == 2 ? 0 : 1;
}
]=])
  execute_process(COMMAND ${MOIRAI_OMP_CXX} -fopenmp=libomp ${dir}/probe.cpp -o ${dir}/probe
                  RESULT_VARIABLE code ERROR_VARIABLE error)
  if(NOT code EQUAL 0)
    string(STRIP "${error}" error)
    set(${why} "clang++-16 -fopenmp=libomp cannot build an OpenMP program: ${error}" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${dir}/probe RESULT_VARIABLE code ERROR_VARIABLE error)
  if(NOT code EQUAL 0)
    set(${why} "an OpenMP program built by clang++-16 does not run (exit ${code}): ${error}" PARENT_SCOPE)
    return()
  endif()
  set(${result} TRUE PARENT_SCOPE)
  set(${why} "${library}" PARENT_SCOPE)
endfunction()

# The probe runs once per build tree while it succeeds, and again at every configure while it
# fails, so installing the packages is enough to bring the apps in.
if(NOT MOIRAI_HAVE_LIBOMP OR NOT EXISTS "${MOIRAI_OMP_CXX}" OR NOT EXISTS "${MOIRAI_LIBOMP}")
  moirai_omp_probe(moirai_have_libomp moirai_libomp_why)
  set(MOIRAI_HAVE_LIBOMP ${moirai_have_libomp} CACHE INTERNAL "clang++-16 builds and runs OpenMP programs with LLVM's libomp")
  if(MOIRAI_HAVE_LIBOMP)
    set(MOIRAI_LIBOMP ${moirai_libomp_why} CACHE INTERNAL "LLVM's libomp, which the OpenMP apps link")
  endif()
endif()
if(MOIRAI_HAVE_LIBOMP)
  message(STATUS "OpenMP apps: built by ${MOIRAI_OMP_CXX} against ${MOIRAI_LIBOMP}")
else()
  message(STATUS "OpenMP apps (apps/omp/) are not built: ${moirai_libomp_why}; scripts/setup.sh installs what they need")
endif()

# MOIRAI_OMP_APP_DIR is where the OpenMP apps are built, under the names given to moirai_omp_app.
set(MOIRAI_OMP_APP_DIR ${PROJECT_BINARY_DIR}/apps/omp CACHE INTERNAL "where the OpenMP apps are built")

# moirai_omp_app(<name> SOURCES <file>... [INCLUDES <dir>...] [DIR <dir>]): builds <dir>/<name>
# (default ${MOIRAI_OMP_APP_DIR}) from the sources with clang++-16 -fopenmp=libomp, one object per
# source, each with a depfile so editing a header rebuilds it, in the target <name> (part of ALL).
# The target's property MOIRAI_OMP_APP holds the program's path (tests:
# $<TARGET_PROPERTY:<name>,MOIRAI_OMP_APP>).
function(moirai_omp_app name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DIR" "SOURCES;INCLUDES")
  if(NOT arg_DIR)
    set(arg_DIR ${MOIRAI_OMP_APP_DIR})
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "moirai_omp_app(${name}): no SOURCES")
  endif()
  # Their DWARF names sources relative to the tree (apps/omp/omp_cholesky.cpp), as the runtime's
  # own call sites do, so traces and views leak no build path.
  set(flags -std=c++20 -O2 -g -fopenmp=libomp -fno-omit-frame-pointer -Wall -Wextra -Wpedantic -Wshadow
            -ffile-prefix-map=${PROJECT_SOURCE_DIR}/= -ffile-prefix-map=${PROJECT_SOURCE_DIR}=.)
  if(MOIRAI_WERROR)
    list(APPEND flags -Werror)
  endif()
  # A sanitized build sanitizes the apps too: the OpenMP tool, built sanitized, is loaded into
  # them and needs the sanitizers' runtime, which only an executable carries.
  set(link_flags -fopenmp=libomp)
  if(MOIRAI_SANITIZE)
    list(APPEND flags ${moirai_sanitize_flags})
    list(APPEND link_flags ${moirai_sanitize_flags})
  endif()
  foreach(dir IN LISTS arg_INCLUDES)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND flags -I${dir})
  endforeach()
  # CLI11's headers, unless they are in the compiler's own search path (where -isystem would
  # reorder the C++ library's headers).
  get_target_property(cli11_dirs CLI11::CLI11 INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS cli11_dirs)
    if(NOT dir STREQUAL "/usr/include")
      list(APPEND flags -isystem ${dir})
    endif()
  endforeach()

  set(object_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.objects)
  set(objects)
  foreach(source IN LISTS arg_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    cmake_path(GET source STEM stem)
    set(object ${object_dir}/${stem}.o)
    if(object IN_LIST objects)
      message(FATAL_ERROR "moirai_omp_app(${name}): two sources named ${stem}")
    endif()
    add_custom_command(OUTPUT ${object}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${object_dir}
      COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} ${MOIRAI_OMP_CXX} ${flags} -MD -MF ${object}.d -c ${source} -o ${object}
      DEPENDS ${source}
      DEPFILE ${object}.d
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}  # the compile folder DWARF records: mapped to '' too
      COMMENT "Building ${name}: ${stem} (clang++-16, OpenMP)"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND objects ${object})
  endforeach()

  set(program ${arg_DIR}/${name})
  add_custom_command(OUTPUT ${program}
    COMMAND ${MOIRAI_OMP_CXX} ${link_flags} ${objects} -o ${program}
    DEPENDS ${objects}
    COMMENT "Linking the OpenMP app ${name} (clang++-16, libomp)"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${program})
  set_target_properties(${name} PROPERTIES MOIRAI_OMP_APP ${program})
endfunction()
