# Runs CMD (a list: the program, then its arguments) and passes only when it fails (a non-zero exit or a signal)
# and its output matches the regular expression EXPECT: a check that the regression driver reports what it must.
#   cmake -DCMD=prog;arg... -DEXPECT=regex -P expect_failure.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc STREQUAL "0")
  message(FATAL_ERROR "expected a failure, but the command passed:\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "the command failed (${rc}), but its output does not match '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "failed as expected (${rc}), output matching '${EXPECT}'")
