# expect_exit.cmake: runs a command and fails unless it exits with the expected code, so a test
# can demand a specific non-zero exit (CTest alone only tells zero from non-zero).
#
#   cmake -DCMD=<program;arg;...> -DEXPECTED=<code> [-DSTDERR_MATCH=<regex>] [-DOUTPUT_MATCH=<regex>]
#         [-DTIMEOUT=<seconds>] -P expect_exit.cmake
#
# CMD is a CMake list (pass it quoted inside add_test). STDERR_MATCH must match the
# command's stderr, OUTPUT_MATCH its stdout and stderr together.
if(NOT DEFINED CMD OR CMD STREQUAL "")
  message(FATAL_ERROR "expect_exit: pass the command as -DCMD=<program;args...>")
endif()
if(NOT DEFINED EXPECTED)
  message(FATAL_ERROR "expect_exit: pass the expected exit code as -DEXPECTED=<code>")
endif()

if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 60)
endif()

# The own timeout ends a hanging command even when CTest's timeout kills only this script.
execute_process(COMMAND ${CMD}
  TIMEOUT ${TIMEOUT}
  RESULT_VARIABLE code
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)

string(REPLACE ";" " " shown "${CMD}")
message("command: ${shown}\nexit code: ${code}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")

if(NOT code STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "expect_exit: exit code was '${code}', expected ${EXPECTED}")
endif()
if(NOT "${STDERR_MATCH}" STREQUAL "" AND NOT err MATCHES "${STDERR_MATCH}")
  message(FATAL_ERROR "expect_exit: stderr does not match '${STDERR_MATCH}'")
endif()
if(NOT "${OUTPUT_MATCH}" STREQUAL "" AND NOT "${out}${err}" MATCHES "${OUTPUT_MATCH}")
  message(FATAL_ERROR "expect_exit: output does not match '${OUTPUT_MATCH}'")
endif()
message("expect_exit: ok")
