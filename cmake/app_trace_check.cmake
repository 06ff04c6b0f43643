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
file(REMOVE "${TRACE}" "${TRACE}.scg.svg" "${TRACE}.ucc.svg")
