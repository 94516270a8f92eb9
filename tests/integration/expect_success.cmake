# Runs CMD (a ;-list) and passes only if it exits 0 AND its output matches REGEX (and,
# when given, does not match FAIL_REGEX). CTest's PASS_REGULAR_EXPRESSION alone would not
# do: it replaces the exit-code check, so a run that printed "validation: PASSED" and then
# crashed while tearing down passed. Invoked as
#   cmake -DCMD=... -DREGEX=... [-DFAIL_REGEX=...] -P expect_success.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}, expected 0")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "exit 0, but the output does not match '${REGEX}'")
endif()
if(DEFINED FAIL_REGEX AND "${out}${err}" MATCHES "${FAIL_REGEX}")
  message(FATAL_ERROR "the output matches '${FAIL_REGEX}'")
endif()
message("exit 0 and '${REGEX}' found: ok")
