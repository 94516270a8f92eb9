# Runs CMD (a ;-list) and checks both how it ended and what it said:
#   EXIT=zero     exit 0, the output matches REGEX and, when given, not FAIL_REGEX.
#                 (CTest's PASS_REGULAR_EXPRESSION would not do: it replaces the exit-code
#                 check, so a run that printed "validation: PASSED" and then crashed
#                 while tearing down passed.)
#   EXIT=nonzero  a non-zero exit and the output matches REGEX: a failure must be
#                 reported, clearly, not merely happen.
# cmake -DCMD=... -DEXIT=zero|nonzero -DREGEX=... [-DFAIL_REGEX=...] -P expect_exit.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(EXIT STREQUAL "zero" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}, expected 0")
elseif(EXIT STREQUAL "nonzero" AND rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit, got 0")
elseif(NOT EXIT MATCHES "^(zero|nonzero)$")
  message(FATAL_ERROR "EXIT must be zero or nonzero, got '${EXIT}'")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "exit ${rc}, but the output does not match '${REGEX}'")
endif()
if(DEFINED FAIL_REGEX AND "${out}${err}" MATCHES "${FAIL_REGEX}")
  message(FATAL_ERROR "exit ${rc}, and the output matches '${FAIL_REGEX}'")
endif()
message("exit ${rc} and '${REGEX}' found, as expected")
