#!/usr/bin/env bash
# Mutation checks of the test suite itself: each deliberate breakage below is applied to
# the source tree one at a time, the affected targets are rebuilt in an existing build
# directory, and the tests that guard that behaviour are run. A breakage counts as caught
# when at least one of them fails. Every file is restored (and rebuilt) afterwards, also on
# failure or Ctrl-C.
#
#   tests/mutation/run.sh              all mutations (needs build/openmpi and build/asan,
#                                      e.g. from scripts/test; ~15 min on 2 cores)
#   tests/mutation/run.sh NAME...      only these (names below)
#
# Not in CI: it rebuilds and reruns for every mutation. Run it after changing a check or
# the code a mutation touches; tests/README.md records the last result.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

# name | file | sed -E expression (never a | inside) | build dir | targets | ctest regex | what it breaks
mutations=(
  "validation_never_compares|microbench/harness/pattern.cpp|s/^  return wrong;\$/  return 0;/|build/openmpi|pingpong bandwidth|^validation_catches_corrupt_payload_|--validate stops comparing bytes"
  "payload_byte_flipped|backends/tcp/tcp_comm.cpp|s#^    std::memcpy\(out, staging_\.get\(\) \+ begin_, from_staging\);\$#&\n    out[0] ^= std::byte{1};#|build/openmpi|pingpong|^pingpong_tcp_validate\$|the tcp backend delivers a payload byte flipped"
  "fault_ignored|tests/support/fault/fault_comm.cpp|s/if \(nth == plan_->drop_on_write\) \{/if (false \\&\\& nth == plan_->drop_on_write) {/|build/openmpi|reliability_suite|^reliability_faults\$|the fault backend ignores a planned drop"
  "error_path_leaks|backends/comm/frame_header.cpp|s/^  if \(size > limits\.max_frame_bytes\)\$/  if (size > limits.max_frame_bytes \\&\\& (static_cast<void>(new char[64]), true))/|build/asan|unit_tests|^FrameHeader\\.|a refused oversized frame leaks 64 bytes"
  "extra_syscall_on_read|backends/tcp/tcp_comm.cpp|s#^    RecvAttempt r\{fd_, staging_\.get\(\) \+ end_, staging_size_ - end_\};\$#    ::syscall(SYS_getppid);\n&#;s#^\#include <unistd.h>\$#&\n\#include <sys/syscall.h>#|build/openmpi|icount_pingpong|^icount_budget\$|every tcp read makes one more system call (getppid)"
  "gate_never_reports|scripts/regress|s/^def judge\(/def judge_unused(/|build/openmpi||^results_pipeline\$|the regression gate judges nothing"
)

want=("$@")
status=0
results=()
restore() {
  if [ -n "${saved:-}" ] && [ -f "$saved" ]; then
    cp "$saved" "$root/$file" && touch "$root/$file" && rm -f "$saved"
    [ -z "$targets" ] || cmake --build "$bdir" --target $targets >/dev/null 2>&1
  fi
  saved=""
}
trap 'restore; exit 130' INT TERM
trap 'restore' EXIT

for m in "${mutations[@]}"; do
  IFS='|' read -r name file expr bdir targets regex what <<<"$m"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  if [ ! -f "$bdir/CTestTestfile.cmake" ]; then
    echo "mutation: $bdir is not built (scripts/test builds it); skipping $name"
    results+=("$name: NOT RUN ($bdir missing)"); status=1; continue
  fi
  saved=$(mktemp)
  cp "$file" "$saved"
  sed -i -E "$expr" "$file"  # every expression is an ERE (sed -E)
  if cmp -s "$file" "$saved"; then
    echo "mutation $name: the expression no longer matches $file (update this script)"
    results+=("$name: NOT APPLIED"); status=1; restore; continue
  fi
  touch "$file"
  echo "=== $name: $what ($file)"
  if [ -n "$targets" ] && ! cmake --build "$bdir" --target $targets >/tmp/mutation-build.log 2>&1; then
    echo "    the mutant does not build:"; tail -5 /tmp/mutation-build.log
    results+=("$name: NOT BUILT"); status=1; restore; continue
  fi
  log=$(mktemp)
  (cd "$bdir" && ctest -R "$regex" --timeout 300) >"$log" 2>&1
  ran=$(grep -cE "Test +#[0-9]+:" "$log")
  failed=$(grep -cE "\*\*\*Failed|\*\*\*Exception|Timeout" "$log")
  if [ "$ran" -gt 0 ] && [ "$failed" -gt 0 ]; then
    results+=("$name: caught ($failed of $ran tests failed: $(grep -oE '[0-9]+ - [^ ]+ \(' "$log" | head -3 | sed 's/ (//' | tr '\n' ' '))")
  else
    results+=("$name: NOT CAUGHT ($ran tests ran, none failed)"); status=1
  fi
  rm -f "$log"
  restore
done
echo
echo "=== mutation results"
for r in "${results[@]}"; do echo "$r"; done
exit $status
