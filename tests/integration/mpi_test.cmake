# commbench_mpi_test(NAME NP [TIMEOUT s] [WILL_FAIL] [GTEST] [PASS_REGEX re] COMMAND cmd args...)
# Runs `cmd` under this build's launcher (mpirun.openmpi or mpirun.mpich) with NP ranks.
# Open MPI refuses root and more ranks than cores unless told; both are normal here.
# GTEST: `cmd` is a whole GoogleTest suite in one CTest test, so CTest never sees its
# cases: a GTEST_SKIP inside it, or a --gtest_filter that matches nothing (gtest exits 0),
# fails the test instead of passing unseen.
set(COMMBENCH_GTEST_FAIL_REGEX "\\[  SKIPPED \\]|\\[==========\\] 0 tests from")
function(commbench_mpi_test name np)
  cmake_parse_arguments(T "WILL_FAIL;GTEST" "TIMEOUT;PASS_REGEX" "COMMAND" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set(launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np})
  if(COMMBENCH_MPI_FLAVOR STREQUAL "openmpi")
    list(APPEND launcher --oversubscribe)
  endif()
  if(T_PASS_REGEX)
    # The exit code must be 0 as well (see expect_exit.cmake).
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND} "-DCMD=${launcher};${T_COMMAND}" -DEXIT=zero
                     "-DREGEX=${T_PASS_REGEX}" -P ${CMAKE_SOURCE_DIR}/tests/integration/expect_exit.cmake)
  else()
    add_test(NAME ${name} COMMAND ${launcher} ${T_COMMAND})
  endif()
  set(env ${COMMBENCH_LEAKCHECK_ENV})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${env}"
                                          PROCESSORS ${np})
  if(T_WILL_FAIL)
    set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_GTEST)
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${COMMBENCH_GTEST_FAIL_REGEX}")
  endif()
endfunction()

# commbench_error_test(NAME NP REGEX cmd args...): the command must exit non-zero within
# the timeout and print exactly one "<program>: error" line matching REGEX.
function(commbench_error_test name np regex)
  set(launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np})
  if(COMMBENCH_MPI_FLAVOR STREQUAL "openmpi")
    list(APPEND launcher --oversubscribe)
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/integration/expect_error.sh "${regex}" ${launcher} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 ENVIRONMENT
    "${COMMBENCH_LEAKCHECK_ENV}")
endfunction()
