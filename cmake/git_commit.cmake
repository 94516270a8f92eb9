# Writes OUT (a header defining COMMBENCH_GIT_COMMIT) from the source tree SRC at build
# time, "-dirty" when tracked source files differ from the commit. Run by the commbench_git_commit
# target on every build; the header is rewritten only when the text changes, so nothing
# recompiles unless the commit does. (Read at configure time, it went stale: results
# built after later commits recorded the commit of the last `cmake --preset`.)
# Only sources count for "-dirty": a study writes results/ (CSVs, the gate's reference)
# between builds, and binaries built from a clean source tree must not claim otherwise.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=7 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" diff --quiet HEAD -- . ":(exclude)results"
                  RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    set(commit "${commit}-dirty")
  endif()
endif()
file(WRITE "${OUT}.tmp" "#pragma once\n#define COMMBENCH_GIT_COMMIT \"${commit}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
