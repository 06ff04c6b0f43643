# app_trace_check.cmake: runs an app with --trace, then reads the trace with `moirai stats` and
# `moirai report`; fails unless all three exit 0.
#
#   cmake -DCMD=<program;arg;...> -DMOIRAI=<moirai tool> -DTRACE=<file> -P app_trace_check.cmake
foreach(var CMD MOIRAI TRACE)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "app_trace_check: pass -D${var}=...")
  endif()
endforeach()
foreach(step "${CMD};--trace;${TRACE}" "${MOIRAI};stats;${TRACE}" "${MOIRAI};report;${TRACE}")
  execute_process(COMMAND ${step} TIMEOUT 120 RESULT_VARIABLE code OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${step}")
  if(NOT code STREQUAL "0")
    message(FATAL_ERROR "app_trace_check: '${shown}' exited ${code}\n${out}\n${err}")
  endif()
  message("ok: ${shown}")
endforeach()
file(REMOVE "${TRACE}")
