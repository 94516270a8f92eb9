#!/usr/bin/env bash
# The UCX cancel race of 2026-11-27 (CI, stop 24): transpose_sum on ucx:thread-blocking,
# the command of the CTest case appbench.transpose_sum.ucx_thread-blocking.np3.compact, 3
# copies at once on the 2 cores (the load that made the progress thread complete a receive
# while the loop's thread cancelled it). Builds A and B alternate batch by batch; prints,
# per build, the runs that failed (non-zero exit, no "validation: PASSED", or ": error")
# and the first UCX assertion seen.
#   cancel_race.sh A_BUILD B_BUILD [BATCHES]     (default 10 batches of 3 x 3 runs per build)
set -uo pipefail
a=${1:?"usage: cancel_race.sh A_BUILD B_BUILD [BATCHES]"}
b=${2:?"usage: cancel_race.sh A_BUILD B_BUILD [BATCHES]"}
batches=${3:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
one() {  # BUILD TAG: one run; leaves $scratch/TAG.fail with its output when it failed
  local out rc
  out=$(timeout 60 mpirun.openmpi --oversubscribe -n 3 "$1/appbench/transpose_sum" \
        --backend ucx:thread-blocking --layout compact --timeout 100 -n 600 -c 160 --runs 2 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "validation: PASSED" <<<"$out" || grep -q ": error" <<<"$out"; then
    printf 'exit %d\n%s\n' "$rc" "$out" >"$scratch/$2.fail"
  fi
}
for i in $(seq "$batches"); do
  for side in a b; do
    build=${!side}
    for w in 1 2 3; do
      ( for k in 1 2 3; do one "$build" "$side-$i-$w-$k"; done ) &
    done
    wait
  done
done
for side in a b; do
  n=$(ls "$scratch" | grep -c "^$side-" || true)
  echo "$side (${!side}): $n of $((batches * 9)) runs failed"
  f=$(ls "$scratch" | grep "^$side-" | head -1)
  [ -n "$f" ] && grep -m1 -E "Assertion|error" "$scratch/$f"
done
exit 0
