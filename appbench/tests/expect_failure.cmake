# Runs CMD (a ;-list) and passes only if it exits non-zero AND its output matches REGEX:
# a failure must be reported, clearly, not merely happen. Invoked as
#   cmake -DCMD=... -DREGEX=... -P expect_failure.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit, got 0")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "exit ${rc}, but the output does not match '${REGEX}'")
endif()
message("exit ${rc} with the expected error: ok")
