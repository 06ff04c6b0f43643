# app_trace_check.cmake: runs an app with --trace, then reads the trace with `moirai stats`,
# `moirai report`, `moirai scg` and `moirai ucc`; fails unless the app exits with APP_EXIT (0 by
# default; 1 for an app that ends in a reported deadlock) and every reading exits 0.
#
#   cmake -DCMD=<program;arg;...> -DMOIRAI=<moirai tool> -DTRACE=<file> [-DAPP_EXIT=<code>]
#         -P app_trace_check.cmake
foreach(var CMD MOIRAI TRACE)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "app_trace_check: pass -D${var}=...")
  endif()
endforeach()
if(NOT DEFINED APP_EXIT)
  set(APP_EXIT 0)
endif()
foreach(step "${CMD};--trace;${TRACE}" "${MOIRAI};stats;${TRACE}" "${MOIRAI};report;${TRACE}"
             "${MOIRAI};scg;${TRACE};-o;${TRACE}.scg.svg" "${MOIRAI};ucc;${TRACE};-o;${TRACE}.ucc.svg")
  execute_process(COMMAND ${step} TIMEOUT 120 RESULT_VARIABLE code OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${step}")
  set(expected 0)
  if(step STREQUAL "${CMD};--trace;${TRACE}")
    set(expected ${APP_EXIT})
  endif()
  if(NOT code STREQUAL "${expected}")
    message(FATAL_ERROR "app_trace_check: '${shown}' exited ${code}\n${out}\n${err}")
  endif()
  message("ok: ${shown}")
endforeach()
# The report's hints claim disjoint parts of the lost core time: their losses never add up to
# more than it (JSON times are seconds with 9 decimals: compared as whole nanoseconds).
execute_process(COMMAND ${MOIRAI} report ${TRACE} --json TIMEOUT 120 RESULT_VARIABLE code OUTPUT_VARIABLE json)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "app_trace_check: 'moirai report --json' exited ${code}")
endif()
function(nanoseconds out text)
  string(REPLACE "." "" digits "${text}")
  string(REGEX REPLACE "^0+" "" digits "${digits}")
  if(digits STREQUAL "")
    set(digits 0)
  endif()
  set(${out} ${digits} PARENT_SCOPE)
endfunction()
# The figures are read from the text as printed: string(JSON) would turn them into doubles and
# print them back with 17 digits.
string(REGEX MATCH "\"lost_s\":[0-9.]+" lost_text "${json}")
if(lost_text STREQUAL "")
  message(FATAL_ERROR "app_trace_check: 'moirai report --json' has no lost_s")
endif()
string(REGEX REPLACE "^\"lost_s\":" "" lost_text "${lost_text}")
nanoseconds(lost "${lost_text}")
set(claimed 0)
string(REGEX MATCHALL "\"lost_core_s\":[0-9.]+" hint_texts "${json}")
foreach(hint_text IN LISTS hint_texts)
  string(REGEX REPLACE "^\"lost_core_s\":" "" hint_text "${hint_text}")
  nanoseconds(hint "${hint_text}")
  math(EXPR claimed "${claimed} + ${hint}")
endforeach()
# Each printed figure is rounded to the nanosecond: allow one per hint.
math(EXPR allowed "${lost} + 64")
if(claimed GREATER allowed)
  message(FATAL_ERROR "app_trace_check: the hints claim ${claimed} ns of lost time, more than the run lost (${lost} ns)")
endif()
message("ok: the hints claim ${claimed} ns of ${lost} ns lost")
file(REMOVE "${TRACE}" "${TRACE}.scg.svg" "${TRACE}.ucc.svg")
